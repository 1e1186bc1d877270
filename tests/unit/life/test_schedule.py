"""The pure part of daily life: schedules, time hints, place names, decisions, paths."""

import pytest

from omniira_evennia.life.decisions import (
    DONE,
    DROPPED,
    NpcState,
    PlanOutcome,
    PlanState,
    decide,
    explore,
)
from omniira_evennia.life.schedule import (
    Place,
    ScheduleError,
    Slot,
    match_place,
    parse_schedule,
    parse_schedule_lenient,
    parse_time_hint,
    slot_at,
)

H = 3600  # game seconds per hour
TAVERN = Place("The Lantern & Lane", ("tavern",), 1)
MARKET = Place("Market Square", ("market",), 2)
STREET = Place("Market Street", (), 3)


# ---------------------------------------------------------------- schedules


def test_shorter_entries_punch_holes_in_longer_ones_whatever_the_order():
    for text in ("tavern 06-22, market 10-12", "market 10-12; tavern 06-22"):
        slots = parse_schedule(text)
        assert slot_at(slots, 8 * 60).place == "tavern"
        assert slot_at(slots, 10 * 60).place == "market"
        assert slot_at(slots, 11 * 60 + 59).place == "market"
        assert slot_at(slots, 12 * 60).place == "tavern"  # the end is exclusive
        assert slot_at(slots, 22 * 60) is None and slot_at(slots, 3 * 60) is None


def test_minutes_midnight_wrap_multiword_places_and_lists():
    slots = parse_schedule("old forge 06:30-19:00\nwatchtower 22-06")
    assert slots == [Slot("old forge", 390, 1140, 0), Slot("watchtower", 1320, 360, 1)]
    assert slot_at(slots, 5 * 60 + 59).place == "watchtower"
    assert slot_at(slots, 6 * 60 + 29) is None  # between the watch and the forge
    assert slot_at(slots, 23 * 60).place == "watchtower"
    assert slot_at(slots, 12 * 60).place == "old forge"
    assert str(slots[0]) == "old forge 06:30-19:00"
    assert parse_schedule(["tavern: 00-24", "market 9-13"])[1] == Slot("market", 540, 780, 1)
    assert parse_schedule("") == [] and parse_schedule(None) == []


def test_bad_entries_are_all_named_with_a_fix():
    text = "tavern 06-22, market 10-25, stables, inn 10-10, yard 24-02, pier 10:75-11"
    with pytest.raises(ScheduleError) as raised:
        parse_schedule(text)
    errors = raised.value.errors
    assert len(errors) == 5
    assert (
        errors[0]
        == "entry 2 'market 10-25': 25 is not a time of day (00:00-24:00; 24 only as an end)"
    )
    assert errors[1] == "entry 3 'stables': expected '<place> HH-HH', e.g. 'market 10-12'"
    assert "starts and ends at the same time" in errors[2]
    assert errors[3].startswith("entry 5 'yard 24-02'") and "minute 75" in errors[4]
    slots, lenient_errors = parse_schedule_lenient(text)
    assert [s.place for s in slots] == ["tavern"] and lenient_errors == errors
    assert parse_schedule_lenient(42)[1] == [
        "a schedule is text like 'tavern 06-22, market 10-12', not 42"
    ]


# ---------------------------------------------------------------- time hints


@pytest.mark.parametrize(
    "hint, expected",
    [
        ("noon", 12 * H),
        ("by noon", 12 * H),
        ("at dusk", 19 * H),
        ("this afternoon", 15 * H),
        ("3pm", 15 * H),
        ("at 3 p.m.", 15 * H),
        ("10:30", 10.5 * H),
        ("by 7", 24 * H + 7 * H),  # 07:00 has passed today: tomorrow's
        ("in two hours", 10 * H),
        ("in 30 minutes", 8.5 * H),
        ("in half an hour", 8.5 * H),
        ("tomorrow morning", 24 * H + 9 * H),
        ("tomorrow", 24 * H + 9 * H),
        ("midnight", 24 * H),
        ("tonight", 21 * H),
        ("", None),
        ("soon", None),
        ("right away", None),
        ("when the moon is full", None),
    ],
)
def test_time_hints_name_the_next_such_time(hint, expected):
    assert parse_time_hint(hint, now=8 * H) == expected


