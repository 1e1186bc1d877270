"""A promise as the decision tick sees it: when first seen, whom it names, closing it."""

from __future__ import annotations

import logging
from functools import partial

from django.db import transaction

from omniira_evennia import signals
from omniira_evennia.life.decisions import DONE, PlanOutcome, PlanState
from omniira_evennia.life.schedule import parse_time_hint
from omniira_evennia.life.walk_map import WalkMap, place_of, room_anywhere
from omniira_evennia.memory import service as memory_service
from omniira_evennia.memory.embeddings import embed_or_none, embedder_name, to_blob
from omniira_evennia.memory.service import Note, is_player, write_note
from omniira_evennia.models import Memory, Plan, Source
from omniira_evennia.runtime import clock, health
from omniira_evennia.runtime.runner import defer_background

log = logging.getLogger("omniira_evennia.life.service")  # as before the split


# NPC id -> ids of the people it promised to travel with (dropped when its plans change); the
# service's following reads and fills it.
followed_cache: dict[int, frozenset[int]] = {}
PLAN_TIMES_ATTR = "omniira_plan_times"  # {plan id: [game time first seen, deadline or None]}


def note_new_plan(plan) -> None:
    """A plan was just made: keep the game time it was made at and its deadline on the NPC."""
    npc = plan.npc
    now = clock.game_seconds()
    stored = dict(npc.attributes.get(PLAN_TIMES_ATTR, default=None) or {})
    stored[str(plan.id)] = [now, parse_time_hint(plan.by, now)]
    npc.attributes.add(PLAN_TIMES_ATTR, stored)


def plan_times(npc, plans, now: float) -> dict[str, list]:
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
        followed_cache.pop(npc.id, None)
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
    followed_cache.pop(npc.id, None)  # update() sends no signal
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
