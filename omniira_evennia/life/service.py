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
from functools import partial

from django.db import transaction
from django.db.models import Q
from twisted.internet import reactor

from omniira_evennia import signals
from omniira_evennia.conf import get_settings
from omniira_evennia.conversation import service
from omniira_evennia.life.decisions import (
    DONE,
    Decision,
    NpcState,
    PlanOutcome,
    PlanState,
    Routes,
    decide,
    explore,
)
from omniira_evennia.life.schedule import (
    Place,
    Slot,
    match_place,
    parse_schedule,
    parse_schedule_lenient,
    parse_time_hint,
    place_words,
)
from omniira_evennia.memory import service as memory_service
from omniira_evennia.memory.embeddings import embed_or_none, embedder_name, to_blob
from omniira_evennia.memory.service import Note, is_player, write_note
from omniira_evennia.models import Conversation, Memory, Plan, Source
from omniira_evennia.runtime import clock, health
from omniira_evennia.runtime.runner import defer_background

log = logging.getLogger(__name__)

SCHEDULE_ATTR = "npc_schedule"
AUTONOMOUS_ATTR = "npc_autonomous"
PLAN_TIMES_ATTR = "omniira_plan_times"  # {plan id: [game time first seen, deadline or None]}

# Looked up at call time, so tests (which run no reactor) can collect the calls instead.
_call_later = reactor.callLater
_warned: set[tuple[int, str]] = set()
# NPC id -> ids of the people it promised to travel with (dropped when its plans change).
_followed: dict[int, frozenset[int]] = {}
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


def place_of(room) -> Place:
    return Place(room.key, tuple(room.aliases.all()), room.id)


class WalkMap:
    """The rooms an NPC can walk to from where it stands; searched on first use only."""

    def __init__(self, npc, limit: int):
        self.npc, self.limit = npc, limit
        self.rooms = {npc.location.id: npc.location}
        self._routes: Routes | None = None
        self._places: list[Place] | None = None

    @property
    def routes(self) -> Routes:
        if self._routes is None:
            self._routes = explore(self.npc.location.id, self._neighbours, self.limit)
        return self._routes

    def _neighbours(self, room_id):
        for exit_obj in self.rooms[room_id].exits:
            dest = exit_obj.destination
            if dest is None or not exit_obj.access(self.npc, "traverse"):
                continue
            self.rooms.setdefault(dest.id, dest)
            yield exit_obj, dest.id

    def find(self, name: str, exact: bool = False) -> Place | None:
        """The nearest reachable room `name` means (the NPC's own room first)."""
        if self._places is None:
            self._places = [place_of(self.rooms[i]) for i in self.routes.order]
        return match_place(name, self._places, exact=exact)


def room_anywhere(name: str):
    """A room anywhere in the world that `name` means (reachable or not), or None."""
    from evennia.objects.models import ObjectDB
    from evennia.objects.objects import DefaultRoom

    words = place_words(name)
    if not words:
        return None
    query = Q()
    for word in words:
        query |= Q(db_key__icontains=word) | Q(
            db_tags__db_key__icontains=word, db_tags__db_tagtype="alias"
        )
    rooms = [
        obj
        for obj in ObjectDB.objects.filter(query, db_location__isnull=True).distinct()[:200]
        if obj.is_typeclass(DefaultRoom, exact=False)
    ]
    found = match_place(name, [place_of(room) for room in rooms])
    return next((room for room in rooms if found and room.id == found.id), None)


# ---------------------------------------------------------------- plans


def note_new_plan(plan) -> None:
    """A plan was just made: keep the game time it was made at and its deadline on the NPC."""
    npc = plan.npc
    now = clock.game_seconds()
    stored = dict(npc.attributes.get(PLAN_TIMES_ATTR, default=None) or {})
    stored[str(plan.id)] = [now, parse_time_hint(plan.by, now)]
    npc.attributes.add(PLAN_TIMES_ATTR, stored)


def _plan_times(npc, plans, now: float) -> dict[str, list]:
    """
    When each open plan was made and its deadline, kept on the NPC across restarts (a plan
    written without `note_new_plan`, e.g. by a bulk import, counts from when a tick saw it).
    """
    stored = dict(npc.attributes.get(PLAN_TIMES_ATTR, default=None) or {})
    open_ids = {str(plan.id) for plan in plans}
    changed = False
    for plan in plans:
        if str(plan.id) not in stored:
            stored[str(plan.id)] = [now, parse_time_hint(plan.by, now)]
            changed = True
    for key in [key for key in stored if key not in open_ids]:
        del stored[key]
        changed = True
    if changed:
        npc.attributes.add(PLAN_TIMES_ATTR, stored)
    return stored


def find_person(npc, name: str):
    """Whom `name` means: someone in the NPC's room first, then any character by that name."""
    from evennia.objects.models import ObjectDB
    from evennia.objects.objects import DefaultCharacter

    wanted = " ".join(str(name).lower().split())
    if not wanted:
        return None
    location = npc.location
    for obj in location.contents if location else ():
        if obj is npc or obj.destination is not None:
            continue
        names = [obj.key.lower(), *(a.lower() for a in obj.aliases.all())]
        if wanted in names and obj.is_typeclass(DefaultCharacter, exact=False):
            return obj
    for obj in ObjectDB.objects.filter(db_key__iexact=wanted).exclude(id=npc.id)[:5]:
        if obj.is_typeclass(DefaultCharacter, exact=False):
            return obj
    return None


