"""
The long-run benchmark (bench/long_run.py, issue #29): a 3-day, 3-NPC run with the
deterministic LLM through the real turn path, asserting on the report's structure and on what
the run must find (changes told, planted facts kept and brought back); and its scoring rules
on their own, where a wrong rule would make the 90-day numbers lie.
"""

import random

import pytest

from bench import long_run as lr
from omniira_evennia.testing.testbed.deterministic_llm import DeterministicLLM, HashingEmbedder


def _run(**kwargs):
    cfg = lr.LongRunConfig(
        **{"days": 3, "npcs": 3, "players": 2, "seed": 1, "return_rate": 1.0, **kwargs}
    )
    with DeterministicLLM(seed=1) as server:
        tier = {"base_url": server.base_url, "model": "deterministic"}
        return lr.run_long(
            cfg, {"voice": tier, "reasoning": tier, "ambient": tier}, HashingEmbedder()
        )


@pytest.mark.django_db
def test_a_short_run_reports_every_measure_and_finds_the_changes_and_planted_facts():
    report = _run()
    assert set(report["per_npc"]) == {"Maren", "Lyra", "Voss"}
    overall = report["overall"]
    assert overall["memories"] == sum(s["memories"] for s in report["per_npc"].values()) > 0
    for summary in [overall, *report["per_npc"].values()]:
        assert 0 <= summary["junk_share"] <= 1 and 0 <= summary["duplicate_share"] <= 1
        assert summary["junk"] <= summary["memories"]
    assert report["lines_said"]["planted"] >= 1 and report["lines_said"]["change"] >= 1
    # A change is told (day 2: every fact that changes changes on day 2 of a 3-day run) and
    # judged from what the NPC held when told; the statuses account for every change told.
    changed = report["changed_facts"]
    assert changed["told"] >= 1
    assert sum(changed["status_when_old_held"].values()) == changed["old_held_when_told"]
    assert {e["status"] for e in changed["entries"]} <= {
        "superseded",
        "both_current",
        "only_old",
        "neither",
    }
    # Planted day-1 facts: some are stored on day 1, and nothing is forgotten in three days.
    planted = report["planted"]
    assert planted["stored_day1"] >= 1
    assert planted["still_stored"] == planted["stored_day1"]
    assert planted["brought_back"] == planted["stored_day1"]
    caps = report["caps"]
    assert caps["within_caps"] and caps["memories_per_subject_max"] >= 1
    timing = report["timing"]
    assert all(len(days) == 3 for days in timing["rollover_s_by_day"].values())
    assert all(len(days) == 3 for days in timing["recall_s_by_day"].values())
    assert len(report["store_by_day"]) == 3 and len(report["tokens_by_day"]) == 3
    assert overall["tokens_per_npc_day"] > 0 and overall["diaries"] > 0
    assert set(report["acceptance"]) == {
        "junk_share",
        "duplicate_share",
        "superseded_share",
        "planted_brought_back_share",
        "within_caps",
        "rollover_cpu_flat_ratio",
    }
    assert lr.table(report).count("\n") >= 6
    # What a player would read is in the report, to be read by hand.
    raw = report["raw"]
    assert raw["replies"] and all(r["line"] and r["reply"] for r in raw["replies"])
    assert {r["npc"] for r in raw["replies"]} <= {"Maren", "Lyra", "Voss"}
    assert len(raw["diaries"]) == overall["diaries"] and len(raw["beliefs"]) == overall["beliefs"]


def test_normalised_text_sets_the_framing_aside_and_cosine_and_text_are_reported_apart():
    import numpy as np

    key_of = {5: "Ada", 6: "Cyra", 9: "Maren", 8: "Lyra"}
    rows = [
        {"id": 1, "npc_id": 9, "subject_id": 5, "value": "Ada told me: I live in Brackwater."},
        {
            "id": 2,
            "npc_id": 9,
            "subject_id": 5,
            "value": "Ada mentioned that i live in Brackwater.",
        },
        {"id": 3, "npc_id": 9, "subject_id": 5, "value": "Ada told me: My home is in Brackwater."},
        {"id": 4, "npc_id": 8, "subject_id": 5, "value": "Ada told me: I live in Brackwater."},
        # Told by Cyra, news of two people: two memories, not a copy (the subject's name
        # alone is set aside).
        {"id": 5, "npc_id": 9, "subject_id": 6, "value": "Cyra told me: Ada found a coin."},
        {"id": 6, "npc_id": 9, "subject_id": 6, "value": "Cyra told me: Dunstan found a coin."},
    ]
    vectors = {
        r["id"]: v for r, v in zip(rows, HashingEmbedder().embed([r["value"] for r in rows]))
    }
    vectors[3] = vectors[1]  # as if the embedder took the paraphrase for the same thing
    found = lr.duplicates(rows, vectors, key_of)
    assert found[1]["text"] is None and found[2]["text"] == 1  # framing aside: the same words
    assert found[3]["text"] is None and found[3]["cosine"][lr.DUPLICATE_COSINE] == 1
    assert found[4]["text"] is None  # another NPC's memory is no copy of this one's
    assert np.isclose(found[3]["best"], 1.0)
    assert found[6]["text"] is None


def test_fact_versions_tell_the_old_value_from_the_new():
    facts = lr.player_facts("Ada", 90, random.Random(3))
    animal = next(f for f in facts if f.topic == "animal")
    old, new = animal.versions
    assert lr.holds(old.lines[0], old) and not lr.holds(old.lines[0], new)
    assert lr.holds(new.announce[0], new) and not lr.holds(new.announce[0], old)
    home = next(f for f in facts if f.topic == "home")
    assert lr.fact_of(f"Ada told me: {home.versions[1].announce[0]}", facts) == (home.fid, 1)
    assert 27 <= home.change_day <= 63
    assert lr._status(old=True, new=True) == "both_current"
    assert lr._status(old=False, new=True) == "superseded"


def test_news_is_told_apart_by_whom_it_is_about_not_by_its_teller():
    """Seed 5 counted "Brannoc told me: ... Cyra fell into the mill pond" as a copy of Ada's
    news about Brannoc: the teller's name in the framing matched the other item's cue."""
    script = lr.make_script(["Ada", "Brannoc", "Cyra", "Dunstan"], 90, random.Random(5))
    facts = script.all_facts()
    about = {f.fid: f.versions[0].lines[0] for f in script.news["Brannoc"]}
    for fid, line in about.items():
        assert lr.fact_of(f"Brannoc told me: {line}", facts) == (fid, 0)
        assert lr.fact_of(f"(heard from Maren) Brannoc told me: {line}", facts) == (fid, 0)


def test_a_short_memory_of_a_scripted_fact_is_not_small_talk():
    """The offline-model run (seed 101) counted "Brannoc is a chandler." as trivial junk: one
    content word besides the name, though it is the player's trade."""
    trade = lr.Fact(
        "Brannoc/trade", "Brannoc", "trade", "", [lr.Version(("I am a chandler.",), ("chandler",))]
    )
    names = frozenset({"brannoc", "maren"})
    tracer = lr.Tracer(["Maren, I am a chandler."], ["Brannoc", "Maren"])
    levels = {level: None for level in lr.COSINE_LEVELS}
    dup = {"cosine": levels, "text": None, "best": -1.0}

    def row(value):
        return {"id": 1, "value": value, "source": "self", "provenance_id": None, "subject_id": 2}

    assert not lr.judge(row("Brannoc is a chandler."), dup, tracer, [trade], names)["trivial"]
    assert lr.judge(row("Brannoc said hello."), dup, tracer, [trade], names)["trivial"]
