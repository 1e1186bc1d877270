"""
The decision tick's logic: where an NPC heads now, and which commitments are kept or dropped.

`decide(NpcState) -> Decision` is a pure function of the game time, the room the NPC is in,
its schedule and its open plans (already resolved by the adapter in `movement.py`: which room
a target names, where the person to travel with is, and what cannot be reached). Rules:

1. Plans come first, oldest first; the first one with something to do now wins, later ones
   wait (and are dropped if their time passes meanwhile).
   - `travel_to`: set out `lead` before the time named (at once if none), wait there until
     that time, then it is kept (done). Not there by the time plus the grace: dropped.
   - `travel_with`: go where the person is and stay with them; kept when both reach the
     destination (if one was named) or when the time together is up. The person gone, or
     the destination missed in time: dropped.
   - Something that cannot exist or be reached (no such place or person) is dropped at once.
2. A non-autonomous NPC (a bartender at her post) never moves: its plans are dropped, since
   it will not keep them, and its schedule is ignored.
3. Otherwise the schedule: head for the entry in force, unless already there or busy
   talking with someone present.

`explore` is a breadth-first search over exits, bounded by a room count; `Routes.path` gives the
exits to take. No Django or Evennia import here.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field, replace
from typing import Callable, Hashable, Iterable

from omniira_evennia.life.schedule import SECONDS_PER_DAY, Place, Slot, slot_at

DONE = "done"
DROPPED = "dropped"


@dataclass(frozen=True)
class PlanState:
    """An open plan as the decision sees it; times are game seconds since day 1, 00:00."""

    id: int
    action: str  # "travel_to" | "travel_with"
    summary: str = ""
    by: str = ""  # the time hint as said, for messages
    destination: Place | None = None  # the room the target names (None: none named)
    target_problem: str | None = None  # why the target cannot be had ("no such place")
    leader: str = ""  # travel_with: who
    leader_room: Place | None = None  # where they are now; None: gone from the world
    leader_problem: str | None = None  # "no such person", "no way to reach them"
    start_at: float | None = None  # when to set out; None: at once
    deadline: float | None = None  # when to be there; None: no time was named
    expires_at: float | None = None  # after this the plan lapses


@dataclass(frozen=True)
class NpcState:
    now: float
    here: Place | None
    schedule: tuple[Slot, ...] = ()
    plans: tuple[PlanState, ...] = ()
    autonomous: bool = True
    busy: bool = False  # in a conversation with someone present


@dataclass(frozen=True)
class PlanOutcome:
    plan_id: int
    status: str  # DONE | DROPPED
    reason: str  # a clause in the NPC's voice: "there is no place called the docks"


@dataclass(frozen=True)
class Decision:
    go_to: Place | None = None  # where to head (one exit per tick); None: stay
    reason: str = ""
    plan_id: int | None = None  # the plan being carried out, if any
    slot: Slot | None = None  # the schedule entry being followed, if any
    outcomes: tuple[PlanOutcome, ...] = ()

    @property
    def moving(self) -> bool:
        return self.go_to is not None


def clock_text(seconds: float) -> str:
    minute = int(seconds % SECONDS_PER_DAY // 60)
    return f"{minute // 60:02d}:{minute % 60:02d}"


def _time_phrase(plan: PlanState) -> str:
    return plan.by or (clock_text(plan.deadline) if plan.deadline is not None else "the time")


def _judge_travel_to(plan: PlanState, state: NpcState) -> PlanOutcome | Decision | None:
    if plan.target_problem:
        return PlanOutcome(plan.id, DROPPED, plan.target_problem)
    dest = plan.destination
    if dest is None:
        return PlanOutcome(plan.id, DROPPED, "I never settled where I was going")
    here = state.here
    if here is not None and here.same_as(dest):
        if plan.deadline is None or state.now >= plan.deadline:
            return PlanOutcome(plan.id, DONE, f"I went to {dest.key}")
        return Decision(None, f"waiting at {dest.key} until {_time_phrase(plan)}", plan.id)
    if plan.expires_at is not None and state.now > plan.expires_at:
        return PlanOutcome(
            plan.id, DROPPED, f"it was long past {_time_phrase(plan)} and I never got to {dest.key}"
        )
    if plan.start_at is not None and state.now < plan.start_at:
        return None  # not yet time to set out
    return Decision(dest, f"on my way to {dest.key}, as I promised", plan.id)


def _judge_travel_with(plan: PlanState, state: NpcState) -> PlanOutcome | Decision | None:
    who = plan.leader or "them"
    if plan.leader_problem:
        return PlanOutcome(plan.id, DROPPED, plan.leader_problem)
    if plan.target_problem:
        return PlanOutcome(plan.id, DROPPED, plan.target_problem)
    if plan.leader_room is None:
        return PlanOutcome(plan.id, DROPPED, f"{who} was gone before we could travel together")
    here, dest, theirs = state.here, plan.destination, plan.leader_room
    together = here is not None and here.same_as(theirs)
    if dest is not None and together and dest.same_as(theirs):
        return PlanOutcome(plan.id, DONE, f"{who} and I reached {dest.key} together")
    if plan.expires_at is not None and state.now > plan.expires_at:
        if dest is not None:
            return PlanOutcome(
                plan.id, DROPPED, f"{who} and I never reached {dest.key} together in time"
            )
        return PlanOutcome(plan.id, DONE, f"I kept {who} company for a good while")
    if plan.start_at is not None and state.now < plan.start_at:
        return None
    if not together:
        return Decision(theirs, f"following {who}", plan.id)
    return Decision(None, f"keeping {who} company", plan.id)


_JUDGES = {"travel_to": _judge_travel_to, "travel_with": _judge_travel_with}


def decide(state: NpcState) -> Decision:
    """Where the NPC heads now and which plans end; see the module docstring for the rules."""
    outcomes: list[PlanOutcome] = []
    active: Decision | None = None
    for plan in state.plans:
        if not state.autonomous:
            outcomes.append(PlanOutcome(plan.id, DROPPED, "I do not leave my post"))
            continue
        judge = _JUDGES.get(plan.action)
        if judge is None:
            outcomes.append(PlanOutcome(plan.id, DROPPED, f"I never knew how to {plan.action}"))
            continue
        verdict = judge(plan, state)
        if isinstance(verdict, PlanOutcome):
            outcomes.append(verdict)
        elif isinstance(verdict, Decision) and active is None:
            active = verdict
    if active is not None:
        return replace(active, outcomes=tuple(outcomes))
    if not state.autonomous:
        return Decision(None, "staying at my post", outcomes=tuple(outcomes))
    minute = int(state.now % SECONDS_PER_DAY // 60)
    slot = slot_at(state.schedule, minute)
    if slot is None:
        return Decision(None, "nothing in my day calls me elsewhere", outcomes=tuple(outcomes))
    if state.here is not None and state.here.score(slot.place) == 2:  # exactly: see match_place
        return Decision(None, f"where my day puts me ({slot})", slot=slot, outcomes=tuple(outcomes))
    if state.busy:
        return Decision(None, f"talking; {slot} can wait", slot=slot, outcomes=tuple(outcomes))
    return Decision(Place(slot.place), f"my day: {slot}", slot=slot, outcomes=tuple(outcomes))


# ---------------------------------------------------------------- paths


@dataclass
class Routes:
    """A breadth-first search tree from `start`: nearest rooms first."""

    start: Hashable
    parents: dict = field(default_factory=dict)  # node -> (previous node, edge); start -> None
    order: list = field(default_factory=list)  # nodes, nearest first
    truncated: bool = False  # the search stopped at its room limit

    def reachable(self, node) -> bool:
        return node in self.parents

    def path(self, goal) -> list | None:
        """The edges (exits) from start to `goal`, or None if it was not reached."""
        if goal not in self.parents:
            return None
        edges = []
        node = goal
        while self.parents[node] is not None:
            node, edge = self.parents[node]
            edges.append(edge)
        return edges[::-1]


def explore(
    start: Hashable, neighbours: Callable[[Hashable], Iterable[tuple]], limit: int = 200
) -> Routes:
    """
    Breadth-first over `neighbours(node) -> [(edge, next node), ...]`, visiting at most `limit`
    nodes (so a huge world costs a bounded amount per tick).
    """
    routes = Routes(start, {start: None}, [start])
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for edge, nxt in neighbours(node):
            if nxt in routes.parents:
                continue
            if len(routes.order) >= limit:
                routes.truncated = True
                return routes
            routes.parents[nxt] = (node, edge)
            routes.order.append(nxt)
            queue.append(nxt)
    return routes
