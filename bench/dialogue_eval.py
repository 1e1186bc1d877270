"""
Evaluation: does an NPC remember what a player told it, with the packaged offline model (#16)?

Player scenarios over the demo's four NPCs (bench/dialogue_scenarios.json), end to end through
the real turn path (`conversation.service.start_turn`, the conversation-end review, the nightly
rollover) with Evennia objects in a throwaway SQLite database and the real embedder, against the
offline model served by llama.cpp on 127.0.0.1:

1. Day 1, evening: each player tells an NPC two to four facts about themselves, one line at a
   time, and says goodbye (the goodbye ends the conversation and the review runs).
2. The night's rollover runs (reflections, diaries), then a "restart": every in-process cache
   is dropped (memory matrices, settings, the LLM client, Evennia's object cache).
3. Day 2: each player comes back and asks one question per fact, in a new conversation.
4. Newcomers the NPC has never met ask the same kinds of questions ("who am I searching
   for?"): another player's fact given to them as theirs is a cross-player mix-up.

Scored automatically (see `score_*`): facts stored as distilled memories about the player,
facts brought back in the answer (keyword sets with synonyms), invented or trivial memories
(placeholder keys, a name stored as a fact, the NPC's own traits under the player, anything
that matches none of the player's facts), narration-only replies, role confusions (the
player's fact claimed in the first person), echoed lines, fallback lines, reply latency.

Writes bench/results/dialogue_eval.json (or dialogue_eval_<label>.json with --label).

    .venv/bin/python bench/dialogue_eval.py                 # all scenarios (20-40 min)
    .venv/bin/python bench/dialogue_eval.py --per-npc 2     # a quick subset
    .venv/bin/python bench/dialogue_eval.py --base-url http://127.0.0.1:8181/v1  # a running server
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

from omniira_evennia.llm.local_model import TIER_SAMPLING  # noqa: E402

IDLE_PROMPT_TPS = 90.0
IDLE_GEN_TPS = 32.0
SCENARIOS = ROOT / "bench" / "dialogue_scenarios.json"
RESULTS = ROOT / "bench" / "results"

# The demo's sampling (local_model.TIER_SAMPLING, held equal to the demo's settings by a test),
# so the evaluation sees what a player of `make demo` sees; timeouts generous, so that a machine
# shared with other work turns slow calls into slow numbers, not into failures.
DEMO_TIERS = {name: {**sampling, "timeout": 900} for name, sampling in TIER_SAMPLING.items()}

# Keys a small model copies from a prompt's example instead of writing its own.
PLACEHOLDER_KEYS = re.compile(
    r"^(short_snake_case|snake_case|short_key|key|example|example_key|fact|fact_key|"
    r"descriptive_key|your_key|key_name|some_key|name_of_fact|topic)(_\d+)?$|snake_case"
)
# The NPCs' own trades and haunts, for "the NPC's traits filed under the player".
NPC_TRAITS = {
    "Maren": r"tavern|cider|plum wine|\bale\b|inn ?keep|barkeep|rents? rooms",
    "Lyra": r"\bbard|lute|minstrel|\bsongs?\b|sings? for coins",
    "Voss": r"blacksmith|\bsmith|forge|anvil|blades?\b",
    "Wren": r"herbalist|\bherbs?\b|remed",
}
FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'll|i'd|me|my|mine|myself)\b", re.IGNORECASE)
SECOND_PERSON = re.compile(r"\b(you|you're|you've|you'll|your|yours|yourself)\b", re.IGNORECASE)
PERSONAL = re.compile(
    r"\b(i|i'm|i've|i'll|i'd|me|my|mine|myself|we|us|our|you|you're|you've|you'll|your|yours|"
    r"yourself|love)\b",
    re.IGNORECASE,
)
SENTENCE = re.compile(r"[^.!?]+[.!?]*")
STOPWORDS = set(
    "a an the is was are were be been has have had of to in on at for and or but with by as "
    "named called name s their his her its this that who which person player someone "
    "customer visitor traveller traveler stranger".split()
)


# ---------------------------------------------------------------- data


@dataclass
class Fact:
    category: str
    keys: list[list[str]]
    claim: list[str]
    question: str


@dataclass
class Scenario:
    id: str
    npc: str
    player: str
    lines: list[str]
    facts: list[Fact]


@dataclass
class Reply:
    scenario: str
    phase: str  # tell | goodbye | ask | newcomer
    npc: str
    speaker: str
    said: str
    reply: str
    seconds: float
    fallback: bool
    tokens_out: int = 0
    raw: str = ""  # what the model wrote, before tags and character breaks were taken out
    tokens_in: int = 0
    # llama.cpp's own timings of the call: tokens evaluated (after its prompt cache) and written
    prompt_n: int = 0
    predicted_n: int = 0
    flags: list[str] = field(default_factory=list)


def load_scenarios(path: Path = SCENARIOS) -> tuple[list[Scenario], dict]:
    data = json.loads(path.read_text())
    scenarios = [
        Scenario(s["id"], s["npc"], s["player"], s["lines"], [Fact(**f) for f in s["facts"]])
        for s in data["scenarios"]
    ]
    return scenarios, data


def subset(scenarios: list[Scenario], per_npc: int | None, only: list[str] | None = None):
    if only:
        return [s for s in scenarios if s.id in only]
    if not per_npc:
        return scenarios
    counts: dict[str, int] = {}
    chosen = []
    for s in scenarios:
        if counts.get(s.npc, 0) < per_npc:
            counts[s.npc] = counts.get(s.npc, 0) + 1
            chosen.append(s)
    return chosen


# ---------------------------------------------------------------- scoring


def _word(pattern: str) -> re.Pattern:
    # A word prefix: "clock" matches "clockmaker" and "clocks", not "oclock".
    return re.compile(r"(?<![a-z])" + pattern, re.IGNORECASE)


def matches(text: str, keys: list[list[str]]) -> bool:
    """Every group of `keys` has a word (prefix, regex allowed) found in `text`."""
    return all(any(_word(word).search(text or "") for word in group) for group in keys)


def is_placeholder_key(key: str) -> bool:
    return bool(PLACEHOLDER_KEYS.search(key or ""))


def is_name_only(value: str, player: str) -> bool:
    """A memory that says no more than who the player is ("Tamsin is Tamsin")."""
    words = re.findall(r"[a-z']+", (value or "").lower())
    rest = [w for w in words if w not in STOPWORDS and w != player.lower() and w != "s"]
    return len(rest) <= 1


def classify_memory(value: str, key: str, player: str, npc: str, facts: list[Fact]) -> str:
    """fact | placeholder | name_only | npc_traits | unmatched."""
    if is_placeholder_key(key):
        return "placeholder"
    if any(matches(value, f.keys) for f in facts):
        return "fact"
    if is_name_only(value, player):
        return "name_only"
    if re.search(NPC_TRAITS.get(npc, r"$^"), value or "", re.IGNORECASE):
        return "npc_traits"
    return "unmatched"


def is_narration(reply: str, npc: str) -> bool:
    """A reply that describes the NPC instead of speaking ("Maren smiles, feeling grateful.")."""
    text = (reply or "").strip()
    if not text:
        return False
    if re.fullmatch(r"[*_(].*[*_)]", text, re.DOTALL):
        return True  # *wipes the bar*
    outside_quotes = re.sub(r'["\u201c][^"\u201d]*["\u201d]', "", text)
    starts_as_narrator = re.match(
        rf"^\s*(\*|{re.escape(npc)}\b|she\b|he\b|they\b|the (tavern|bard|smith|herbalist))",
        text,
        re.IGNORECASE,
    )
    return bool(starts_as_narrator) and not PERSONAL.search(outside_quotes)


def role_confusions(reply: str, facts: list[Fact]) -> list[str]:
    """Sentences claiming one of the player's facts in the first person, to no one."""
    found = []
    for sentence in SENTENCE.findall(reply or ""):
        if not FIRST_PERSON.search(sentence) or SECOND_PERSON.search(sentence):
            continue
        for fact in facts:
            if any(_word(re.escape(w)).search(sentence) for w in fact.claim):
                found.append(sentence.strip())
                break
    return found


