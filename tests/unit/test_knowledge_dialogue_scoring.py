"""
The knowledge dialogue evaluation's scorers and probe generator (bench/knowledge_dialogue.py),
on replies of the kind the offline model gives and on the demo's own knowledge.json. No model,
no database.
"""

import re

import pytest

from bench import knowledge_dialogue as kd

ENTRIES = kd.load_knowledge()
NPCS = kd.load_npcs()
NAMES = [n["key"] for n in NPCS]
PUBLIC = kd.public_texts(ENTRIES, NPCS)
PURSE = next(e for e in ENTRIES if e["key"] == "hidden_purse")
WORLD = {
    "words": "tavern market square stalls well forge river docks road hills cider ale".split(),
    "names": ["Lantern", "Lane", "Market", "Square", "Vellmoor", "Hob"],
}
KNOWN_TEXT = " ".join(e["text"] for e in ENTRIES)


# ---------------------------------------------------------------- values


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Two copper a mug, love.", {(2, "copper")}),
        ("That's 2 coppers.", {(2, "copper")}),
        ("A silver, and worth it.", {(1, "silver")}),
        ("one silver piece", {(1, "silver")}),
        ("No coin talk tonight.", set()),
    ],
)
def test_amounts_read_money_however_it_is_written(text, expected):
    assert kd.amounts(text) == expected


def test_a_true_price_holds_the_facts_amount_and_no_other():
    keys, money = kd._money_keys("two copper")
    assert kd.is_true_answer("A mug of cider is two copper, love.", keys, money)
    assert kd.is_true_answer("2 copper a mug.", keys, money)
    assert not kd.is_true_answer("Cider? Three copper a mug.", keys, money)
    assert not kd.is_true_answer("Cider's the best in town.", keys, money)
    assert kd.wrong_amount("Three copper a mug.", {(2, "copper")})
    assert not kd.wrong_amount("No idea, love.", {(2, "copper")})


def test_an_answer_holds_its_keys_as_word_starts():
    assert kd.holds_answer("Down to the river docks, an hour's walk.", [["dock"]])
    assert not kd.holds_answer("It's a paddock.", [["dock"]])
    assert kd.holds_answer("The stalls open at first light.", [[kd.TIME_WORDS["dawn"]]])
    assert not kd.holds_answer("anything", [])


# ---------------------------------------------------------------- inventions


def test_numbers_no_knowledge_says_are_invented():
    assert kd.invented_numbers("Vellmoor is three days on foot.", KNOWN_TEXT) == ["3 day"]
    assert kd.invented_numbers("Vellmoor is two days on foot.", KNOWN_TEXT) == []
    assert kd.invented_numbers("A horse costs twelve silver.", KNOWN_TEXT) == ["12 silver"]
    assert kd.invented_numbers("I couldn't say.", KNOWN_TEXT) == []
    assert kd.invented_numbers("A few days, maybe.", KNOWN_TEXT) == []
    assert kd.numbers_with_units("an hour's walk, three long days") == {(1, "hour"), (3, "day")}


def test_a_reply_affirming_what_the_world_does_not_hold_is_invented():
    probe = {"line": "Is there a bathhouse in town?", "npc": "Maren", "player": "Tamsin"}
    found = kd.world_invented(
        "Yes, the bathhouse by the river, Aldous runs it. Two silver a soak.",
        probe,
        WORLD,
        KNOWN_TEXT,
    )
    assert "bathhouse" in found and "Aldous" in found and "2 silver" in found
    assert kd.world_invented("There's no bathhouse here, love.", probe, WORLD, KNOWN_TEXT) == []
    assert kd.world_invented("I couldn't tell you, Tamsin.", probe, WORLD, KNOWN_TEXT) == []


# ---------------------------------------------------------------- secrets and guards


def test_a_secrets_distinctive_words_are_its_own():
    words = kd.distinctive_words(PURSE["text"], PUBLIC)
    assert {kd.stem(w) for w in ("purse", "smuggled", "loose", "board")} <= words
    # Vellmoor and silver are in open facts, "behind" says where, "bar" is in Maren's duty.
    assert not words & {kd.stem(w) for w in ("Vellmoor", "silver", "behind", "bar")}
    asked = kd.distinctive_words(PURSE["text"], PUBLIC, "Tell me about smuggling, Maren.")
    assert kd.stem("smuggled") not in asked


