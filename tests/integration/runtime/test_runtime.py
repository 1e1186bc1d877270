"""The two worker pools and the rule that worker threads never touch the ORM."""

import threading

import pytest
from django.test import override_settings

from omniira_evennia import conf
from omniira_evennia.models import Memory
from omniira_evennia.runtime import runner


@pytest.mark.django_db
def test_a_query_from_a_worker_fails_and_the_matrix_read_is_allowed():
    failures = []
    runner.defer_background(Memory.objects.count).addErrback(failures.append)
    assert failures and failures[0].check(runner.WorkerOrmAccess)
    assert "ORM access from an omniira worker thread" in str(failures[0].value)

    def sanctioned():
        with runner.orm_allowed():
            return Memory.objects.count()

    results = []
    runner.defer_interactive(sanctioned).addCallback(results.append)
    assert results == [0]
    assert Memory.objects.count() == 0  # the reactor thread may always query


@pytest.mark.django_db
def test_log_mode_counts_instead_of_failing():
    from omniira_evennia.runtime import health

    runner.install_orm_guard("log")
    try:
        results = []
        runner.defer_background(Memory.objects.count).addCallback(results.append)
        assert results == [0] and health.get("worker_orm_access") == 1
    finally:
        runner.install_orm_guard("raise")


def test_background_work_never_queues_in_front_of_a_player():
    """A saturated background pool leaves the interactive pool free."""
    with override_settings(OMNIIRA={"BACKGROUND_THREADS": 1, "INTERACTIVE_THREADS": 2}):
        conf.reset_settings()
        runner._pools.clear()
        try:
            release, started, answered = threading.Event(), threading.Event(), threading.Event()

            def long_rollover_job():
                started.set()
                release.wait(10)

            runner._pool(runner.BACKGROUND).callInThread(long_rollover_job)
            runner._pool(runner.BACKGROUND).callInThread(long_rollover_job)  # queued behind
            assert started.wait(5)
            runner._pool(runner.INTERACTIVE).callInThread(answered.set)
            assert answered.wait(5), "a player's turn waited behind background work"
            assert runner.pool_sizes() == {"background": 1, "interactive": 2}
        finally:
            release.set()
            for pool in runner._pools.values():
                pool.stop()
            runner._pools.clear()