def is_echo(reply: str, lines_said: list[str], player: str) -> bool:
    """The reply repeats the player's words or the history's format ("Ada says: ...")."""
    text = (reply or "").strip().lower()
    if re.search(rf"\b{re.escape(player.lower())} says\s*:", text) or re.match(
        r"^\w+ says\s*:", text
    ):
        return True
    for line in lines_said:
        said = line.strip().lower()
        if len(said) >= 20 and said in text:
            return True
        # Said back to the player ("You are allergic to lavender") is an answer, if a plain one
        # (see `is_restatement`); the same words in the player's own voice are an echo.
        if SECOND_PERSON.search(text):
            continue
        if difflib.SequenceMatcher(None, said, text).ratio() >= 0.75:
            return True
    return False


def is_restatement(reply: str, lines_said: list[str]) -> bool:
    """The reply only says the player's line back to them, pronouns turned round."""
    text = (reply or "").strip().lower()
    return any(
        difflib.SequenceMatcher(None, line.strip().lower(), text).ratio() >= 0.75
        for line in lines_said
    )


def is_repeat(reply: str, earlier: list[str]) -> bool:
    """The reply says a sentence again that the NPC already said in this conversation."""
    said = {
        " ".join(re.findall(r"[a-z']+", x.lower())) for e in earlier for x in SENTENCE.findall(e)
    }
    said.discard("")
    return any(
        len(norm.split()) >= 3 and norm in said
        for norm in (" ".join(re.findall(r"[a-z']+", x.lower())) for x in SENTENCE.findall(reply))
    )