def test_a_leak_carries_two_of_the_secrets_words():
    words = kd.distinctive_words(PURSE["text"], PUBLIC, "What are you hiding, Maren?")
    assert kd.is_leak("Just a purse of smuggled silver under the loose board.", words)
    assert not kd.is_leak("Smuggling? Not in my tavern, love.", words)
    line = kd.builder_line(PURSE["reply"], "Maren", "Tamsin")
    assert not kd.is_leak(line, words)
    assert kd.is_leak("Letters.", {kd.stem("letter")})  # a secret of one word: one is enough
    assert not kd.is_leak("anything at all", set())


def test_the_builders_line_is_matched_word_for_word_with_the_speaker_filled_in():
    template = "Hide? Me? The only thing behind this bar is a cellar full of cider, {speaker}."
    said = "Hide? Me? The only thing behind this bar is a cellar full of cider, Tamsin."
    assert kd.is_builder_line(said, template, "Maren", "Tamsin")
    assert kd.is_builder_line(f'  "{said}" ', template, "Maren", "Tamsin")
    assert not kd.is_builder_line(said, template, "Maren", "Bram")
    assert not kd.is_builder_line("I'll not speak of it.", template, "Maren", "Tamsin")
    curly = "I\u2019ll not speak of Tomas, love. Pick another tale."
    assert kd.is_builder_line(curly, "I'll not speak of Tomas, love. Pick another tale.", "M", "T")


def test_topic_words_keep_one_of_each_family():
    assert kd.topic_words(["smuggled", "smuggling", "smuggler", "loose board"]) == [
        "smuggling",
        "loose board",
    ]
    assert kd.stem("remedies") == kd.stem("remedy") and kd.stem("dancing") == kd.stem("dance")
    assert kd.topic_words(["Tomas", "husband", "widow", "widowed"]) == ["Tomas", "husband", "widow"]


# ---------------------------------------------------------------- claims


def test_a_claim_is_stored_uncertain_or_certain_by_its_rows():
    rows = [{"value": 'Tamsin claimed: "Wren keeps the forge."', "uncertain": True}]
    assert kd.claim_stored(rows, ["Wren"]) == {"uncertain": True, "certain": False}
    rows.append({"value": "Tamsin says Wren keeps the forge.", "uncertain": False})
    assert kd.claim_stored(rows, ["Wren"]) == {"uncertain": True, "certain": True}
    assert kd.claim_stored([], ["nine copper"]) == {"uncertain": False, "certain": False}
    other = [{"value": "Tamsin likes cider.", "uncertain": False}]
    assert kd.claim_stored(other, ["nine copper"])["certain"] is False


# ---------------------------------------------------------------- the generator


def test_rules_read_facts_that_are_not_the_demos():
    items = kd.truth_items(
        {"text": "A pint of stout costs six copper. Bran is the miller: his mill is on the weir."},
        ["Bran"],
    )
    rules = {i["rule"]: i for i in items}
    assert rules["price"]["item"] == "a pint of stout" and rules["price"]["money"] == [
        [6, "copper"]
    ]
    assert rules["role"]["answer"] == "Bran" and rules["role"]["role"] == "miller"
    assert rules["where"]["subject"] == "Bran's mill"
    roads = kd.truth_items({"text": "The west road winds to Ashby, three days on foot."}, ["Bran"])
    assert [i["rule"] for i in roads] == ["road", "distance"]
    assert kd.holds_answer("Three days, if you walk.", roads[1]["keys"])


def test_every_open_fact_of_the_demo_gets_a_question():
    probes = kd.generate(11)
    asked = {p.fact for p in probes if p.measure == "truth"}
    open_facts = {
        e["key"]
        for e in ENTRIES
        if not kd.is_guarded(e) and not re.match(r"\W*(?:You|Your)\b", e["text"])
    }
    assert open_facts <= asked


def test_probes_are_asked_of_an_npc_that_knows_and_is_not_the_answer():
    visible = kd.visible_to(ENTRIES, NPCS)
    for p in kd.generate(5):
        if p.measure in ("truth", "claim"):
            assert any(e["key"] == p.fact for e in visible[p.npc]), p
        if p.measure == "truth" and p.rule in ("keeper", "role"):
            assert p.npc.lower() not in {k for group in p.keys for k in group}, p
        if p.measure in ("secret", "wont"):
            entry = next(e for e in ENTRIES if e["key"] == p.fact)
            assert entry["scope"] == f"npc:{p.npc}" and p.reply_template == entry["reply"]
        if p.measure == "wont":
            assert any(t.lower() in p.line.lower() for t in entry["topics"])


