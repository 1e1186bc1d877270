"""Migration 0014: a negative token count stored before is set to 0, and none can be stored."""

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from omniira_evennia.models import LLMUsage


def migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)


@pytest.mark.django_db(transaction=True)
def test_negative_token_counts_are_cleared_and_then_refused():
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes("omniira_evennia")
    migrate([("omniira_evennia", "0013_erasure")])
    try:
        with connection.cursor() as cursor:  # as a server reporting negative usage left it
            cursor.execute(
                "INSERT INTO omniira_evennia_llmusage (tier, feature, model, tokens_in, tokens_out,"
                " latency_ms, cost_usd, ok, error, created_at)"
                " VALUES ('voice', 'conversation', 'm', -900, 40, 0, 0, %s, '', CURRENT_TIMESTAMP)",
                [True],
            )
    finally:
        migrate(latest)
    row = LLMUsage.objects.get()
    assert (row.tokens_in, row.tokens_out) == (0, 40)
    with pytest.raises(IntegrityError), transaction.atomic():
        LLMUsage.objects.create(tier="voice", feature="conversation", tokens_in=-5)
    assert LLMUsage.objects.count() == 1
