"""The memories' scorer over knowledge (knowledge/selection.py): lanes, guards, expiry, budget."""

import numpy as np

from omniira_evennia.conf import build_settings
from omniira_evennia.knowledge.facts import KnowledgeRecord
from omniira_evennia.knowledge.selection import KnowledgeIndex, KnowledgeView, select_knowledge

DIM = 8


def axis(i, j=None, weight=0.0):
    vector = np.zeros(DIM, dtype=np.float32)
    vector[i] = 1.0
    if j is not None:
        vector[j] = weight
    return vector / np.linalg.norm(vector)


def index(token, rows):
    records = [r for r, _ in rows]
    vectors = np.stack([v if v is not None else np.zeros(DIM) for _, v in rows])
    return KnowledgeIndex(token, records, vectors, [v is not None for _, v in rows])


def fact(i, text, **fields):
    return KnowledgeRecord(id=i, key=fields.pop("key", f"k{i}"), text=text, **fields)


def conf(**overrides):
    return build_settings(overrides, {})


WORLD = index(
    "w0",
    [
        (fact(1, "A tinker is camped by the east road.", category="event"), axis(0)),
        (fact(2, "The market closes at dusk.", category="place"), axis(1)),
        (fact(3, "Hob sells bread by the well.", category="trade"), axis(2)),
        (fact(4, "The old fair ended.", category="event", expires_at=100.0), axis(0, 1, 0.2)),
        (fact(5, "The king is dead.", category="lore", importance=10), axis(7)),
    ],
)
MAREN = index(
    "n7",
    [
        (fact(10, "A mug of cider costs two copper.", category="trade"), axis(3)),
        (fact(11, "Maren hides silver.", guard="secret", condition="trust >= 0.8"), axis(3, 4, 1)),
        (fact(12, "The market closes at noon.", key="k2", category="place"), axis(1)),
    ],
)


def ids(records):
    return [r.id for r in records]


def test_meaning_full_text_and_the_category_a_line_asks_for():
    view = KnowledgeView(groups=[MAREN, WORLD], shadowed=frozenset({2}))
    settings = conf(KNOWLEDGE_SLOTS=3)
    chosen = select_knowledge(view, axis(3), "what does it cost?", settings, now=1000.0)
    assert ids(chosen)[:2] == [5, 10]  # the standing fact first, then cider by meaning
    view.lexical = [3]
    explain = {}
    chosen = select_knowledge(view, None, "any bread?", settings, now=1000.0, explain=explain)
    assert 3 in ids(chosen) and explain[3]["lexical_rank"] == 1
    news = select_knowledge(view, None, "What's the news?", settings, now=1000.0)
    assert 1 in ids(news) and 4 not in ids(news)  # an event, not the expired one


def test_a_secret_is_never_a_candidate_unless_allowed():
    closed = KnowledgeView(groups=[MAREN, WORLD])
    everything = conf(KNOWLEDGE_SLOTS=20, KNOWLEDGE_PROMPT_CHARS=0)
    assert 11 not in ids(select_knowledge(closed, axis(4), "silver?", everything, now=1000.0))
    assert 11 not in ids(closed.shown(1000.0))
    opened = KnowledgeView(groups=[MAREN, WORLD], allowed=frozenset({11}))
    assert 11 in ids(select_knowledge(opened, axis(4), "silver?", everything, now=1000.0))


def test_expired_facts_never_and_a_specific_scope_overrides_the_world():
    view = KnowledgeView(groups=[MAREN, WORLD], shadowed=frozenset({2}))
    everything = conf(KNOWLEDGE_SLOTS=20, KNOWLEDGE_PROMPT_CHARS=0, KNOWLEDGE_FLOOR=-1.0)
    chosen = ids(select_knowledge(view, axis(1), "when does it close?", everything, now=1000.0))
    assert 4 not in chosen and 2 not in chosen and 12 in chosen
    assert 4 in ids(select_knowledge(view, axis(1), "x", everything, now=50.0))


def test_the_prompt_budget_and_slots_bound_the_block():
    view = KnowledgeView(groups=[WORLD])
    explain = {}
    small = conf(KNOWLEDGE_SLOTS=5, KNOWLEDGE_PROMPT_CHARS=40, KNOWLEDGE_FLOOR=-1.0)
    chosen = select_knowledge(view, axis(0), "x", small, now=1000.0, explain=explain)
    assert sum(len(r.text) for r in chosen) <= 40
    assert any("cut_by_budget" in why for why in explain.values())
    assert len(select_knowledge(view, axis(0), "x", conf(KNOWLEDGE_SLOTS=1), now=1000.0)) == 1
    assert select_knowledge(None, axis(0), "x", small) == []


def test_a_rumour_counts_for_less():
    sure = fact(20, "The bridge is out.", category="event")
    rumour = fact(21, "The ford is out.", category="event", confidence=0.3)
    view = KnowledgeView(groups=[index("n8", [(rumour, axis(5)), (sure, axis(5))])])
    explain = {}
    chosen = select_knowledge(view, axis(5), "x", conf(), now=0.0, explain=explain)
    assert ids(chosen) == [20, 21] and explain[21]["weight_x"] < explain[20]["weight_x"]


def test_a_statement_needs_closer_meaning_than_a_question():
    # A fact at cosine 0.3 to the line: brought for a question, not for a statement (which a
    # small model would answer by reciting it).
    view = KnowledgeView(groups=[WORLD])
    near = axis(1) * 0.3 + axis(5) * (1 - 0.3**2) ** 0.5
    settings = conf(KNOWLEDGE_SLOTS=5)
    assert 2 in ids(select_knowledge(view, near, "Is it so, then?", settings, now=1000.0))
    assert 2 not in ids(select_knowledge(view, near, "My feet ache tonight.", settings, now=1000.0))


def test_only_a_question_asks_for_a_category():
    view = KnowledgeView(groups=[WORLD])
    settings = conf(KNOWLEDGE_SLOTS=5)
    asked = select_knowledge(view, None, "Where does the road go?", settings, now=1000.0)
    told = select_knowledge(
        view, None, "My sister lives past the marsh road.", settings, now=1000.0
    )
    assert 2 in ids(asked) and 2 not in ids(told)


def test_a_question_for_a_name_brings_the_fact_that_gives_it():
    # Held-out seed 90217: "Maren, what's the name of this town?" met "I do not know." with
    # the town's name authored; "town" is in half the facts and "name" in none.
    town = index(
        "w1",
        [
            (fact(20, "The tavern is the town's best.", category="place"), axis(5)),
            (fact(21, "The town's well is deep.", category="place"), axis(6)),
            (fact(22, "This is the town of Wickham Cross.", category="place"), axis(4)),
            (fact(23, "The river docks are busy.", category="place"), axis(1)),
        ],
    )
    settings = conf(KNOWLEDGE_SLOTS=1)
    view = KnowledgeView(groups=[town])
    explain = {}
    line = "Maren, what's the name of this town?"
    chosen = select_knowledge(view, axis(5), line, settings, now=1000.0, explain=explain)
    assert ids(chosen) == [22] and explain[22]["name_rank"] == 1
    assert ids(select_knowledge(view, axis(5), "Is the town nice?", settings, now=1000.0)) != [22]