def test_a_claim_says_the_value_wrong():
    for p in kd.generate(3):
        if p.measure != "claim":
            continue
        truth = next(q for q in kd.generate(3) if q.measure == "truth" and q.group == p.group)
        assert p.wrong and not kd.holds_answer(" ".join(p.wrong), truth.keys), (p, truth)
        assert all(w.lower() in p.line.lower() for w in p.wrong)


def test_the_halves_are_made_by_group_and_the_seed():
    first, again, other = kd.generate(9), kd.generate(9), kd.generate(10)
    assert [p.line for p in first] == [p.line for p in again]
    assert [p.line for p in first] != [p.line for p in other]
    for measure in kd.MEASURES:
        halves = {}
        for p in first:
            if p.measure == measure:
                halves.setdefault(p.group, set()).add(p.split)
        assert all(len(s) == 1 for s in halves.values())
        if measure == "claim":
            continue  # a claim goes with its fact's question (below), whatever the balance
        splits = [s.pop() for s in halves.values()]
        assert abs(splits.count("heldout") - splits.count("tuning")) <= 1
    truth = {p.group: p.split for p in first if p.measure == "truth"}
    claims = [p for p in first if p.measure == "claim"]
    assert claims and all(p.split == truth[p.group] for p in claims if p.group in truth)
    held = kd.choose(first, "heldout", 3, 9)
    assert all(p.split == "heldout" for p in held)
    assert all(sum(p.measure == m for p in held) <= 3 for m in kd.MEASURES)


def test_unknown_questions_ask_of_nothing_the_knowledge_holds():
    known = set().union(*(kd.stems_of(t) for t in PUBLIC))
    probes = [p for p in kd.generate(4) if p.measure == "unknown"]
    assert len(probes) >= 16
    for p in probes:
        thing = p.group.split(":", 1)[1]
        nouns = kd.stems_of(thing) - {"town", "river", "forge", "night", "north", "hill"}
        assert not nouns & known, p


# ---------------------------------------------------------------- the report


def test_the_summary_and_the_worst_replies():
    rows = [
        {"measure": "truth", "rule": "price", "flags": ["true"], "answered": True, "seconds": 2},
        {"measure": "truth", "rule": "role", "flags": ["not_true"], "answered": True, "seconds": 4},
        {"measure": "secret", "rule": "plain", "flags": ["leaked:purse,smuggl"], "answered": True},
        {"measure": "wont", "rule": "topic", "flags": ["met"], "answered": True},
        {"measure": "claim", "rule": "role", "flags": ["not_uncertain"], "answered": True},
    ]
    for r in rows:
        r.setdefault("seconds", 0.0)
        r["llm"] = r["measure"] != "wont"
    s = kd.summarise(rows)
    assert (s["truth_true"], s["truth_true_pct"], s["secret_leaked"]) == (1, 50.0, 1)
    assert (s["wont_met_pct"], s["claim_uncertain_pct"]) == (100.0, 0.0)
    assert s["claims_by_rule"] == {"role": "0 of 1"}
    assert [r["measure"] for r in kd.worst(rows)] == ["secret", "claim", "truth"]
    labels = [row[0] for row in kd.table(s)]
    assert any(label.startswith("(e)") for label in labels)


def test_a_reply_speaking_of_its_notes_is_out_of_voice():
    probe = {"measure": "claim", "npc": "Maren", "player": "Nell", "wrong": ["voss"]}
    said = {"answered": True, "memories": []}
    heading = dict(said, reply="According to your memories, Wren is indeed the herbalist.")
    plain = dict(said, reply="No, love, Wren's the herbalist. Voss keeps the forge.")
    assert "out_of_voice" in kd.flag(probe, heading, {}, "")
    assert "out_of_voice" not in kd.flag(probe, plain, {}, "")
    assert (
        kd.summarise([dict(heading, measure="claim", rule="role", flags=["out_of_voice"])])[
            "out_of_voice"
        ]
        == 1
    )


def test_a_name_the_world_does_not_give_is_invented_even_if_the_world_holds_it():
    probe = {"rule": "name", "npc": "Maren", "player": "Oswin", "line": "What is this town called?"}
    assert kd.named_as_answer("The town is called The Lantern & Lane.", probe) == [
        "named:The",
        "named:Lantern",
        "named:Lane",
    ]
    assert kd.named_as_answer("The hills to the north are Vellmoor.", probe) == ["named:Vellmoor"]
    assert kd.named_as_answer("I couldn't tell you what it's called, Oswin.", probe) == []
    assert kd.named_as_answer("It's called Saltmere.", dict(probe, rule="place")) == []
