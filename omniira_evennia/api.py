"""
The public Python API for game code: thin functions over `npc.memory` (the handler in
`omniira_evennia.memory.handler`) and over the capability services.

These functions are synchronous: they touch the database and (for `remember`, `recall`,
`search_memories`, `who_knows`) compute an embedding. Call them from scripts, commands or the
shell on the reactor thread. On a busy server use `remember_later`, which embeds in the worker
pool and returns a Deferred.
"""

from __future__ import annotations

import warnings

from django.db.models import QuerySet

from omniira_evennia.conversation.service import close_conversations_with
from omniira_evennia.knowledge import service as knowledge_service
from omniira_evennia.life.service import run_decision_tick as _tick
from omniira_evennia.life.service import schedule_of
from omniira_evennia.life.service import set_schedule as _set
from omniira_evennia.life.service import tick_npc
from omniira_evennia.memory import service as memory_service
from omniira_evennia.memory.embeddings import embed_or_none
from omniira_evennia.memory.handler import handler_of, object_id, with_rows
from omniira_evennia.models import Memory, Plan, Source
from omniira_evennia.rollover.service import log_world_event as _log
from omniira_evennia.rollover.service import places_visited as _visited
from omniira_evennia.rollover.service import run_rollover as _run
from omniira_evennia.runtime.clock import current_game_day
from omniira_evennia.social.service import gossip_round as _round


def _renamed(value, old_value, old: str, new: str, call: str):
    """The handler's argument `new`, from the old keyword `old` if that is what was given (with
    a DeprecationWarning naming `call`, the function it was given to)."""
    if old_value is None:
        return value
    warnings.warn(
        f"omniira_evennia.{call}({old}=...) is now {new}=..., as npc.memory's",
        DeprecationWarning,
        stacklevel=3,
    )
    return old_value if value is None else value


def _teller(teller, provenance):
    """The handler's `teller`, from the old keyword `provenance` if that is what was given."""
    return _renamed(teller, provenance, "provenance", "teller", "remember")


def remember(
    npc,
    subject,
    value: str,
    *,
    key: str | None = None,
    importance: int = 5,
    feeling: str | None = None,
    source: str = Source.ADMIN,
    teller=None,
    kind: str = "event",
    embed: bool = True,
    embedding=None,
    provenance=None,
) -> Memory | None:
    """
    Make `npc` remember `value` about `subject`: `npc.memory.remember` (see its Args; `teller`
    is who told the NPC). `provenance`, 0.2's name for `teller`, still works with a
    DeprecationWarning.

    Returns:
        The Memory row, or None if a locked memory refused the write.
    """
    teller = _teller(teller, provenance)
    return handler_of(npc).remember(
        subject,
        value,
        key=key,
        importance=importance,
        feeling=feeling,
        source=source,
        teller=teller,
        kind=kind,
        embed=embed,
        embedding=embedding,
    )


def remember_later(npc, subject, value: str, **kwargs):
    """`remember` with the embedding computed off the reactor; a Deferred of the row."""
    if "provenance" in kwargs:
        kwargs["teller"] = _teller(kwargs.get("teller"), kwargs.pop("provenance"))
    return handler_of(npc).remember_later(subject, value, **kwargs)


def recall(npc, query: str, about=None, *, subject=None) -> list[Memory]:
    """What `npc` would bring to mind if `about` said `query`: `npc.memory.recall`. `subject`,
    0.2's name for `about`, still works with a DeprecationWarning."""
    return handler_of(npc).recall(
        query, about=_renamed(about, subject, "subject", "about", "recall")
    )


def search_memories(
    npc, query: str, limit: int = 10, about=None, *, subject=None
) -> list[tuple[Memory, float]]:
    """`npc`'s memories (about `about`) closest to `query` by meaning alone, best first, with
    the cosine: `npc.memory.search`. `subject` is 0.2's name for `about` (deprecated)."""
    about = _renamed(about, subject, "subject", "about", "search_memories")
    return handler_of(npc).search(query, limit, about=about)


def who_knows(query: str, limit: int = 10, floor: float = 0.3) -> list[tuple[Memory, float]]:
    """
    Which NPCs hold a memory like `query`: each NPC's closest memory, best first, with its
    cosine similarity. Uses the HNSW index on PostgreSQL (see memory.store.who_knows).
    """
    [vector] = embed_or_none([query])
    found = memory_service.who_knows(vector, limit, floor)
    rows = with_rows([item[0] for item in found])
    return [(rows[item[0]], item[2]) for item in found if item[0] in rows]


def memories_about(npc, subject) -> QuerySet:
    """All of `npc`'s memories about `subject`, oldest first."""
    return handler_of(npc).about(subject)


