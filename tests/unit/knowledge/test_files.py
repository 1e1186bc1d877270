"""The knowledge file format (knowledge/files.py): entries, defaults, one problem per entry."""

import json
from pathlib import Path

import pytest

from omniira_evennia.knowledge.files import FileError, format_of, parse

DEMO = Path(__file__).resolve().parents[3] / "game_template" / "world" / "knowledge.json"


def test_the_demo_file_is_valid():
    entries, problems = parse(DEMO.read_text())
    assert problems == [] and len(entries) >= 20
    guards = {e.key: e.guard for e in entries if e.guard}
    assert sorted(guards.values()).count("secret") == 4 and "wont_discuss" in guards.values()
    assert {e.scope for e in entries} >= {"world", "npc:Maren", "room:tavern"}


def test_defaults_and_normalised_fields():
    text = json.dumps(
        {
            "defaults": {"scope": "npc:Maren", "importance": 7},
            "knowledge": [
                {"key": "Cider Price", "text": "Cider is two copper.", "topics": "cider, apple"},
                {"key": "fair", "text": "A fair.", "scope": "world", "expires": "3 game days"},
            ],
        }
    )
    (cider, fair), problems = parse(text)
    assert problems == []
    assert (cider.key, cider.scope, cider.importance, cider.topics) == (
        "cider_price",
        "npc:Maren",
        7,
        ["cider", "apple"],
    )
    assert fair.scope == "world" and fair.expires == "3 game days" and fair.guard == ""


def test_each_bad_entry_costs_only_itself():
    text = json.dumps(
        [
            {"key": "a", "text": "Fine."},
            {"key": "b", "text": "Bad category.", "category": "gossip"},
            {"key": "c", "text": "Bad condition.", "secret": True, "condition": "trust is high"},
            {"key": "d", "text": "Bad expiry.", "expires": "soonish"},
            {"key": "e", "text": "Both.", "secret": True, "wont_discuss": True},
            {"key": "a", "text": "Twice."},
            {"key": "f", "text": "Odd field.", "colour": "red"},
            "not an entry",
        ]
    )
    entries, problems = parse(text)
    assert [e.key for e in entries] == ["a"]
    assert len(problems) == 7
    assert problems[0].startswith("entry 2 (b): category: one of place, people")
    assert "used twice" in problems[4] and problems[6] == "entry 8: not an object"


def test_unreadable_files():
    with pytest.raises(FileError, match="not valid JSON"):
        parse("{nope")
    with pytest.raises(FileError, match="a list of entries"):
        parse('{"facts": []}')
    entries, _ = parse("- key: a\n  text: From YAML.\n", "yaml")
    assert entries[0].text == "From YAML."
    assert format_of("lore.YML") == "yaml" and format_of("lore.json") == "json"
