"""Migrating the test database to a named state (upgrade tests)."""

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(target):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)
