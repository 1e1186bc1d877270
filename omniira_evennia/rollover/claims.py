"""Each piece of a day's work claimed once in DailyWork; failed pieces retried with a backoff."""

from __future__ import annotations

from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone

from omniira_evennia.conf import get_settings
from omniira_evennia.models import DailyWork
from omniira_evennia.runtime import backoff
from omniira_evennia.runtime.claims import claim_once


def claim(kind: str, npc, game_day: int, target_id: int = 0) -> bool:
    """
    Own one piece of the day's work. False if it ran (or is running) already, or failed and
    waits for its next try (`retry_due`).
    """
    try:
        with transaction.atomic():
            DailyWork.objects.create(kind=kind, npc=npc, target_id=target_id, game_day=game_day)
        return True
    except IntegrityError:
        same = DailyWork.objects.filter(kind=kind, npc=npc, target_id=target_id, game_day=game_day)
        # A check that found nothing to do made no call; it may be looked at again. Failed
        # work whose wait is over is tried again.
        if claim_once(same, "status", ["empty"], "running"):
            return True
        due = same.filter(Q(retry_at__isnull=True) | Q(retry_at__lte=timezone.now()))
        if claim_once(due, "status", ["retry"], "running"):
            DailyWork.objects.filter(pk__in=same.values("pk")).update(attempts=F("attempts") + 1)
            return True
        return False


def mark_work(kind, npc, game_day, status, target_id=0):
    DailyWork.objects.filter(kind=kind, npc=npc, target_id=target_id, game_day=game_day).update(
        status=status
    )


def work_failed(kind, npc, game_day, error: str, target_id=0) -> str:
    """
    Work that failed waits to be tried again ("retry", after `backoff.retry_delay`) until it
    was tried RETRY_ATTEMPTS times, then stays "failed" (`retry_failed` runs it again).
    Returns the status it is left in.
    """
    conf = get_settings()
    rows = DailyWork.objects.filter(kind=kind, npc=npc, target_id=target_id, game_day=game_day)
    tried = rows.values_list("attempts", flat=True).first() or 1
    again = tried < conf.RETRY_ATTEMPTS
    delay = timedelta(seconds=backoff.retry_delay(tried, conf))
    rows.update(
        status="retry" if again else "failed",
        retry_at=timezone.now() + delay if again else None,
        last_error=str(error)[:200],
    )
    return "retry" if again else "failed"


def retry_failed(game_day: int | None = None) -> int:
    """Let work that failed for good (on `game_day`, or any day) be tried again now."""
    rows = DailyWork.objects.filter(status__in=["failed", "retry"])
    if game_day is not None:
        rows = rows.filter(game_day=game_day)
    return rows.update(status="retry", attempts=0, retry_at=None)


def reset_unfinished_claims() -> int:
    """At start: a claim still "running" wrote nothing (its worker died); let it run again."""
    count, _ = DailyWork.objects.filter(status="running").delete()
    return count