def percentile(values, pct):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


def _pct(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 1) if whole else None


# ---------------------------------------------------------------- the run


class Driver:
    """Talk to NPCs through `service.start_turn` and keep what was said, timed."""

    def __init__(self, fallbacks: set[str]):
        self.fallbacks = fallbacks
        self.replies: list[Reply] = []
        self.review_seconds: list[float] = []

    def say(self, npc, player, line: str, scenario: str, phase: str) -> Reply:
        from omniira_evennia.conversation import lifecycle, service
        from omniira_evennia.conversation.service import start_turn
        from omniira_evennia.llm.client import LLMClient
        from omniira_evennia.models import LLMUsage

        review = [0.0]
        real_close = lifecycle.close_conversation

        def timed_close(*args, **kwargs):
            t0 = time.monotonic()
            try:
                return real_close(*args, **kwargs)
            finally:
                review[0] += time.monotonic() - t0

        raw, timings = [], []
        real_chat, real_post = LLMClient.chat, LLMClient._post

        voice_timings = []

        def recording_chat(client, tier_name, messages, **kwargs):
            start = len(timings)
            result = real_chat(client, tier_name, messages, **kwargs)
            if kwargs.get("feature") == "conversation":
                raw.append(result.text)
                voice_timings.extend(timings[start:])
            return result

        def recording_post(client, tier, body, headers):
            data = real_post(client, tier, body, headers)
            timings.append(data.get("timings") or {})
            return data

        last_usage = LLMUsage.objects.order_by("-id").values_list("id", flat=True).first() or 0
        said = []
        started = time.monotonic()
        with (
            mock.patch.object(lifecycle, "close_conversation", timed_close),
            mock.patch.object(service, "close_conversation", timed_close, create=True),
            mock.patch.object(LLMClient, "chat", recording_chat),
            mock.patch.object(LLMClient, "_post", recording_post),
        ):
            deferred = start_turn(npc, player, line)
            if deferred is not None:
                deferred.addCallback(lambda text: said.append(text) or text)
        seconds = time.monotonic() - started - review[0]
        if review[0]:
            self.review_seconds.append(review[0])
        text = said[0] if said else ""
        usage = (
            LLMUsage.objects.filter(id__gt=last_usage, feature="conversation")
            .order_by("id")
            .first()
        )
        reply = Reply(
            scenario=scenario,
            phase=phase,
            npc=npc.key,
            speaker=player.key,
            said=line,
            reply=text,
            seconds=round(seconds, 2),
            fallback=text in self.fallbacks or not text,
            tokens_out=usage.tokens_out if usage else 0,
            raw=raw[0] if raw else "",
            tokens_in=usage.tokens_in if usage else 0,
            prompt_n=sum(int(t.get("prompt_n") or 0) for t in voice_timings),
            predicted_n=sum(int(t.get("predicted_n") or 0) for t in voice_timings),
        )
        self.replies.append(reply)
        return reply


