"""
The testbed (issue #9): 3-day, 6-NPC simulations with the deterministic LLM, each extension
on and off, asserting on the report's numbers. The whole pipeline is real (store, tags,
gossip, extraction, rollover, LLMClient over HTTP); only the model is deterministic.
"""

import json

import pytest

from omniira_evennia.testing.testbed.cli import parse_args
from omniira_evennia.testing.testbed.deterministic_llm import (
    DeterministicLLM,
    HashingEmbedder,
)
from omniira_evennia.testing.testbed.report import write_report
from omniira_evennia.testing.testbed.simulate import SimConfig, run_simulation

pytestmark = pytest.mark.django_db


def simulate(**kwargs):
    kwargs = {"days": 3, "npcs": 6, "players": 2, "seed": 1, **kwargs}
    with DeterministicLLM(seed=1) as server:
        tier = {"base_url": server.base_url, "model": "deterministic"}
        tiers = {"voice": tier, "reasoning": tier, "ambient": tier}
        return run_simulation(SimConfig(**kwargs), tiers, HashingEmbedder())


def test_all_extensions_on_the_planted_fact_spreads_and_the_lie_is_traceable():
    report = simulate(liar=True)
    fact, lie = report["diffusion"]["fact"], report["diffusion"]["lie"]
    assert fact["holders_by_day"][0] >= 1
    assert fact["holders_by_day"][-1] > 1  # gossip carried it beyond its origin
    assert fact["holders_by_day"] == sorted(fact["holders_by_day"])  # nobody forgets in 3 days
    assert fact["copies"] == fact["holders_by_day"][-1] - 1
    assert fact["max_chain"] >= 1 and sum(fact["chain_lengths"].values()) == fact["copies"]
    assert lie["copies"] >= 1 and lie["traceable"] is True
    # News a player told about a third party (issue #24): kept by the NPC told, passed on as
    # knowledge; talk about who knows what is never passed on.
    news = report["diffusion"]["news"]
    assert news["holders_by_day"][0] >= 1 and news["holders_by_day"][-1] > 1
    assert news["final_holders"][0] and news["copies"] >= 1
    assert all(
        copy.startswith(("Ada says", "(heard")) or "Harlan" in copy
        for copy in news["copies_as_told"]
    )
    assert report["gossip"]["talk_passed_on"] == []
    assert lie["copies_traced_to_origin"] == lie["copies"]
    memory = report["memory"]
    assert memory["hearsay_rows"] > 0 and memory["self_rows"] > 0
    assert memory["reflections"] > 0 and memory["diary_entries"] > 0
    assert sum(memory["per_npc"].values()) == memory["rows"]
    assert 0 < report["self_tag_cadence"]["tags_per_reply"] <= 1
    assert report["gossip"]["npc_conversations"] > 0
    assert set(report["llm"]["by_tier"]) == {"voice", "reasoning"}
    assert report["llm"]["failed_calls"] == 0
    assert report["llm"]["per_npc_day"]["voice"]["tokens"] > 0


def test_gossip_off_means_no_hearsay_and_the_fact_stays_put():
    report = simulate(off={"gossip"}, liar=True)
    assert report["memory"]["hearsay_rows"] == 0
    assert report["gossip"]["npc_conversations"] == 0
    assert report["diffusion"]["fact"]["holders_by_day"] == [1, 1, 1]
    assert report["diffusion"]["news"]["holders_by_day"] == [1, 1, 1]  # the NPC told keeps it
    assert report["diffusion"]["lie"]["copies"] == 0
    assert report["diffusion"]["lie"]["traceable"] is None  # no copy, nothing to trace
    assert report["health"].get("npc_conversations", 0) == 0