def _leader_of(npc, plan):
    if plan.to_id:
        return plan.to
    leader = find_person(npc, plan.to_name)
    if leader is not None and plan.to_kind == "npc" and not getattr(leader, "is_omniira_npc", 0):
        # A promise to go with an NPC is never taken for one to go with another player: the
        # tag came from someone else's turn (issue #26, point 3).
        leader = None
    if leader is not None:  # remember whom the name meant, for following as they leave
        Plan.objects.filter(id=plan.id).update(to=leader)
        plan.to = leader
        _followed.pop(npc.id, None)
    return leader


def _why_not(target: str) -> str:
    room = room_anywhere(target)
    if room is not None:
        return f"I found no way to get to {room.key}"
    return f'there is no place called "{target}"'


def plan_state(npc, plan, first_seen: float, deadline, world: WalkMap, conf) -> PlanState:
    """Resolve a Plan row to rooms, people and game times for `decide`."""
    start_at = deadline - conf.PLAN_LEAD_MINUTES * 60 if deadline is not None else None
    if plan.action == "travel_with":
        expires_at = (first_seen if deadline is None else deadline) + conf.FOLLOW_HOURS * 3600
    elif deadline is not None:
        expires_at = deadline + conf.PLAN_GRACE_MINUTES * 60
    else:
        expires_at = first_seen + conf.PLAN_EXPIRY_HOURS * 3600
    target = plan.target
    if not target and plan.action == "travel_to" and not plan.to_id:
        target = plan.to_name  # small models put the place in "to"
    destination = target_problem = None
    if target:
        destination = world.find(target)
        if destination is None:
            target_problem = _why_not(target)
    leader_name, leader_room, leader_problem = "", None, None
    if plan.action == "travel_with":
        leader = _leader_of(npc, plan)
        if leader is None:
            leader_problem = (
                f'I know nobody called "{plan.to_name}"'
                if plan.to_name
                else "I never said whom I would go with"
            )
        else:
            leader_name = leader.key
            room = leader.location
            if room is not None:
                if world.routes.reachable(room.id):
                    leader_room = place_of(room)
                else:
                    leader_problem = f"I found no way to reach {leader.key}"
    return PlanState(
        id=plan.id,
        action=plan.action,
        summary=plan.summary,
        by=plan.by,
        destination=destination,
        target_problem=target_problem,
        leader=leader_name,
        leader_room=leader_room,
        leader_problem=leader_problem,
        start_at=start_at,
        deadline=deadline,
        expires_at=expires_at,
    )


def close_plan(npc, plan, outcome: PlanOutcome) -> bool:
    """Mark a plan done or dropped, once, and give the NPC a memory of how it went."""
    if not Plan.objects.filter(id=plan.id, status=Plan.Status.OPEN).update(status=outcome.status):
        return False  # closed meanwhile by someone else
    _followed.pop(npc.id, None)  # update() sends no signal
    kept = outcome.status == DONE
    reason = outcome.reason
    if kept:
        value = f'I kept my promise ({reason}): "{plan.summary}"'
    else:
        value = (
            f'{reason[:1].upper()}{reason[1:]}, so I could not keep my promise: "{plan.summary}"'
        )
    # About whom the promise was made to (its origin: the speaker of the turn it came from),
    # as that player's words: capped, marked suspect with the plan, erased with them.
    made_to = plan.origin if plan.origin_id else None
    from_player = made_to is not None and is_player(made_to)
    memory = write_note(
        npc,
        Note(
            made_to if made_to is not None else npc,
            value,
            key=f"plan_{plan.id}_{outcome.status}",
            importance=5 if kept else 6,
            source=Source.SELF_COMMITTED,
            kind="commitment",
            game_day=clock.current_game_day(),
            suspect=plan.suspect,
            from_player=from_player,
            speaker=made_to,
            origin=made_to if from_player else None,
        ),
    )
    if memory is not None:
        _embed_later(memory)
    health.incr("plans_kept" if kept else "plans_dropped")
    transaction.on_commit(
        partial(signals.plan_closed.send, sender=Plan, npc=npc, plan=plan, kept=kept, reason=reason)
    )
    log.info(
        f"omniira: {npc.key} {'kept' if kept else 'dropped'} plan #{plan.id} "
        f"({plan.action} {plan.target or plan.to_name}): {reason}"
    )
    return True


def _embed_later(memory) -> None:
    """Embed the outcome off the reactor; until then it is found through the recency lane."""

    memory_id, npc_id, value = memory.id, memory.npc_id, memory.value

    def _store(vectors):
        if vectors and vectors[0] is not None:
            Memory.objects.filter(id=memory_id, value=value).update(
                embedding=to_blob(vectors[0]), embedder=embedder_name()
            )
            memory_service.invalidate(npc_id)

    defer_background(embed_or_none, [value]).addCallback(_store).addErrback(
        lambda failure: log.error(f"omniira: embedding a plan outcome failed: {failure}")
    )


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
        times = _plan_times(npc, plans, now)
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
    cached = _followed.get(npc_id)
    if cached is None:
        cached = frozenset(
            Plan.objects.filter(
                npc_id=npc_id, status=Plan.Status.OPEN, action="travel_with", to__isnull=False
            ).values_list("to_id", flat=True)
        )
        _followed[npc_id] = cached
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
    _followed.pop(plan.npc_id, None)
    if created and plan.status == Plan.Status.OPEN:
        try:
            note_new_plan(plan)
        except Exception:  # the tick times it instead
            log.exception(f"omniira: could not time plan #{plan.id}")


def forget_followers(npc_id: int) -> None:
    """Drop the cached promises of one NPC (its plans changed)."""
    _followed.pop(npc_id, None)