def test_time_hints_count_from_the_current_day():
    day3_morning = 2 * 24 * H + 8 * H
    assert parse_time_hint("noon", day3_morning) == 2 * 24 * H + 12 * H


# ---------------------------------------------------------------- places


def test_place_names_prefer_exact_names_then_the_nearest_partial_match():
    places = [TAVERN, MARKET, STREET]
    assert match_place("the tavern", places) is TAVERN
    assert match_place("The Lantern & Lane", places) is TAVERN
    assert match_place("lantern", places) is TAVERN
    assert match_place("market", places) is MARKET  # an alias, exactly
    assert match_place("the market street", places) is STREET
    assert match_place("street", [STREET, MARKET]) is STREET
    assert match_place("the docks", places) is None
    assert match_place("the", places) is None
    assert match_place("lane", places) is TAVERN  # "The Lantern & Lane" holds the word
    assert match_place("lane", places, exact=True) is None  # schedules want a room's name


# ---------------------------------------------------------------- decisions


def at(hour, here, **kwargs):
    return NpcState(now=hour * H, here=here, **kwargs)


SCHEDULE = tuple(parse_schedule("tavern 00-24, market 09-13"))


def test_schedule_sends_the_npc_where_the_hour_says_and_keeps_it_there():
    assert decide(at(8, TAVERN, schedule=SCHEDULE)).go_to is None
    going = decide(at(9, TAVERN, schedule=SCHEDULE))
    assert going.go_to.key == "market" and going.slot.place == "market"
    assert decide(at(10, MARKET, schedule=SCHEDULE)).go_to is None
    assert decide(at(13, MARKET, schedule=SCHEDULE)).go_to.key == "tavern"
    assert decide(at(24 + 9, TAVERN, schedule=SCHEDULE)).go_to.key == "market"  # day 2
    assert decide(at(9, TAVERN)).go_to is None  # no schedule, no moves
    # A schedule names rooms exactly: "lane" is not "The Lantern & Lane".
    lane = tuple(parse_schedule("lane 00-24"))
    assert decide(at(9, TAVERN, schedule=lane)).go_to.key == "lane"


def test_talking_and_keeping_a_post_hold_the_schedule():
    assert decide(at(9, TAVERN, schedule=SCHEDULE, busy=True)).go_to is None
    assert decide(at(9, TAVERN, schedule=SCHEDULE, autonomous=False)).go_to is None


def travel_to(plan_id=1, dest=MARKET, deadline=None, **kwargs):
    defaults = dict(summary="I will go to the market.", destination=dest, deadline=deadline)
    if deadline is not None:
        defaults.update(start_at=deadline - H, expires_at=deadline + H)
    else:
        defaults.update(expires_at=24 * H)
    defaults.update(kwargs)
    return PlanState(plan_id, "travel_to", **defaults)


def test_travel_to_sets_out_in_time_waits_and_is_kept():
    plan = travel_to(deadline=12 * H, by="noon")
    # Before setting out the schedule still rules (here: stay in the tavern).
    assert decide(at(10, TAVERN, schedule=SCHEDULE[:1], plans=(plan,))).go_to is None
    going = decide(at(11, TAVERN, schedule=SCHEDULE[:1], plans=(plan,)))
    assert going.go_to is MARKET and going.plan_id == 1
    waiting = decide(at(11.5, MARKET, schedule=SCHEDULE[:1], plans=(plan,)))
    assert waiting.go_to is None and waiting.plan_id == 1 and not waiting.outcomes
    kept = decide(at(12, MARKET, schedule=SCHEDULE[:1], plans=(plan,)))
    assert kept.outcomes == (PlanOutcome(1, DONE, "I went to Market Square"),)
    assert kept.go_to.key == "tavern"  # the plan is over: back to the day's schedule


