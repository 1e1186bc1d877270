"""Scopes and their tokens, conditions, expiry spans and category hints (knowledge/facts.py)."""

from datetime import datetime, timedelta

import pytest

from omniira_evennia.knowledge.facts import (
    WORLD_TOKEN,
    ConditionError,
    ExpiryError,
    hinted_categories,
    holds,
    name_token,
    parse_condition,
    parse_expiry,
    scope_token,
    tag_name,
)


def test_scope_tokens_name_who_knows():
    assert scope_token("world") == WORLD_TOKEN == "w0"
    assert scope_token("npc", 12) == "n12" and scope_token("room", 3) == "r3"
    zone = scope_token("zone", name="The  Harbour")
    assert zone == name_token("z", "the harbour") and zone[1:].isdigit()
    assert scope_token("tag", name="guild") != scope_token("zone", name="guild")
    assert tag_name("guild", None) == "guild" and tag_name("guild", "faction") == "guild:faction"
    with pytest.raises(ValueError):
        scope_token("npc")
    with pytest.raises(ValueError):
        scope_token("planet", name="x")


def test_a_condition_reads_relationships_and_locks():
    clauses = parse_condition("trust >= 0.8 and lock:perm(Builder)")
    assert [c.dimension or c.lock for c in clauses] == ["trust", "perm(Builder)"]
    passes = lambda lock: True  # noqa: E731
    assert holds(clauses, {"trust": 0.9}, passes) == (True, "condition holds")
    told, why = holds(clauses, {"trust": 0.5}, passes)
    assert not told and why == "trust 0.50 is not >= 0.8"
    assert holds(clauses, {"trust": 0.9}, lambda lock: False) == (False, "lock perm(Builder) fails")
    # No relationship yet: the defaults of a new one (trust 0.5, fear 0).
    assert holds(parse_condition("fear < 0.1"), {}, passes)[0]
    assert holds([], {"trust": 1.0}, passes) == (False, "no condition: never told")


@pytest.mark.parametrize("text", ["trust > high", "charm >= 0.5", "lock:", "lock:rm -rf"])
def test_a_bad_condition_says_what_to_write(text):
    with pytest.raises(ConditionError):
        parse_condition(text)


def test_expiry_is_a_date_or_a_span():
    now = datetime(2027, 1, 1, 12, 0)
    assert parse_expiry("7d").from_now(now) == now + timedelta(days=7)
    assert parse_expiry("12h").from_now(now) == now + timedelta(hours=12)
    assert parse_expiry("in 30 minutes").from_now(now) == now + timedelta(minutes=30)
    assert parse_expiry("3 game days", 7200).from_now(now) == now + timedelta(hours=6)
    assert parse_expiry("2gd", 100).span == timedelta(seconds=200)
    assert parse_expiry("2027-02-01").at == datetime(2027, 2, 1)
    assert parse_expiry("") is None and parse_expiry(None) is None and parse_expiry("never") is None
    with pytest.raises(ExpiryError):
        parse_expiry("next tuesday-ish")


def test_a_line_asks_for_categories_by_its_words():
    assert hinted_categories("What's the news around town?") == {"event"}
    assert "trade" in hinted_categories("What does the cider cost?")
    assert hinted_categories("Hello there.") == set()
