"""
pytest setup: Django + Evennia initialised once inside pytest-django's database access.

Unit tests of the pure core need none of this; it costs about a second once per session.
"""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


@pytest.fixture(scope="session", autouse=True)
def _evennia_init(django_db_blocker):
    import django
    from django.conf import settings

    django.setup()
    with django_db_blocker.unblock():
        import evennia

        evennia._init()
    settings.TEST_ENVIRONMENT = True
    yield


@pytest.fixture(scope="session", autouse=True)
def _default_homes(request, django_db_blocker):
    """
    On PostgreSQL, give the test database Evennia's default homes (#1, #2): objects created
    without a home point there, and PostgreSQL checks those deferred foreign keys when each
    test ends (SQLite never does).
    """
    from django.conf import settings

    if "postgresql" not in settings.DATABASES["default"]["ENGINE"]:
        return
    request.getfixturevalue("django_db_setup")
    with django_db_blocker.unblock():
        from django.db import connection
        from evennia.objects.models import ObjectDB

        for home_id, key in ((2, "Limbo"), (1, "Home")):  # Limbo first: #1 gets #2 as home
            if not ObjectDB.objects.filter(id=home_id).exists():
                ObjectDB.objects.create(
                    id=home_id, db_key=key, db_typeclass_path="evennia.objects.objects.DefaultRoom"
                )
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT setval(pg_get_serial_sequence('objects_objectdb', 'id'), "
                "(SELECT max(id) FROM objects_objectdb))"
            )


@pytest.fixture(autouse=True)
def _fresh_state():
    """Each test starts with empty caches, counters and an inline worker runner."""
    from omniira_evennia import conf
    from omniira_evennia.knowledge import service as knowledge
    from omniira_evennia.llm import client as llm
    from omniira_evennia.llm import guards
    from omniira_evennia.memory import embeddings, store
    from omniira_evennia.runtime import health, runner

    runner.run_inline(True)
    runner.install_orm_guard("raise")  # a query from a worker fails the test
    health.reset()
    guards.reset_limiters()  # per-player turn and audit rate windows
    store.invalidate()
    knowledge.invalidate()  # a rolled-back test's rows must not stay in a cached scope
    conf.reset_settings()
    llm.reset_client()
    yield
    store.invalidate()
    knowledge.invalidate()
    embeddings.set_embedder(None)
    conf.reset_settings()
    llm.reset_client()