def test_travel_to_without_a_time_goes_at_once_and_is_kept_on_arrival():
    assert decide(at(8, TAVERN, plans=(travel_to(),))).go_to is MARKET
    assert decide(at(8, MARKET, plans=(travel_to(),))).outcomes[0].status == DONE


def test_travel_to_that_cannot_be_kept_is_dropped_with_a_reason():
    late = decide(at(13.5, TAVERN, plans=(travel_to(deadline=12 * H, by="noon"),)))
    assert late.outcomes == (
        PlanOutcome(1, DROPPED, "it was long past noon and I never got to Market Square"),
    )
    missing = travel_to(dest=None, target_problem='there is no place called "the docks"')
    assert decide(at(8, TAVERN, plans=(missing,))).outcomes[0].reason == (
        'there is no place called "the docks"'
    )
    post = decide(at(8, TAVERN, plans=(travel_to(),), autonomous=False))
    assert post.go_to is None and post.outcomes[0] == PlanOutcome(
        1, DROPPED, "I do not leave my post"
    )


def test_plans_outrank_the_schedule_and_wait_their_turn():
    first = travel_to(1, dest=STREET)
    second = travel_to(2, dest=TAVERN)
    decision = decide(at(10, MARKET, schedule=SCHEDULE, plans=(first, second)))
    assert decision.go_to is STREET and decision.plan_id == 1 and not decision.outcomes


def travel_with(leader_room, dest=None, **kwargs):
    defaults = dict(leader="Ada", leader_room=leader_room, destination=dest, expires_at=10 * H)
    defaults.update(kwargs)
    return PlanState(7, "travel_with", summary="I will walk with Ada.", **defaults)


def test_travel_with_follows_stays_and_ends():
    assert decide(at(8, TAVERN, plans=(travel_with(MARKET),))).go_to is MARKET
    company = decide(at(8, MARKET, schedule=SCHEDULE, plans=(travel_with(MARKET),)))
    assert company.go_to is None and company.reason == "keeping Ada company"
    arrived = decide(at(8, MARKET, plans=(travel_with(MARKET, dest=MARKET),)))
    assert arrived.outcomes == (PlanOutcome(7, DONE, "Ada and I reached Market Square together"),)
    over = decide(at(11, MARKET, plans=(travel_with(MARKET),)))
    assert over.outcomes[0].status == DONE
    missed = decide(at(11, TAVERN, plans=(travel_with(TAVERN, dest=MARKET),)))
    assert missed.outcomes[0].status == DROPPED
    gone = decide(at(8, TAVERN, plans=(travel_with(None),)))
    assert gone.outcomes == (
        PlanOutcome(7, DROPPED, "Ada was gone before we could travel together"),
    )
    nobody = decide(at(8, TAVERN, plans=(travel_with(None, leader_problem="I know nobody"),)))
    assert nobody.outcomes[0].reason == "I know nobody"


# ---------------------------------------------------------------- paths

GRAPH = {
    "tavern": [("out", "lane")],
    "lane": [("in", "tavern"), ("east", "market"), ("west", "well")],
    "market": [("west", "lane")],
    "well": [("east", "lane")],
    "island": [("swim", "tavern")],  # one-way: nothing leads to the island
}


def neighbours(node):
    return GRAPH[node]


def test_breadth_first_paths_over_exits():
    routes = explore("tavern", neighbours)
    assert routes.path("market") == ["out", "east"]
    assert routes.path("tavern") == []
    assert routes.path("island") is None and not routes.reachable("island")
    assert routes.order[:2] == ["tavern", "lane"]  # nearest first
    small = explore("tavern", neighbours, limit=2)
    assert small.truncated and small.path("market") is None