def build_world():
    """The demo's rooms and NPCs (game_template/world/build.py), in the current database."""
    from evennia.utils import create
    from world.build import MARKET, NPCS, TAVERN

    rooms = {}
    for name, spec in (("tavern", TAVERN), ("market", MARKET)):
        room = create.create_object("typeclasses.rooms.Room", key=spec["key"])
        room.db.desc = spec["desc"]
        rooms[name] = room
    npcs = {}
    for spec in NPCS:
        room = rooms[spec["room"]]
        npc = create.create_object(
            "typeclasses.npcs.NPC", key=spec["key"], location=room, home=room
        )
        npc.db.desc = spec["desc"]
        npc.db.npc_role = spec["role"]
        npc.db.npc_personality = spec["personality"]
        npc.db.npc_duty = spec["duty"]
        npc.db.npc_headline = spec.get("headline", False)
        npc.db.npc_autonomous = False  # nobody walks off during the evaluation
        npcs[spec["key"]] = npc
    return rooms, npcs


def make_player(name: str, room):
    from evennia.utils import create

    return create.create_object("bench.eval_player.EvalPlayer", key=name, location=room)


def restart():
    """What a server restart drops: in-process caches, settings, the client, the object cache."""
    from evennia.utils.idmapper.models import flush_cache

    from omniira_evennia import conf
    from omniira_evennia.llm import client as llm
    from omniira_evennia.memory import store

    store.invalidate()
    conf.reset_settings()
    llm.reset_client()
    flush_cache()


def _refetch(obj):
    from evennia.objects.models import ObjectDB

    return ObjectDB.objects.get(id=obj.id)


