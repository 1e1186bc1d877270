"""
The public Python API for game code.

These functions are synchronous: they touch the database and (for `remember` and `recall`)
compute an embedding, about 10 ms on a CPU once the model is loaded. Call them from scripts,
commands or the shell on the reactor thread; for a burst of writes from a busy command, defer the
embedding with `embed=False` and the memory is still found through the recency lane.
"""

from __future__ import annotations

import time

from django.db.models import QuerySet

from . import store
from .embeddings import embed_or_none
from .models import Memory, Source


def _id(obj) -> int:
    return obj if isinstance(obj, int) else obj.id


def remember(
    npc,
    subject,
    value: str,
    *,
    key: str | None = None,
    importance: int = 5,
    feeling: str | None = None,
    source: str = Source.ADMIN,
    provenance=None,
    kind: str = "event",
    embed: bool = True,
) -> Memory | None:
    """
    Make `npc` remember `value` about `subject` (a character or NPC).

    Args:
        key: stable key; a second `remember` with the same key replaces the value. Defaults to a
            slug of the value.
        importance: 1-10 (clamped). feeling: joy, anger, fear, trust, contempt, sorrow, surprise.
        source: "admin" by default; "self", "extracted", "gossip", "self_committed" as the
            pipelines use them. provenance: who told the NPC (makes it hearsay).
    Returns:
        The Memory row, or None if a locked memory refused the write.
    """
    from .clock import current_game_day

    vector = embed_or_none([value])[0] if embed else None
    return store.upsert_memory(
        npc,
        subject,
        key or value,
        value,
        importance=importance,
        feeling=feeling,
        source=source,
        provenance=provenance,
        kind=kind,
        embedding=vector,
        game_day=current_game_day(),
    )


def recall(npc, query: str, subject=None) -> list[Memory]:
    """
    What `npc` would bring to mind for `query` (about `subject`, or about anyone): the same
    retrieval as a conversation turn (RETRIEVAL_MODE), in chronological order.
    """
    from . import fulltext
    from .conf import get_settings
    from .conversation import select_by_mode
    from .fusion import LexicalHits

    conf = get_settings()
    subject_id = _id(subject) if subject is not None else None
    [vector] = embed_or_none([query])
    lexical = None
    if conf.RETRIEVAL_MODE == "fused":
        ids = fulltext.search_memories(_id(npc), query, subject_id, conf.LEXICAL_DEPTH)
        lexical = LexicalHits(memories=ids) if ids is not None else None
    records = select_by_mode(
        store.load_index(_id(npc)), vector, lexical, subject_id, conf, now=time.time()
    )
    by_id = Memory.objects.in_bulk([r.id for r in records])
    return [by_id[r.id] for r in records if r.id in by_id]


def memories_about(npc, subject) -> QuerySet:
    """All of `npc`'s memories about `subject`, oldest first."""
    return Memory.objects.filter(npc_id=_id(npc), subject_id=_id(subject)).order_by("learned_at")


def forget(npc, subject=None, key: str | None = None, *, include_locked: bool = False) -> int:
    """
    Delete memories of `npc` (about `subject`, with `key`, when given). Locked memories are kept
    unless `include_locked`. Returns how many rows were deleted.
    """
    rows = Memory.objects.filter(npc_id=_id(npc))
    if subject is not None:
        rows = rows.filter(subject_id=_id(subject))
    if key is not None:
        rows = rows.filter(key=key)
    if not include_locked:
        rows = rows.filter(locked=False)
    count, _ = rows.delete()
    store.invalidate(_id(npc))
    return count


# ---------------------------------------------------------------- social


def relationship(npc, subject):
    """The NPC's `Relationship` to `subject` (created neutral, or from faction attitude)."""
    return store.get_relationship(npc, subject)


def has_met(npc, subject) -> bool:
    """True if they have talked, or the NPC holds a firsthand memory about the subject."""
    return store.has_met(npc, subject)


def memories_by(
    npc, *, feeling: str | None = None, source: str | None = None, subject=None
) -> QuerySet:
    """An NPC's memories filtered by feeling and/or source (e.g. source="gossip")."""
    rows = Memory.objects.filter(npc_id=_id(npc))
    if feeling is not None:
        rows = rows.filter(feeling=feeling)
    if source is not None:
        rows = rows.filter(source=source)
    if subject is not None:
        rows = rows.filter(subject_id=_id(subject))
    return rows.order_by("learned_at")


def gossip_round(room=None, budget: int | None = None) -> list:
    """Let NPCs sharing a room with no player talk now; returns Deferreds (see social.py)."""
    from .social import gossip_round as _round

    return _round(room, budget)


def end_conversation(npc, speaker, reason: str = "ended") -> list:
    """End the NPC's open conversation with `speaker` now and extract it."""
    from .social import end_conversation_with

    return end_conversation_with(npc, speaker, reason)


# ---------------------------------------------------------------- daily rhythm


def run_rollover(game_day: int | None = None):
    """Run the day's forgetting, reflections and diaries now; a Deferred of a summary dict."""
    from .daily import run_rollover as _run

    return _run(game_day)


def diary_entries(npc) -> QuerySet:
    """The NPC's diary entries, oldest first."""
    from .models import DiaryEntry

    return DiaryEntry.objects.filter(npc_id=_id(npc)).order_by("game_day")


def beliefs(npc, target=None) -> QuerySet:
    """The NPC's beliefs (about `target`, when given), oldest first."""
    from .models import Reflection

    rows = Reflection.objects.filter(npc_id=_id(npc))
    if target is not None:
        rows = rows.filter(target_id=_id(target))
    return rows.order_by("created_at")


def log_world_event(text: str, npcs=()):
    """Record an event naming the NPCs involved; it reaches their diaries that day."""
    from .daily import log_world_event as _log

    return _log(text, npcs)