def forget(
    npc, about=None, key: str | None = None, *, include_locked: bool = False, subject=None
) -> int:
    """Delete memories of `npc` (about `about`, with `key`); returns how many:
    `npc.memory.forget`. `subject` is 0.2's name for `about` (deprecated)."""
    about = _renamed(about, subject, "subject", "about", "forget")
    return handler_of(npc).forget(about=about, key=key, include_locked=include_locked)


# ---------------------------------------------------------------- social


def relationship(npc, subject):
    """The NPC's `Relationship` to `subject` (created neutral, or from faction attitude)."""
    return handler_of(npc).relationship(subject)


def has_met(npc, subject) -> bool:
    """True if they have talked, or the NPC holds a firsthand memory about the subject."""
    return memory_service.has_met(npc, subject)


def memories_by(
    npc, *, feeling: str | None = None, source: str | None = None, about=None, subject=None
) -> QuerySet:
    """An NPC's memories filtered by feeling and/or source (e.g. source="gossip"):
    `npc.memory.by`. `subject` is 0.2's name for `about` (deprecated)."""
    about = _renamed(about, subject, "subject", "about", "memories_by")
    return handler_of(npc).by(feeling=feeling, source=source, about=about)


def gossip_round(room=None, budget: int | None = None) -> list:
    """Let NPCs sharing a room with no player talk now; returns Deferreds (see social.py)."""

    return _round(room, budget)


def end_conversation(npc, speaker, reason: str = "ended") -> list:
    """End the NPC's open conversation with `speaker` now and extract it."""

    return close_conversations_with(npc, speaker, reason)


# ---------------------------------------------------------------- daily rhythm


def run_rollover(game_day: int | None = None):
    """Run the day's forgetting, reflections and diaries now; a Deferred of a summary dict."""

    return _run(game_day)


def diary_entries(npc) -> QuerySet:
    """The NPC's diary entries, oldest first."""
    return handler_of(npc).diary()


def beliefs(npc, about=None, *, target=None) -> QuerySet:
    """The NPC's beliefs (about `about`, when given), oldest first: `npc.memory.beliefs`.
    `target` is 0.2's name for `about` (deprecated)."""
    return handler_of(npc).beliefs(about=_renamed(about, target, "target", "about", "beliefs"))


def log_world_event(text: str, npcs=(), **kwargs):
    """
    Record an event naming the NPCs involved; it reaches their diaries that day, and becomes
    the knowledge of those who saw it (the NPCs named, and those in `room=`), expiring when
    `expires=` says ("3 game days", a timedelta, a datetime). See
    `rollover.service.log_world_event`.
    """

    return _log(text, npcs, **kwargs)


def know(text: str, scope="world", **kwargs):
    """
    Knowledge for a scope: "world" (default), "npc:<name>", "room:<name>", "zone:<name>",
    "tag:<name>", an NPC (its own) or a `knowledge.service.Scope`; the keyword arguments of
    `npc.memory.know` (key, category, importance, expires, secret, wont_discuss, condition,
    reply, topics). Returns the Knowledge row.
    """
    if getattr(scope, "is_omniira_npc", False):
        scope = knowledge_service.npc_scope(scope)
    elif not isinstance(scope, knowledge_service.Scope):
        scope = knowledge_service.resolve_scope(scope)
    return knowledge_service.know(scope, text, **kwargs)


def load_knowledge(path, prune: bool = True):
    """Load a knowledge file (JSON or YAML, `knowledge/files.py`) now; returns its LoadPlan
    (`.summary()` says what was added, updated, unchanged, removed or skipped)."""
    return knowledge_service.load_file(path, prune=prune)


# ---------------------------------------------------------------- daily life


def npc_schedule(npc) -> list:
    """
    The NPC's schedule as `Slot`s (place, start and end minute), from its `npc_schedule`
    Attribute. Bad entries are left out (and logged); `str(slot)` reads "market 10:00-12:00".
    """

    return schedule_of(npc)


def set_schedule(npc, text) -> list:
    """
    Give `npc` a daily schedule, e.g. "tavern 06-22, market 10-12" (see
    `omniira_evennia.life.schedule`). Raises `ScheduleError` naming every bad entry; an empty
    schedule removes it. Returns the parsed slots.
    """

    return _set(npc, text)


def current_plan(npc):
    """The open commitment (`Plan`) the NPC acts on first (its oldest), or None."""

    return (
        Plan.objects.filter(npc_id=object_id(npc), status=Plan.Status.OPEN)
        .order_by("created_at", "id")
        .first()
    )


def intention(npc):
    """What the NPC means to do now (a `Decision`: where it heads and why), without doing it."""

    return tick_npc(npc, act=False)


def places_visited(npc, game_day: int | None = None) -> list[str]:
    """The places the NPC went on `game_day` (default: today), in order."""

    return _visited(npc, current_game_day() if game_day is None else game_day)


def run_decision_tick(budget: int | None = None) -> list:
    """Run one decision tick now: NPCs follow schedules and promises, one exit each."""

    return _tick(budget)
