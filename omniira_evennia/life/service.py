"""
The Evennia side of NPC daily life: a decision tick that walks NPCs through exits.

`OmniiraDecisionTicker` (every DECISION_TICK_SECONDS) calls `run_decision_tick`. For each NPC
with a schedule (the `npc_schedule` Attribute) or an open plan it gathers what the pure
`decisions.decide` needs (the game time, the room, the schedule, each plan resolved to rooms
and people), closes the plans it ended (status, and a memory saying how it went) and takes at
most one exit towards where the NPC should be, by traversing it like any character, so rooms
see "Lyra is leaving ..." and "Lyra arrives to ...".

One exit per tick, because players then watch NPCs walk room by room, each step re-plans
from where the NPC really is (a locked door, a person who moved on, a new promise change the
route), and the work of a tick stays small and bounded. The tick makes no LLM call: a few ORM
reads and writes on the reactor per NPC, at most DECISION_NPCS_PER_TICK NPCs per tick.

An NPC that promised to travel with someone also follows them a moment after they leave
(`notice_departure`, from `MemoryNPCMixin.at_msg_receive` on the departure message), through
the exit they took.
"""

from __future__ import annotations

import logging

from twisted.internet import reactor

from omniira_evennia.conf import get_settings
from omniira_evennia.conversation import service
from omniira_evennia.life.decisions import Decision, NpcState, PlanState, decide

# The walking map and the plans' state live in walk_map.py and plans.py; their names stay
# importable from here (callers and games found them here before).
from omniira_evennia.life.plans import (  # noqa: F401
    PLAN_TIMES_ATTR,
    close_plan,
    find_person,
    followed_cache,
    note_new_plan,
    plan_state,
    plan_times,
)
from omniira_evennia.life.schedule import Slot, parse_schedule, parse_schedule_lenient
from omniira_evennia.life.walk_map import WalkMap, place_of, room_anywhere  # noqa: F401
from omniira_evennia.models import Conversation, Plan
from omniira_evennia.runtime import clock, health

log = logging.getLogger(__name__)

SCHEDULE_ATTR = "npc_schedule"
AUTONOMOUS_ATTR = "npc_autonomous"

# Looked up at call time, so tests (which run no reactor) can collect the calls instead.
_call_later = reactor.callLater
_warned: set[tuple[int, str]] = set()
_cursor = 0


def _warn_once(npc, message: str) -> None:
    """Builder mistakes are logged once per NPC and message, not at every tick."""
    if (npc.id, message) not in _warned:
        _warned.add((npc.id, message))
        log.warning(f"omniira: {message}")
        health.incr("daily_life_warnings")


# ---------------------------------------------------------------- schedules


def schedule_of(npc) -> list[Slot]:
    """The NPC's schedule; bad entries are logged (once) and left out."""
    slots, errors = parse_schedule_lenient(npc.attributes.get(SCHEDULE_ATTR, default=None))
    for error in errors:
        _warn_once(npc, f"schedule of {npc.key} (#{npc.id}): {error}; that entry is ignored")
    return slots


def set_schedule(npc, text) -> list[Slot]:
    """Give `npc` a schedule ("tavern 06-22, market 10-12"); raises ScheduleError if bad."""
    slots = parse_schedule(text)
    if slots:
        npc.attributes.add(SCHEDULE_ATTR, text if isinstance(text, str) else list(text))
    else:
        npc.attributes.remove(SCHEDULE_ATTR)
    return slots


def is_autonomous(npc) -> bool:
    """False for NPCs that keep their post (`npc_autonomous` = False): they never move."""
    return npc.attributes.get(AUTONOMOUS_ATTR, default=True) is not False


# ---------------------------------------------------------------- the map


# ---------------------------------------------------------------- plans


# ---------------------------------------------------------------- one NPC


def _busy(npc) -> bool:
    """In a conversation with someone still in the room: the schedule can wait."""
    return Conversation.objects.filter(
        npc=npc, ended_at__isnull=True, speaker__db_location=npc.location
    ).exists()


def _replying(npc) -> bool:

    return service.is_answering(npc.id)


def step_towards(npc, decision: Decision, world: WalkMap) -> bool:
    """Take the first exit on the way to `decision.go_to`. True if the NPC moved."""
    goal = decision.go_to
    room_id = goal.id
    if room_id is None:  # a schedule place: the nearest room with that name or alias
        found = world.find(goal.key, exact=True)
        if found is None:
            _warn_once(
                npc,
                f"{npc.key} (#{npc.id}) has no reachable room called {goal.key!r} for its "
                f"schedule entry '{decision.slot}': give the room that name or alias, or an "
                "exit path to it",
            )
            return False
        room_id = found.id
    path = world.routes.path(room_id)
    if not path:
        _warn_once(npc, f"{npc.key} (#{npc.id}) found no way to {goal.key}")
        return False
    exit_obj = path[0]
    destination = exit_obj.destination
    exit_obj.at_traverse(npc, destination)
    if npc.location != destination:
        health.incr("npc_moves_refused")
        log.warning(f"omniira: {npc.key} could not go {exit_obj.key} ({decision.reason})")
        return False
    health.incr("npc_moves")
    return True