def test_reflection_autobiography_and_self_tagging_switches():
    report = simulate(off={"reflection", "autobiography", "self_tagging"})
    memory = report["memory"]
    assert memory["reflections"] == 0 and memory["diary_entries"] == 0
    assert memory["self_rows"] == 0 and report["self_tag_cadence"]["self_tags"] == 0
    assert report["self_tag_cadence"]["ignored_tags"] > 0  # the model did tag; it was ignored
    assert memory["by_source"].get("extracted", 0) > 0  # extraction still works
    assert report["diffusion"]["fact"]["holders_by_day"][-1] > 1  # gossip is still on


def test_weighting_switches_change_the_settings_only(tmp_path):
    from omniira_evennia.testing.testbed.simulate import ablation_settings

    on, off = ablation_settings(set()), ablation_settings(
        {"provenance_weighting", "feeling_weighting"}
    )
    assert (on["HEARSAY_WEIGHT"], on["FEELING_WEIGHT"]) == (0.8, 1.1)
    assert (off["HEARSAY_WEIGHT"], off["FEELING_WEIGHT"]) == (1.0, 1.0)
    report = simulate(off={"provenance_weighting", "feeling_weighting"}, days=1)
    assert report["config"]["off"] == ["feeling_weighting", "provenance_weighting"]
    assert report["per_day"][0]["hearsay_rows"] == report["memory"]["hearsay_rows"]

    written = write_report(report, str(tmp_path))
    assert json.loads((tmp_path / "report.json").read_text())["config"]["days"] == 1
    assert {p.rsplit("/", 1)[-1] for p in written} == {
        "report.json",
        "diffusion.png",
        "chain_lengths.png",
        "self_tags.png",
        "llm_per_npc_day.png",
        "memory_per_npc.png",
    }
    assert (tmp_path / "diffusion.png").read_bytes()[:4] == b"\x89PNG"


def test_cli_rejects_an_unknown_switch(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--off", "gossip,telepathy"])
    assert "telepathy" in capsys.readouterr().err
    args = parse_args(["--off", "gossip, reflection", "--liar", "--days", "2"])
    assert args.off == {"gossip", "reflection"} and args.liar and args.days == 2


def test_a_probe_is_held_in_any_words_that_carry_its_cues():
    from omniira_evennia.testing.testbed.measures import LIE_CUES, PLANTED_CUES, cue_pattern

    fact, lie = cue_pattern(PLANTED_CUES), cue_pattern(LIE_CUES)
    assert fact.match("Ada tucked a note beneath the old bridge.")
    assert fact.match("heard ada letter Ada left something by the Bridge.")
    assert not fact.match("Ada wrote a letter to her sister.")  # no bridge: another fact
    assert lie.match("The crossroads well was poisoned, and Brannoc did it.")
    assert not lie.match("Brannoc is doing well.")


def test_a_paraphrased_gossip_copy_counts_as_a_holder():
    from evennia.utils import create

    from omniira_evennia.models import Memory
    from omniira_evennia.testing.testbed.measures import PLANTED_CUES, PLANTED_FACT, probe_holders

    maren, lyra, voss = (
        create.create_object("omniira_evennia.typeclasses.MemoryNPC", key=key)
        for key in ("Maren", "Lyra", "Voss")
    )
    ada = create.create_object("evennia.objects.objects.DefaultCharacter", key="Ada")
    Memory.objects.create(npc=maren, subject=ada, key="planted_fact", value=PLANTED_FACT)
    Memory.objects.create(
        npc=lyra,
        subject=ada,
        key="heard_ada_hid_a_note",
        value="Ada tucked a note under a stone of the old bridge.",
        provenance=maren,
        chain=[maren.id],
        hops=1,
    )
    Memory.objects.create(npc=voss, subject=ada, key="ada_letter", value="Ada writes letters.")
    probe = {"value": PLANTED_FACT, "cues": PLANTED_CUES}
    holders, copies = probe_holders([maren.id, lyra.id, voss.id], probe)
    assert holders == {maren.id, lyra.id}
    assert [c["value"] for c in copies] == ["Ada tucked a note under a stone of the old bridge."]