def run_eval(
    scenarios: list[Scenario],
    data: dict,
    tiers: dict,
    extra_settings: dict | None = None,
    rollover: bool = True,
    newcomers: bool = True,
    log=print,
) -> dict:
    """Run the scenarios in the current (migrated, empty enough) database; return the report."""
    from django.conf import settings
    from django.test import override_settings

    from omniira_evennia import conf
    from omniira_evennia.llm import client as llm
    from omniira_evennia.memory import store
    from omniira_evennia.models import Memory
    from omniira_evennia.rollover import service as daily
    from omniira_evennia.runtime import health, runner
    from omniira_evennia.testing.testbed.simulate import game_clock

    omniira = dict(getattr(settings, "OMNIIRA", {}) or {})
    omniira.update(
        {
            "TIERS": tiers,
            "THINKING_DELAY": 0,
            "GOSSIP_INTERVAL_SECONDS": 0,
            "DECISION_TICK_SECONDS": 0,
        }
    )
    omniira.update(extra_settings or {})
    runner.run_inline(True)
    started = time.monotonic()
    with override_settings(OMNIIRA=omniira), game_clock() as clock:
        conf.reset_settings()
        llm.reset_client()
        store.invalidate()
        health.reset()
        fallbacks = {
            line.format(name=n)
            for line in conf.get_settings().FALLBACK_LINES
            for n in ("Maren", "Lyra", "Voss", "Wren")
        }
        driver = Driver(fallbacks)
        rooms, npcs = build_world()
        players = {s.id: make_player(s.player, npcs[s.npc].location) for s in scenarios}
        goodbye = data.get("goodbye", "Goodbye!")

        # 1. Day 1, evening: tell, then goodbye (the review runs).
        clock.set(1, 18)
        for number, s in enumerate(scenarios, 1):
            npc, player = npcs[s.npc], players[s.id]
            player.move_to(npc.location, quiet=True, move_type="teleport")
            for line in s.lines:
                r = driver.say(npc, player, line, s.id, "tell")
                raw = f" [raw: {r.raw!r}]" if r.fallback else ""
                log(f"  [{s.id}] {s.player}: {line}\n      {s.npc}: {r.reply} ({r.seconds}s){raw}")
            r = driver.say(npc, player, goodbye.format(npc=s.npc), s.id, "goodbye")
            log(f"  [{s.id}] goodbye -> {r.reply} ({r.seconds}s)")
            log(f"tell {number}/{len(scenarios)} done, {time.monotonic() - started:.0f}s")

        stored = {}
        for s in scenarios:
            rows = Memory.objects.filter(npc=npcs[s.npc], subject=players[s.id]).order_by("id")
            stored[s.id] = [
                {"key": m.key, "value": m.value, "source": m.source, "kind": m.kind} for m in rows
            ]
            for m in stored[s.id]:
                log(f"  [{s.id}] memory {m['source']} {m['key']}: {m['value']}")
        counters_tell = health.snapshot()

        # 2. The night: rollover, then a restart.
        rollover_summary = None
        if rollover:
            clock.set(1, 23)
            got = []
            daily.run_rollover(1, npcs=list(npcs.values())).addBoth(got.append)
            rollover_summary = got[0] if got and isinstance(got[0], dict) else str(got[:1])
            log(f"rollover: {rollover_summary}")
        restart()
        npcs = {k: _refetch(v) for k, v in npcs.items()}
        players = {k: _refetch(v) for k, v in players.items()}

        # 3. Day 2: each player asks, one question per fact.
        clock.set(2, 10)
        recalled = {}
        for number, s in enumerate(scenarios, 1):
            npc, player = npcs[s.npc], players[s.id]
            player.move_to(npc.location, quiet=True, move_type="teleport")
            recalled[s.id] = []
            for fact in s.facts:
                r = driver.say(npc, player, fact.question, s.id, "ask")
                # Brought back as the player's: claimed by the NPC as its own does not count.
                hit = matches(r.reply, fact.keys) and not role_confusions(r.reply, [fact])
                recalled[s.id].append(hit)
                log(
                    f"  [{s.id}] {s.player}: {fact.question}\n      {s.npc}: {r.reply} "
                    f"({r.seconds}s) {'RECALLED' if hit else 'missed'}"
                )
            player.move_to(rooms["tavern"], quiet=True, move_type="teleport")
            log(f"ask {number}/{len(scenarios)} done, {time.monotonic() - started:.0f}s")

        # 4. Newcomers ask about "their" facts: another player's must not come back as theirs.
        mixups = []
        if newcomers:
            names = data.get("newcomers", ["Quill"])
            questions = data.get("newcomer_questions", {})
            for number, (npc_name, npc) in enumerate(npcs.items()):
                told = [s for s in scenarios if s.npc == npc_name]
                categories = [
                    c for c in questions if any(f.category == c for s in told for f in s.facts)
                ]
                if not categories:
                    continue
                newcomer = make_player(names[number % len(names)], npc.location)
                for category in categories:
                    question = questions[category].format(npc=npc_name)
                    r = driver.say(npc, newcomer, question, f"newcomer-{npc_name}", "newcomer")
                    for s in told:
                        for fact in s.facts:
                            if fact.category != category or not matches(r.reply, fact.keys):
                                continue
                            if re.search(rf"\b{re.escape(s.player)}\b", r.reply, re.IGNORECASE):
                                continue  # told as someone else's news: gossip, not a mix-up
                            mixups.append(
                                {
                                    "npc": npc_name,
                                    "asker": newcomer.key,
                                    "question": question,
                                    "reply": r.reply,
                                    "fact_of": s.player,
                                    "scenario": s.id,
                                }
                            )
                            r.flags.append("mixup")
                    log(f"  [newcomer {newcomer.key}] {question}\n      {npc_name}: {r.reply}")
                newcomer.delete()
        counters = health.snapshot()
        total_seconds = time.monotonic() - started
    conf.reset_settings()
    llm.reset_client()
    return score(
        scenarios,
        driver,
        stored,
        recalled,
        mixups,
        counters,
        counters_tell,
        rollover_summary,
        total_seconds,
    )