def tick_npc(npc, now: float | None = None, act: bool = True) -> Decision | None:
    """
    Decide for one NPC and (with `act`) carry it out: close ended plans, take one exit.
    Returns the decision, or None when the NPC is nowhere or in the middle of a reply.
    """
    if npc.location is None or (act and _replying(npc)):
        return None
    conf = get_settings()
    now = clock.game_seconds() if now is None else now
    world = WalkMap(npc, conf.PATH_MAX_ROOMS)
    plans = list(
        Plan.objects.filter(npc=npc, status=Plan.Status.OPEN)
        .select_related("to")
        .order_by("created_at", "id")
    )
    autonomous = is_autonomous(npc)
    states = ()
    if plans:
        times = plan_times(npc, plans, now)
        states = tuple(
            (
                plan_state(npc, plan, *times[str(plan.id)], world, conf)
                if autonomous
                else PlanState(plan.id, plan.action, plan.summary)
            )
            for plan in plans
        )
    decision = decide(
        NpcState(
            now=now,
            here=place_of(npc.location),
            schedule=tuple(schedule_of(npc)) if autonomous else (),
            plans=states,
            autonomous=autonomous,
            busy=autonomous and _busy(npc),
        )
    )
    if act:
        by_id = {plan.id: plan for plan in plans}
        for outcome in decision.outcomes:
            close_plan(npc, by_id[outcome.plan_id], outcome)
        if decision.go_to is not None:
            step_towards(npc, decision, world)
    return decision


# ---------------------------------------------------------------- the tick


def movers() -> list[int]:
    """Ids of NPCs with a schedule or an open plan: the only ones a tick looks at."""
    from evennia.objects.models import ObjectDB

    scheduled = ObjectDB.objects.filter(
        db_attributes__db_key=SCHEDULE_ATTR, db_location__isnull=False
    ).values_list("id", flat=True)
    planned = Plan.objects.filter(status=Plan.Status.OPEN).values_list("npc_id", flat=True)
    return sorted(set(scheduled) | set(planned))


def run_decision_tick(budget: int | None = None, now: float | None = None) -> list:
    """
    One decision tick over up to `budget` NPCs (DECISION_NPCS_PER_TICK; round robin when
    there are more). Returns [(npc, decision), ...]. A failure for one NPC is logged and
    counted; the others still get their turn.
    """
    from evennia.objects.models import ObjectDB

    global _cursor
    budget = get_settings().DECISION_NPCS_PER_TICK if budget is None else budget
    ids = movers()
    if len(ids) > budget:
        start = _cursor % len(ids)
        ids = (ids[start:] + ids[:start])[:budget]
        _cursor = start + budget
    now = clock.game_seconds() if now is None else now
    results = []
    for npc in ObjectDB.objects.filter(id__in=ids).order_by("id"):
        if not getattr(npc, "is_omniira_npc", False):
            continue
        try:
            decision = tick_npc(npc, now)
        except Exception:
            log.exception(f"omniira: the decision tick failed for {npc.key} (#{npc.id})")
            health.incr("decision_failures")
            continue
        if decision is not None:
            results.append((npc, decision))
    health.incr("decision_ticks")
    return results


# ---------------------------------------------------------------- following


def followed_by(npc_id: int) -> frozenset[int]:
    """Ids of the people `npc_id` has an open promise to travel with (cached)."""
    cached = followed_cache.get(npc_id)
    if cached is None:
        cached = frozenset(
            Plan.objects.filter(
                npc_id=npc_id, status=Plan.Status.OPEN, action="travel_with", to__isnull=False
            ).values_list("to_id", flat=True)
        )
        followed_cache[npc_id] = cached
    return cached


def notice_departure(npc, mover) -> None:
    """`mover` is on the move where `npc` can see it: follow a moment later if promised to."""
    if mover.id in followed_by(npc.id) and is_autonomous(npc):
        _call_later(get_settings().FOLLOW_DELAY_SECONDS, follow, npc.id, mover.id)


def follow(npc_id: int, leader_id: int) -> bool:
    """Go through the exit from the NPC's room into the room its leader is in now, if any."""
    from evennia.objects.models import ObjectDB

    found = {obj.id: obj for obj in ObjectDB.objects.filter(id__in=[npc_id, leader_id])}
    npc, leader = found.get(npc_id), found.get(leader_id)
    if npc is None or leader is None or npc.location is None or leader.location is None:
        return False
    if npc.location == leader.location or _replying(npc):
        return False
    for exit_obj in npc.location.exits:
        if exit_obj.destination == leader.location and exit_obj.access(npc, "traverse"):
            exit_obj.at_traverse(npc, leader.location)
            moved = npc.location == leader.location
            health.incr("npc_follows" if moved else "npc_moves_refused")
            return moved
    return False  # they went somewhere with no exit from here: the tick finds a path


def on_plan_saved(plan, created: bool) -> None:
    """Plan rows changed (Django signal): drop the follow cache, time a new plan."""
    followed_cache.pop(plan.npc_id, None)
    if created and plan.status == Plan.Status.OPEN:
        try:
            note_new_plan(plan)
        except Exception:  # the tick times it instead
            log.exception(f"omniira: could not time plan #{plan.id}")


def forget_followers(npc_id: int) -> None:
    """Drop the cached promises of one NPC (its plans changed)."""
    followed_cache.pop(npc_id, None)
