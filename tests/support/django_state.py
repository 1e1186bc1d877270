"""
Django and Evennia for the tests that use the game's database (tests/integration, tests/e2e,
through their conftest): initialised once inside pytest-django's database access, the default
homes on PostgreSQL, and each test's caches emptied. The unit tests of the plain core do not
load this (`make test-unit` runs them with pytest-django switched off).
"""

import pytest


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
def _fresh_django_state():
    """Each test with the game's database starts with empty caches and an inline worker runner
    (the plain state is reset by the root conftest's `_fresh_plain_state`)."""
    from omniira_evennia.knowledge import service as knowledge
    from omniira_evennia.memory import store
    from omniira_evennia.runtime import runner

    runner.run_inline(True)
    runner.install_orm_guard("raise")  # a query from a worker fails the test
    store.invalidate()
    knowledge.invalidate()  # a rolled-back test's rows must not stay in a cached scope
    yield
    store.invalidate()
    knowledge.invalidate()