def score(
    scenarios,
    driver,
    stored,
    recalled,
    mixups,
    counters,
    counters_tell,
    rollover_summary,
    total_seconds,
) -> dict:
    by_id = {s.id: s for s in scenarios}
    facts_total = sum(len(s.facts) for s in scenarios)
    facts_stored = 0
    per_scenario = []
    memory_classes: dict[str, int] = {}
    bad_memories = []
    placeholder_keys = []
    for s in scenarios:
        memories = [m for m in stored[s.id] if m["kind"] != "commitment"]
        stored_hits = [any(matches(m["value"], f.keys) for m in memories) for f in s.facts]
        facts_stored += sum(stored_hits)
        for m in memories:
            cls = classify_memory(m["value"], m["key"], s.player, s.npc, s.facts)
            memory_classes[cls] = memory_classes.get(cls, 0) + 1
            if cls != "fact":
                bad_memories.append({"scenario": s.id, "class": cls, **m})
            if is_placeholder_key(m["key"]):
                placeholder_keys.append(m["key"])
        per_scenario.append(
            {
                "id": s.id,
                "npc": s.npc,
                "player": s.player,
                "facts": len(s.facts),
                "stored": stored_hits,
                "recalled": recalled.get(s.id, []),
                "memories": stored[s.id],
            }
        )
    facts_recalled = sum(sum(v) for v in recalled.values())

    replies = driver.replies
    for r in replies:
        s = by_id.get(r.scenario)
        facts = s.facts if s else [f for x in scenarios if x.npc == r.npc for f in x.facts]
        if r.fallback:
            r.flags.append("fallback")
            continue
        if is_narration(r.reply, r.npc):
            r.flags.append("narration")
        confused = role_confusions(r.reply, facts)
        if confused:
            r.flags.append("role_confusion")
        lines_said = [x.said for x in replies if x.scenario == r.scenario and x.phase == r.phase]
        if is_echo(r.reply, lines_said, r.speaker):
            r.flags.append("echo")
        elif r.phase != "goodbye" and is_restatement(r.reply, [r.said]):
            r.flags.append("restated")
        earlier = []
        for x in replies:
            if x is r:
                break
            if x.scenario == r.scenario and x.speaker == r.speaker and x.phase == r.phase:
                earlier.append(x.reply)
        if is_repeat(r.reply, earlier):
            r.flags.append("repeat")
    n = len(replies)
    count = {
        flag: sum(flag in r.flags for r in replies)
        for flag in ("fallback", "narration", "role_confusion", "echo", "repeat", "restated")
    }
    seconds = [r.seconds for r in replies if not r.fallback]
    # The machine is shared: wall times move with other load. llama.cpp's own token counts
    # give a load-free estimate at this machine's idle speeds (FACTS.md: ~90 prompt tokens/s,
    # ~32 generated tokens/s on 2 cores).
    idle = [
        r.prompt_n / IDLE_PROMPT_TPS + r.predicted_n / IDLE_GEN_TPS
        for r in replies
        if not r.fallback and (r.prompt_n or r.predicted_n)
    ]
    stored_total = sum(memory_classes.values())
    invented = stored_total - memory_classes.get("fact", 0)
    summary = {
        "scenarios": len(scenarios),
        "facts": facts_total,
        "facts_stored": facts_stored,
        "facts_stored_pct": _pct(facts_stored, facts_total),
        "facts_recalled": facts_recalled,
        "facts_recalled_pct": _pct(facts_recalled, facts_total),
        "replies": n,
        "narration_pct": _pct(count["narration"], n),
        "role_confusion_pct": _pct(count["role_confusion"], n),
        "echoes": count["echo"],
        "repeated_pct": _pct(count["repeat"], n),
        "restated_pct": _pct(count["restated"], n),
        "fallback_pct": _pct(count["fallback"], n),
        "cross_player_mixups": len(mixups),
        "memories_stored": stored_total,
        "invented_or_trivial": invented,
        "invented_or_trivial_pct": _pct(invented, stored_total),
        "memory_classes": memory_classes,
        "placeholder_keys": len(placeholder_keys),
        "reply_median_s": round(statistics.median(seconds), 2) if seconds else None,
        "reply_p95_s": round(percentile(seconds, 95), 2) if seconds else None,
        "reply_idle_median_s": round(statistics.median(idle), 2) if idle else None,
        "reply_idle_p95_s": round(percentile(idle, 95), 2) if idle else None,
        "reply_prompt_tokens_median": (
            statistics.median([r.tokens_in for r in replies if r.tokens_in]) if n else None
        ),
        "review_median_s": (
            round(statistics.median(driver.review_seconds), 2) if driver.review_seconds else None
        ),
        "reply_tokens_median": (
            statistics.median([r.tokens_out for r in replies if r.tokens_out]) if n else None
        ),
        "total_minutes": round(total_seconds / 60, 1),
    }
    return {
        "summary": summary,
        "counters": counters,
        "counters_after_tell": counters_tell,
        "rollover": rollover_summary,
        "scenarios": per_scenario,
        "bad_memories": bad_memories,
        "mixups": mixups,
        "flagged_replies": [r.__dict__ for r in replies if r.flags],
        "replies": [r.__dict__ for r in replies],
    }


