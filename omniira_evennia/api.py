"""
The public Python API for game code.

These functions are synchronous: they touch the database and (for `remember`, `recall`,
`search_memories`, `who_knows`) compute an embedding, 10-30 ms on a CPU once the model is
loaded. Call them from scripts, commands or the shell on the reactor thread. On a busy server
use `remember_later`, which embeds in the worker pool and returns a Deferred.
"""

from __future__ import annotations

import time

from django.db.models import QuerySet

from omniira_evennia.memory import store
from omniira_evennia.memory.embeddings import embed_or_none
from omniira_evennia.memory.write import Note, write_note
from omniira_evennia.models import Memory, Source


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
    embedding=None,
) -> Memory | None:
    """
    Make `npc` remember `value` about `subject` (a character or NPC).

    Args:
        key: stable key; a second `remember` with the same key replaces the value. Defaults to a
            slug of the value.
        importance: 1-10 (clamped). feeling: joy, anger, fear, trust, contempt, sorrow, surprise.
        source: "admin" by default; "self", "extracted", "gossip", "self_committed" as the
            pipelines use them. provenance: who told the NPC (makes it hearsay).
        embedding: a vector computed elsewhere (see `remember_later`); else one is computed
            now, on this thread, unless `embed` is False.
    Returns:
        The Memory row, or None if a locked memory refused the write.
    """
    from omniira_evennia.runtime.clock import current_game_day

    vector = embedding
    if vector is None and embed:
        vector = embed_or_none([value])[0]
    note = Note(
        subject,
        value,
        key=key,
        importance=importance,
        feeling=feeling,
        source=source,
        teller=provenance,
        kind=kind,
        embedding=vector,
        game_day=current_game_day(),
    )
    return write_note(npc, note)


def remember_later(npc, subject, value: str, **kwargs):
    """
    `remember`, with the embedding computed in the worker pool instead of on the calling
    thread. Returns a Deferred that fires on the reactor with the Memory row (or None if a
    locked memory refused the write). Use it from commands and scripts on a busy server.
    """
    from omniira_evennia.runtime.runner import defer_interactive

    def _write(vectors):
        return remember(npc, subject, value, embedding=vectors[0], **kwargs)

    return defer_interactive(embed_or_none, [value]).addCallback(_write)


def recall(npc, query: str, subject=None) -> list[Memory]:
    """
    What `npc` would bring to mind for `query` (about `subject`, or about anyone): the same
    retrieval as a conversation turn (RETRIEVAL_MODE), in chronological order.
    """
    from omniira_evennia.conf import get_settings
    from omniira_evennia.conversation.turn import select_by_mode
    from omniira_evennia.memory import fulltext
    from omniira_evennia.memory.fusion import LexicalHits

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


def search_memories(npc, query: str, limit: int = 10, subject=None) -> list[tuple[Memory, float]]:
    """
    `npc`'s memories most similar to `query` by meaning alone (no recency, no weights), best
    first, with their cosine similarity. Exact on every database (see store.nearest_memories).
    """
    [vector] = embed_or_none([query])
    found = store.nearest_memories(
        _id(npc), vector, limit, _id(subject) if subject is not None else None
    )
    return _with_rows(found, lambda item: item[0], lambda item, memory: (memory, item[1]))


def who_knows(query: str, limit: int = 10, floor: float = 0.3) -> list[tuple[Memory, float]]:
    """
    Which NPCs hold a memory like `query`: each NPC's closest memory, best first, with its
    cosine similarity. Uses the HNSW index on PostgreSQL (see store.who_knows).
    """
    [vector] = embed_or_none([query])
    found = store.who_knows(vector, limit, floor)
    return _with_rows(found, lambda item: item[0], lambda item, memory: (memory, item[2]))


def _with_rows(found, id_of, pair):
    rows = Memory.objects.select_related("npc", "subject", "provenance").in_bulk(
        [id_of(item) for item in found]
    )
    return [pair(item, rows[id_of(item)]) for item in found if id_of(item) in rows]


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
    from omniira_evennia.social.service import gossip_round as _round

    return _round(room, budget)


def end_conversation(npc, speaker, reason: str = "ended") -> list:
    """End the NPC's open conversation with `speaker` now and extract it."""
    from omniira_evennia.conversation.lifecycle import close_conversations_with

    return close_conversations_with(npc, speaker, reason)


# ---------------------------------------------------------------- daily rhythm


def run_rollover(game_day: int | None = None):
    """Run the day's forgetting, reflections and diaries now; a Deferred of a summary dict."""
    from omniira_evennia.rollover.service import run_rollover as _run

    return _run(game_day)


def diary_entries(npc) -> QuerySet:
    """The NPC's diary entries, oldest first."""
    from omniira_evennia.models import DiaryEntry

    return DiaryEntry.objects.filter(npc_id=_id(npc)).order_by("game_day")


def beliefs(npc, target=None) -> QuerySet:
    """The NPC's beliefs (about `target`, when given), oldest first."""
    from omniira_evennia.models import Reflection

    rows = Reflection.objects.filter(npc_id=_id(npc))
    if target is not None:
        rows = rows.filter(target_id=_id(target))
    return rows.order_by("created_at")


def log_world_event(text: str, npcs=()):
    """Record an event naming the NPCs involved; it reaches their diaries that day."""
    from omniira_evennia.rollover.service import log_world_event as _log

    return _log(text, npcs)


# ---------------------------------------------------------------- daily life


def npc_schedule(npc) -> list:
    """
    The NPC's schedule as `Slot`s (place, start and end minute), from its `npc_schedule`
    Attribute. Bad entries are left out (and logged); `str(slot)` reads "market 10:00-12:00".
    """
    from omniira_evennia.life.service import schedule_of

    return schedule_of(npc)


def set_schedule(npc, text) -> list:
    """
    Give `npc` a daily schedule, e.g. "tavern 06-22, market 10-12" (see
    `omniira_evennia.life.schedule`). Raises `ScheduleError` naming every bad entry; an empty
    schedule removes it. Returns the parsed slots.
    """
    from omniira_evennia.life.service import set_schedule as _set

    return _set(npc, text)


def current_plan(npc):
    """The open commitment (`Plan`) the NPC acts on first (its oldest), or None."""
    from omniira_evennia.models import Plan

    return (
        Plan.objects.filter(npc_id=_id(npc), status=Plan.Status.OPEN)
        .order_by("created_at", "id")
        .first()
    )


def intention(npc):
    """What the NPC means to do now (a `Decision`: where it heads and why), without doing it."""
    from omniira_evennia.life.service import tick_npc

    return tick_npc(npc, act=False)


def places_visited(npc, game_day: int | None = None) -> list[str]:
    """The places the NPC went on `game_day` (default: today), in order."""
    from omniira_evennia.rollover.service import places_visited as _visited
    from omniira_evennia.runtime.clock import current_game_day

    return _visited(npc, current_game_day() if game_day is None else game_day)


def run_decision_tick(budget: int | None = None) -> list:
    """Run one decision tick now: NPCs follow schedules and promises, one exit each."""
    from omniira_evennia.life.service import run_decision_tick as _tick

    return _tick(budget)
