"""
Late results after an erasure, and how a player is named in text.

Work that began before a player was erased (a reply on its way, a review, gossip, a rollover
job) must not write them back when it finishes: `late_write` and `scrub_late` are asked by the
one write policy (memory/write.py) and by the rows written outside it (conversation/store.add_turn, the
rollover's beliefs and diaries through `drop_late_rollover_rows`). The erasure registry
(memory/erasure.py) finds the player in text with the same `names_of` and `mention_pattern`.
This module imports no other memory module but full-text search, so the store, the write
policy and the erasure can all use it.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime, timedelta

from django.db.models import Max
from django.utils import timezone

from omniira_evennia.memory import fulltext
from omniira_evennia.models import Conversation, DailyWork, DiaryEntry, Erasure, Reflection
from omniira_evennia.runtime import health

# ---------------------------------------------------------------- naming the player

ERASED_MARK = "[erased]"
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def names_of(player) -> list[str]:
    """The words that name `player` in text: their key and aliases (two letters or more)."""
    names = [getattr(player, "key", None) or getattr(player, "db_key", "")]
    aliases = getattr(player, "aliases", None)
    if aliases is not None:
        try:
            names += list(aliases.all())
        except Exception:  # not a typeclassed object (a bare id in tests, a deleted object)
            pass
    seen: list[str] = []
    for name in names:
        name = " ".join(str(name or "").split())
        if len(name) >= 2 and name.lower() not in (n.lower() for n in seen):
            seen.append(name)
    return seen


def mention_pattern(names) -> re.Pattern | None:
    """A pattern finding any of `names` as a whole word (any case); None for no names."""
    names = [n for n in names if n]
    if not names:
        return None
    words = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{words})(?!\w)", re.IGNORECASE)


def without_mentions(text: str, pattern: re.Pattern | None) -> str:
    """`text` without its sentences that match `pattern` ("" when every sentence does)."""
    if pattern is None or not text:
        return text
    kept = [s for s in _SENTENCE_END.split(text.strip()) if not pattern.search(s)]
    return " ".join(kept).strip()


# ---------------------------------------------------------------- late results after an erasure

_job_start: ContextVar[datetime | None] = ContextVar("omniira_job_start", default=None)
# The erasures read once inside a `job_started` block: a turn's writes ask for every memory,
# note and relationship (four to five times), and the block is one reactor turn's writes.
_read_in_block: ContextVar[dict | None] = ContextVar("omniira_late_erasures", default=None)


@contextmanager
def job_started(at: datetime | None):
    """Writes inside come from work that began at `at` (None: not known; see `late_write`)."""
    token = _job_start.set(at)
    read = _read_in_block.set({})
    try:
        yield
    finally:
        _read_in_block.reset(read)
        _job_start.reset(token)


# Work whose start is not known (gossip, a review, game code) is taken to be late for a player
# erased within this long, unless they have talked since: no such job runs longer.
UNKNOWN_START_WINDOW = timedelta(hours=24)


def _late_erasures() -> dict[int, datetime]:
    """
    The erased players (id: when) the current work is late for: erased after it began. When
    its start is not known, those erased within UNKNOWN_START_WINDOW who have not started a
    conversation since: until they talk again nothing new about them can exist, so whatever
    arrives about them comes from before. One small query when nobody was erased lately, once
    per `job_started` block.
    """
    read = _read_in_block.get()
    if read is not None and "late" in read:
        return read["late"]
    late = _read_late_erasures()
    if read is not None:
        read["late"] = late
    return late


def _read_late_erasures() -> dict[int, datetime]:
    started = _job_start.get()
    since = started if started is not None else timezone.now() - UNKNOWN_START_WINDOW
    erased: dict[int, datetime] = {}
    for player_id, at in (
        Erasure.objects.filter(erased_at__gt=since)
        .order_by("erased_at")
        .values_list("player_id", "erased_at")
    ):
        erased[player_id] = at  # the latest erasure of each player
    if not erased or started is not None:
        return erased
    back = (
        Conversation.objects.filter(speaker_id__in=erased)
        .values("speaker_id")
        .annotate(latest=Max("started_at"))
        .values_list("speaker_id", "latest")
    )
    for player_id, latest in back:
        if latest > erased[player_id]:
            del erased[player_id]  # they talked again: what is said of them now is new
    return erased


def _naming(late: dict[int, datetime]):
    from evennia.objects.models import ObjectDB  # Evennia's model: loaded after the apps

    names = [name for obj in ObjectDB.objects.filter(id__in=late) for name in names_of(obj)]
    return mention_pattern(names)


def late_write(people=(), text: str = "") -> bool:
    """
    True (and counted as `erased_late_writes`) if this write is a late result for an erased
    player: it is about one of `people`, or `text` names one, and the work writing it began
    before that player's erasure (`job_started`, or the rule in `_late_erasures`).
    """
    late = _late_erasures()
    if not late:
        return False
    ids = {getattr(p, "id", p) for p in people if p is not None}
    hit = bool(ids & late.keys())
    if not hit and text:
        pattern = _naming(late)
        hit = bool(pattern and pattern.search(text))
    if hit:
        health.incr("erased_late_writes")
    return hit


def scrub_late(text: str) -> str:
    """`text` without its sentences naming a player the current work is late for."""
    late = _late_erasures()
    if not late or not text:
        return text
    scrubbed = without_mentions(text, _naming(late))
    if scrubbed != text:
        health.incr("erased_late_writes")
    return scrubbed


def _rollover_start(kind: str, npc_id: int, target_id: int, game_day: int):
    return (
        DailyWork.objects.filter(kind=kind, npc_id=npc_id, target_id=target_id, game_day=game_day)
        .values_list("created_at", flat=True)
        .first()
    )


def drop_late_rollover_rows(sender, instance, created=False, raw=False, **kwargs) -> None:
    """
    post_save of a belief or a diary entry, which the rollover writes itself: one from a job
    claimed (`DailyWork`) before a player's erasure is deleted if it is about them or names
    them (a belief), or loses its sentences naming them and its vector (a diary entry; deleted
    if nothing is left). The index is purged at once, as after an erasure.
    """
    if raw:
        return
    if isinstance(instance, Reflection):
        start = _rollover_start(
            "reflection", instance.npc_id, instance.target_id, instance.game_day
        )
        with job_started(start):
            if created and late_write((instance.target_id,), instance.belief):
                instance.delete()
                fulltext.purge()
    elif isinstance(instance, DiaryEntry):
        with job_started(_rollover_start("diary", instance.npc_id, 0, instance.game_day)):
            text = scrub_late(instance.entry)
        if text == instance.entry:
            return
        if text:
            DiaryEntry.objects.filter(pk=instance.pk).update(
                entry=text, embedding=None, embedder=None
            )
        else:
            instance.delete()
        fulltext.purge()