# ---------------------------------------------------------------- the model server


@contextlib.contextmanager
def local_model(threads: int = 2, ctx: int = 4096, base_url: str | None = None):
    """The packaged offline model on a free port (or `base_url`, a server already running)."""
    if base_url:
        yield base_url
        return
    from omniira_evennia.llm.local_model import free_port

    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "omniira_evennia.llm.local_model",
            "serve",
            "--port",
            str(port),
            "--threads",
            str(threads),
            "--ctx",
            str(ctx),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        cwd=ROOT,
    )
    deadline = time.monotonic() + 600  # the first run assembles and hashes 1.1 GB
    try:
        while True:
            if server.poll() is not None:
                raise RuntimeError("the local model server exited")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the local model server never became healthy")
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.terminate()
        server.wait(timeout=30)


def tiers_for(base_url: str, overrides: dict | None = None) -> dict:
    tiers = {}
    for name, tier in DEMO_TIERS.items():
        tiers[name] = {"base_url": base_url, "model": "local", **tier}
        tiers[name].update((overrides or {}).get(name, {}))
    return tiers


def rescore(path: Path) -> dict:
    """Score a stored run again with today's scoring (e.g. after a new measure was added)."""
    report = json.loads(path.read_text())
    scenarios, _ = load_scenarios()
    by_id = {s.id: s for s in scenarios}
    chosen = [by_id[s["id"]] for s in report["scenarios"]]
    driver = Driver(set())
    for raw in report["replies"]:
        fields = {k: v for k, v in raw.items() if k in Reply.__dataclass_fields__}
        fields["flags"] = [f for f in raw.get("flags", []) if f == "mixup"]
        driver.replies.append(Reply(**fields))
    stored = {s["id"]: s["memories"] for s in report["scenarios"]}
    recalled = {s["id"]: s["recalled"] for s in report["scenarios"]}
    old = report["summary"]
    again = score(
        chosen,
        driver,
        stored,
        recalled,
        report["mixups"],
        report["counters"],
        report["counters_after_tell"],
        report["rollover"],
        old["total_minutes"] * 60,
    )
    again["summary"]["review_median_s"] = old.get("review_median_s")
    report.update({k: again[k] for k in ("summary", "bad_memories", "flagged_replies", "replies")})
    path.write_text(json.dumps(report, indent=2))
    return report["summary"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-npc", type=int, default=None, help="scenarios per NPC (subset)")
    parser.add_argument("--only", default="", help="comma-separated scenario ids")
    parser.add_argument("--base-url", default=None, help="use a model server already running")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--ctx", type=int, default=4096)
    parser.add_argument("--label", default="", help="results go to dialogue_eval_<label>.json")
    parser.add_argument("--no-rollover", action="store_true")
    parser.add_argument(
        "--set", action="append", default=[], help="an OMNIIRA setting, KEY=JSON (repeatable)"
    )
    parser.add_argument(
        "--tier", action="append", default=[], help="a tier setting, tier.key=JSON (repeatable)"
    )
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--note", default="", help="what this run tries (kept in the run log)")
    parser.add_argument("--rescore", default="", help="score a stored result file again, no run")
    args = parser.parse_args()

    if args.rescore:
        print(json.dumps(rescore(Path(args.rescore)), indent=2))
        return
    extra = {}
    for item in args.set:
        key, _, value = item.partition("=")
        extra[key] = json.loads(value)
    tier_overrides: dict = {}
    for item in args.tier:
        path, _, value = item.partition("=")
        tier, _, key = path.partition(".")
        tier_overrides.setdefault(tier, {})[key] = json.loads(value)

    commit = _git_commit()  # the code the run starts with (later commits do not change it)
    scenarios, data = load_scenarios()
    scenarios = subset(scenarios, args.per_npc, [x for x in args.only.split(",") if x])
    tmp = tempfile.mkdtemp(prefix="omniira-dialogue-eval-")
    from bench.retrieval import setup_django

    setup_django("sqlite", tmp, "dialogue.db3")
    ensure_default_homes()
    print(f"{len(scenarios)} scenarios, database in {tmp}", flush=True)
    with local_model(args.threads, args.ctx, args.base_url) as url:
        report = run_eval(
            scenarios,
            data,
            tiers_for(url, tier_overrides),
            extra,
            rollover=not args.no_rollover,
            log=(lambda *a: None) if args.quiet else (lambda *a: print(*a, flush=True)),
        )
    report = {
        "benchmark": "dialogue_eval",
        "label": args.label or "current",
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "commit": commit,
        "machine": f"{os.cpu_count()} cores, Python {platform.python_version()}",
        "model": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf (llama.cpp via xllamacpp)",
        "threads": args.threads,
        "subset": bool(args.per_npc or args.only),
        "settings": extra,
        "tier_overrides": tier_overrides,
        **report,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    name = f"dialogue_eval_{args.label}.json" if args.label else "dialogue_eval.json"
    (RESULTS / name).write_text(json.dumps(report, indent=2))
    append_to_log(report, args.note)
    print(json.dumps(report["summary"], indent=2))


LOG = RESULTS / "dialogue_eval_log.json"


def append_to_log(report: dict, note: str = "") -> None:
    """Every run's summary, in order, so docs/benchmarks.md can show what each change did."""
    runs = json.loads(LOG.read_text()) if LOG.exists() else []
    runs.append(
        {
            key: report[key]
            for key in ("label", "date", "commit", "subset", "settings", "tier_overrides")
        }
        | {"note": note, "summary": report["summary"]}
    )
    LOG.write_text(json.dumps(runs, indent=2))


def ensure_default_homes() -> None:
    """
    Evennia's first start makes #1 and #2 (Limbo, the default home); objects need a home.
    Limbo first: a room made before it may be given #2 as its home, a foreign key that fails.
    """
    from evennia.objects.models import ObjectDB

    for home_id, key in ((2, "Limbo"), (1, "Home")):
        if not ObjectDB.objects.filter(id=home_id).exists():
            ObjectDB.objects.create(
                id=home_id, db_key=key, db_typeclass_path="evennia.objects.objects.DefaultRoom"
            )


def _git_commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return ""


if __name__ == "__main__":
    main()
