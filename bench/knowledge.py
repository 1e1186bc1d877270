"""
Benchmark: what NPCs know (issue #25). Target: retrieval p95 <= 3 ms with 1,000 world-scope
facts and 10,000 memories for one NPC.

A throwaway SQLite database (Evennia + omniira migrations) with one NPC holding 10,000
memories (random unit vectors, as bench/retrieval.py fills them), 1,000 world-scope facts
(varied words for the full-text index, unit vectors) and 20 facts of its own, two of them
guarded. Measured, each over many lines:

- the scorer (`knowledge.selection.select_knowledge`, in the worker): meaning, full-text and
  category lanes fused, the standing lane, slots and budget;
- the gathering on the reactor (`knowledge.service.view_for`, cached indexes): the NPC's
  scopes, a secret's condition for the speaker, the full-text search over the scopes;
- the line's checks (`answers.doubts`, the contradiction rule over every fact the speaker may
  be shown, and `answers.unanswered`);
- the whole knowledge retrieval (the three together), and a turn's whole retrieval
  (`turn.retrieve_context`: memories, beliefs, the verbatim lane and knowledge) with and
  without the knowledge;
- the world index read cold (after a restart or a change of the world's facts);
- the guard and answer thresholds on the demo's own knowledge (world/knowledge.json), with the
  real embedder: every probe of a guarded topic and benign question, and its cosine.

Writes bench/results/knowledge.json.

    .venv/bin/python bench/knowledge.py [--facts 1000] [--memories 10000] [--runs 500]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

from bench.retrieval import fill, setup_django, summary  # noqa: E402

NOUNS = "bridge ford mill well forge barge ferry toll road shrine orchard quarry granary".split()
PLACES = "Vellmoor Gullmouth Harrowmere Ashby Thornwick Redford Kelby Marsh Oakhollow".split()
STATES = "closed flooded rebuilt haunted busy guarded sold taxed painted abandoned".split()
DEMO = ROOT / "game_template" / "world" / "knowledge.json"

# Lines about a guarded topic of the demo (its key) and benign questions (none), for the guard
# threshold; questions the demo's knowledge answers and ones it does not, for the answer one.
PROBES = {
    "hidden_purse": [
        "What do you keep under the loose board, Maren?",
        "Do you deal in smuggled silver?",
        "Any smugglers come through here?",
        "Got a secret stash somewhere behind that bar?",
        "Where do you keep your hidden money?",
    ],
    "tomas": [
        "Tell me about your husband.",
        "Were you ever married, Maren?",
        "Who was Tomas?",
        "Are you a widow?",
        "Is there a man in your life?",
    ],
    "lyra_spy": [
        "Who do you really work for, Lyra?",
        "Are you a spy?",
        "Did the guild send you here?",
        "What brings a bard like you to town, really?",
    ],
    "voss_letters": [
        "Can you read, Voss?",
        "Would you read this letter for me?",
        "Do you know your letters?",
        "Can you write your name?",
    ],
    "wren_loft": [
        "What's up in your loft, Wren?",
        "Are you hiding someone?",
        "Is the sick bargeman with you?",
        "Who is the sick man you're tending?",
    ],
}
BENIGN = [
    "What does the cider cost?",
    "What's the news around town?",
    "Where does the east road go?",
    "What do you sell, Voss?",
    "Who keeps the forge?",
    "Can I rent a room tonight?",
    "What do people do for fun here?",
    "Is there a temple in town?",
    "How much is the plum wine?",
    "Hello Maren, how are you?",
    "What's good to eat?",
    "Where can I buy bread?",
    "What herbs do you have for a headache?",
    "Can you mend my kettle?",
    "Sing me a song, Lyra.",
    "Who is that bard?",
    "Are you married to your work?",
    "What time does the market close?",
    "Do you have any family?",
    "What's your favourite drink?",
    "Do you like living here?",
    "Who runs this tavern?",
    "Tell me a story.",
    "Is Wren around?",
    "I'm looking for work.",
]
ANSWERED = [
    "What does a pint of cider cost?",
    "How much is the ale?",
    "What's the price of plum wine?",
    "How much for a bowl of stew?",
    "Can I rent a room, and what does it cost?",
    "Where does the east road lead?",
    "How far is Vellmoor?",
    "Who keeps the forge?",
    "What does Wren sell?",
    "Where can I buy bread?",
    "When does the market close?",
    "What's new in town this week?",
    "What do folk do for fun around here?",
    "Who is the bard?",
    "Where are the docks?",
    "How much does Voss charge to mend a tool?",
    "What time is the door barred?",
    "Is there a tinker about?",
    "Who sells knives here?",
    "Can I get something for a headache?",
]
UNANSWERED = [
    "Is there a temple in town?",
    "Where can I buy a horse?",
    "Who is the mayor?",
    "Is there a library nearby?",
    "Where is the castle?",
    "Does anyone sell maps?",
    "Who leads the town watch?",
    "Is there a jeweller on the square?",
    "When is the next festival?",
    "Where can I find a healer's guild?",
    "What's the best inn in Vellmoor?",
]


def unit(rng, near=None, noise=0.6):
    import numpy as np

    vector = rng.standard_normal(384).astype(np.float32)
    vector /= np.linalg.norm(vector)
    if near is not None:
        vector = near + noise * vector
        vector /= np.linalg.norm(vector)
    return vector


def world_facts(count: int, rng) -> list:
    """`count` world-scope facts with varied words and unit vectors, in one bulk insert."""
    from omniira_evennia.models import Knowledge

    rows, vectors = [], []
    for i in range(count):
        noun, place = NOUNS[i % len(NOUNS)], PLACES[(i // 7) % len(PLACES)]
        state = STATES[(i // 3) % len(STATES)]
        vector = unit(rng)
        vectors.append(vector)
        rows.append(
            Knowledge(
                key=f"fact_{i}",
                text=f"The {noun} at {place} is {state}; it costs {i % 9 + 1} copper to pass.",
                category=["place", "event", "trade", "lore", "people", "faction"][i % 6],
                scope="world",
                scope_token="w0",
                importance=int(rng.integers(1, 9)),
                embedding=vector.tobytes(),
                topic_embedding=vector.tobytes(),
            )
        )
    Knowledge.objects.bulk_create(rows, batch_size=500)
    return vectors


def own_facts(npc, rng) -> None:
    for i in range(18):
        npc.memory.know(f"Ale number {i} costs {i + 2} copper a mug.", key=f"ale_{i}")
    npc.memory.know("Maren hides silver.", key="purse", secret=True, topics=["loose board"])
    npc.memory.know("Tomas, her late husband", key="tomas", wont_discuss=True, topics=["Tomas"])


def timed(runs: int, work) -> dict:
    """Wall time, and this thread's CPU time (which a busy machine's preemption does not
    inflate), over `runs` calls of `work(i)`."""
    wall, cpu = [], []
    for i in range(runs):
        t0, c0 = time.perf_counter(), time.thread_time()
        work(i)
        wall.append((time.perf_counter() - t0) * 1000)
        cpu.append((time.thread_time() - c0) * 1000)
    return {**summary(wall), "cpu": summary(cpu)}


def measure_latency(args, rng, results) -> None:
    from evennia.utils import create

    from omniira_evennia.conf import build_settings
    from omniira_evennia.conversation import service as conversation
    from omniira_evennia.conversation import store as conversations
    from omniira_evennia.conversation.turn import retrieve_context
    from omniira_evennia.knowledge import answers
    from omniira_evennia.knowledge import service as knowledge
    from omniira_evennia.knowledge.selection import select_knowledge
    from omniira_evennia.memory import store
    from omniira_evennia.memory.selection import LineVectors

    conf = build_settings({}, {})
    room = create.create_object("evennia.objects.objects.DefaultRoom", key="Bench", nohome=True)
    speaker = create.create_object(
        "evennia.objects.objects.DefaultCharacter", key="Ada", location=room, home=room
    )
    npc = create.create_object(
        "omniira_evennia.typeclasses.MemoryNPC", key="Maren", location=room, home=room
    )
    fill(npc, [speaker], args.memories, rng)
    vectors = world_facts(args.facts, rng)
    own_facts(npc, rng)
    started = time.perf_counter()
    knowledge.read_index("w0")
    results["world_index_cold_ms"] = round((time.perf_counter() - started) * 1000, 3)
    store.load_index(npc.id)
    # Questions and claims in turn (a claim is read against every fact it shares a word with).
    lines = [
        (
            f"Is the {NOUNS[i % len(NOUNS)]} at {PLACES[i % len(PLACES)]} open?"
            if i % 2
            else f"The {NOUNS[i % len(NOUNS)]} at {PLACES[i % len(PLACES)]} costs ten gold."
        )
        for i in range(50)
    ]
    queries = [unit(rng, near=vectors[int(rng.integers(0, len(vectors)))]) for _ in range(50)]
    views = [knowledge.view_for(npc, speaker, line, conf) for line in lines]

    def line(i):
        return lines[i % len(lines)]

    results["scorer"] = timed(
        args.runs,
        lambda i: select_knowledge(views[i % 50], queries[i % 50], line(i), conf, now=time.time()),
    )
    results["gather"] = timed(args.runs, lambda i: knowledge.view_for(npc, speaker, line(i), conf))
    results["checks"] = timed(
        args.runs,
        lambda i: (
            answers.doubts(views[i % 50], line(i), time.time(), ("Maren",)),
            answers.unanswered(line(i), views[i % 50], [], queries[i % 50], conf),
        ),
    )

    def whole(i):
        view = knowledge.view_for(npc, speaker, line(i), conf)
        select_knowledge(view, queries[i % 50], line(i), conf, now=time.time())
        answers.doubts(view, line(i), time.time(), ("Maren",))
        answers.unanswered(line(i), view, [], queries[i % 50], conf)

    results["knowledge_retrieval"] = timed(args.runs, whole)
    doubt = knowledge.doubt_for(npc, speaker)
    results["note_check"] = timed(args.runs, lambda i: doubt(line(i)))
    conversation_id = conversations.conversation_id_for(
        npc, speaker, conf.CONVERSATION_IDLE_SECONDS
    )
    for label, with_knowledge in (("turn_retrieval", True), ("turn_retrieval_no_knowledge", False)):
        turn = conversation.turn_input_for(npc, speaker, lines[0], conversation_id, 1)
        if not with_knowledge:
            turn.knowledge = None

        def retrieve(i, turn=turn):
            query = queries[i % 50]
            retrieve_context(turn, conf, LineVectors(said=query, query=query))

        results[label] = timed(args.runs, retrieve)
    results["sizes"] = {"facts": args.facts + 20, "memories": args.memories}


def measure_thresholds(results) -> None:
    """The demo's guarded topics against probes and benign lines, and its knowledge against
    questions it answers and ones it does not, with the configured embedder."""
    import numpy as np

    from omniira_evennia.conf import build_settings
    from omniira_evennia.knowledge.answers import asked_words
    from omniira_evennia.knowledge.contradiction import stems
    from omniira_evennia.memory.embeddings import embed_or_none
    from omniira_evennia.memory.fusion import without_names

    entries = json.loads(DEMO.read_text())["knowledge"]
    guards = {e["key"]: e for e in entries if e.get("secret") or e.get("wont_discuss")}
    topic = {k: embed_or_none([", ".join(e["topics"])])[0] for k, e in guards.items()}
    names = {"Maren", "Lyra", "Voss", "Wren", "Ada"}

    def vector(text):
        return embed_or_none([without_names(text, names)])[0]

    def words_hit(text, entry):
        from omniira_evennia.knowledge.facts import Guard
        from omniira_evennia.knowledge.guards import word_hit

        words = tuple(t.lower() for t in entry["topics"])
        return word_hit(text, Guard(0, "secret", "x", words, "")) is not None

    probes = [
        {"topic": k, "line": line, "word": words_hit(line, guards[k]), "cosine": 0.0}
        for k, lines in PROBES.items()
        for line in lines
    ]
    for probe in probes:
        probe["cosine"] = round(float(vector(probe["line"]) @ topic[probe["topic"]]), 3)
    benign = []
    for line in BENIGN:
        v = vector(line)
        best = max((float(v @ g), k) for k, g in topic.items())
        hit = any(words_hit(line, e) for e in guards.values())
        benign.append({"line": line, "closest": best[1], "cosine": round(best[0], 3), "word": hit})
    maren = [
        e
        for e in entries
        if e.get("scope", "world") in ("world", "npc:Maren", "room:tavern")
        and not (e.get("secret") or e.get("wont_discuss"))
    ]
    facts = np.array(embed_or_none([e["text"] for e in maren]))
    known = set()
    for e in maren:
        known |= stems(" ".join([e["text"], *e.get("topics", [])]))
    questions = []
    for label, lines in (("answered", ANSWERED), ("unanswered", UNANSWERED)):
        for line in lines:
            asked = asked_words(line, {"Maren", "Ada"})
            questions.append(
                {
                    "kind": label,
                    "line": line,
                    "cosine": round(float(np.max(facts @ vector(line))), 3),
                    "words_known": bool(not asked or asked <= known),
                }
            )
    conf = build_settings({}, {})
    results["guard_threshold"] = {
        "cosine": conf.KNOWLEDGE_GUARD_COSINE,
        "probes": probes,
        "benign": benign,
    }
    results["answer_threshold"] = {"cosine": conf.KNOWLEDGE_ANSWER_COSINE, "questions": questions}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--facts", type=int, default=1000)
    parser.add_argument("--memories", type=int, default=10000)
    parser.add_argument("--runs", type=int, default=500)
    args = parser.parse_args()
    setup_django("sqlite", tempfile.mkdtemp(prefix="omniira-bench-"))

    import numpy as np

    from omniira_evennia.runtime import runner

    runner.run_inline(True)
    results = {
        "benchmark": "knowledge",
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{os.cpu_count()} cores, {platform.processor() or platform.machine()}, "
        f"Python {platform.python_version()}",
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    measure_latency(args, np.random.default_rng(25), results)
    measure_thresholds(results)
    out = ROOT / "bench" / "results" / "knowledge.json"
    out.write_text(json.dumps(results, indent=2))
    print(json.dumps({k: v for k, v in results.items() if "threshold" not in k}, indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
