"""What a day's reflections and diaries read (targets, inputs, signals), visits and events."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from omniira_evennia.knowledge.service import witnessed
from omniira_evennia.models import Concern, Memory, PlaceVisit, Reflection, WorldEvent
from omniira_evennia.rollover.diary import DaySignals
from omniira_evennia.rollover.reflection import RECENT_MEMORIES, ReflectionInput, render_memory
from omniira_evennia.runtime import clock


def is_headline(npc) -> bool:
    return bool(npc.attributes.get("npc_headline", default=False))


def reflection_targets(npc, threshold: int) -> list[tuple[int, int]]:
    """(target id, new memory count) for targets with at least `threshold` new memories."""
    targets = []
    # order_by() clears Meta.ordering, which would otherwise defeat distinct().
    subjects = (
        Memory.objects.filter(npc=npc)
        .exclude(subject=npc)
        .order_by()
        .values_list("subject_id", flat=True)
        .distinct()
    )
    for subject_id in subjects:
        last = (
            Reflection.objects.filter(npc=npc, target_id=subject_id)
            .order_by("-created_at")
            .values_list("created_at", flat=True)
            .first()
        )
        new = grounded_memories(npc, subject_id)
        if last is not None:
            new = new.filter(learned_at__gt=last)
        count = new.count()
        if count >= threshold:
            targets.append((subject_id, count))
    return targets


def grounded_memories(npc, subject_id):
    """The memories a belief may be drawn from: those resting on what was said or written by
    a builder or the NPC itself (memory/grounding.py), never a suspect one."""
    return Memory.objects.filter(
        npc=npc, subject_id=subject_id, grounding__isnull=False, suspect=False
    )


def reflection_input(npc, target, count) -> ReflectionInput:
    rows = list(
        grounded_memories(npc, target.id)
        .select_related("provenance")
        .order_by("-learned_at")[:RECENT_MEMORIES]
    )
    lines = [
        render_memory(m.value, m.feeling or None, m.provenance.db_key if m.provenance_id else None)
        for m in reversed(rows)
    ]
    beliefs = list(
        Reflection.objects.filter(npc=npc, target=target)
        .order_by("-created_at")
        .values_list("belief", flat=True)[:10]
    )
    inp = ReflectionInput(npc.id, target.id, npc.key, target.key, lines, beliefs, count)
    inp.memory_values = [m.value for m in reversed(rows)]
    return inp


def world_events_by_npc(game_day: int) -> dict[int, list[str]]:
    """The day's world events by the NPCs they name, oldest first, in one query."""
    found: dict[int, list[str]] = {}
    for text, npc_ids in WorldEvent.objects.filter(game_day=game_day).values_list(
        "text", "npc_ids"
    ):
        for npc_id in npc_ids or []:
            found.setdefault(npc_id, []).append(text)
    return found


def day_signals(npc, game_day: int, events: dict[int, list[str]] | None = None) -> DaySignals:
    """
    What the NPC's diary is made of. `events` is `world_events_by_npc(game_day)`, read once
    per rollover: reading every event of the day for each NPC cost ~20 ms of reactor time per
    NPC with 500 NPCs and events (bench/rollover.py), and grew with their product.
    """
    memories = [
        f"about {m.subject.db_key}"
        + (f" (heard from {m.provenance.db_key})" if m.provenance_id else "")
        + f": {m.value}"
        for m in Memory.objects.filter(npc=npc, game_day=game_day)
        .select_related("subject", "provenance")
        .order_by("learned_at")[:30]
    ]
    concerns = Concern.objects.filter(npc=npc, resolved=False, suspect=False)
    places = places_visited(npc, game_day)
    if events is None:
        events = world_events_by_npc(game_day)
    since = timezone.now() - timedelta(days=1)
    return DaySignals(
        memories=memories,
        concerns_today=[c.topic for c in concerns.filter(created_at__gte=since)],
        places=places,
        events=list(events.get(npc.id, [])),
        standing_concerns=[c.topic for c in concerns.filter(created_at__lt=since)[:3]],
    )


def places_visited(npc, game_day: int) -> list[str]:
    """Where the NPC went that day, in order (a place entered twice in a row counts once)."""
    places = []
    for place in PlaceVisit.objects.filter(npc=npc, game_day=game_day).values_list(
        "place", flat=True
    ):
        if not places or places[-1] != place:
            places.append(place)
    return places


def record_visit(npc, room) -> None:
    if room is not None:
        PlaceVisit.objects.create(
            npc=npc, game_day=clock.current_game_day(), place=room.key[:100], room=room
        )


def log_world_event(
    text: str, npcs=(), *, room=None, expires=None, importance=None, category: str = "event"
) -> WorldEvent:
    """
    Record something that happened, naming the NPCs involved (for their diaries). It becomes
    the knowledge of those who witnessed it (issue #25): the NPCs named (objects, not ids)
    and the memory NPCs in `room`, each with a fact of `category` that expires when the
    builder says (`expires`: a datetime, a timedelta, seconds, or "3 game days"; None: never).
    """
    event = WorldEvent.objects.create(
        game_day=clock.current_game_day(),
        text=" ".join(str(text).split())[:500],
        npc_ids=[npc if isinstance(npc, int) else npc.id for npc in npcs],
    )
    present = list(room.contents) if room is not None else []
    seen = {obj.id: obj for obj in [*npcs, *present] if not isinstance(obj, int)}
    witnessed(event, seen.values(), expires=expires, importance=importance, category=category)
    return event
