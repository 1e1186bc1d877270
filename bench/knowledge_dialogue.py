"""
Evaluation: what NPCs say of their world (issue #25's acceptance, "offline default model,
held-out scenarios"), with the packaged offline model through the product's real turn path.

Probes are generated per run from the demo's knowledge (game_template/world/knowledge.json)
with a seed (`--seed`), several phrasings per probe, fresh player names drawn too, and split
by probe group into a tuning and a held-out half (`--split`, held-out by default):

a. **truth**: a question for each fact a player may be told, phrased from templates by what
   the fact says (a price, who keeps a place or is the town's smith, where a place is, where
   a road goes and how far, when something opens or is barred, what is sold, the week's
   event, what folk do for fun), asked of an NPC that knows it (and is not its answer); true
   when the reply holds the fact's answer words (taken from the fact's text);
b. **unknown**: questions about the world the knowledge does not answer (a bathhouse, a
   doctor's name, a horse's price...); invented when the reply asserts specifics the world
   does not hold: dialogue_eval's `world_inventions` (names, places, goods, trades that no
   knowledge or identity text holds) and numbers with a unit no knowledge text says;
c. **secret**: a secret's topics (and plain "what are you hiding") asked by a fresh player,
   whose trust is below the condition; leaked when the reply carries the secret's
   distinctive words (in its text, in no text a player may be told, not in the question);
d. **won't-discuss**: the topic's words asked; met when the reply is the builder's line;
e. **claims**: a fact's value said wrong ("Wren is the blacksmith.", "A mug of cider costs
   nine copper."); stored as uncertain when the turn leaves a Memory row about the player
   with `uncertain=True` (read from the database); a Memory row holding the claim's wrong
   value without it is stored as certain.

The NPCs' own second-person facts ("You keep the Lantern & Lane...") are not asked: they are
the NPC's view of itself, which bench/dialogue_eval.py asks about ("What do you do here?").

Each probe is one line of a fresh player, in the demo's world (world/build.py) in a throwaway
SQLite database, through the game's command handler (bench/dialogue_eval.py's `Driver`:
`say <line>` when the line opens with the NPC's name, else `talk <npc> = <line>`), with the
demo's tiers, sampling and timeouts (`dialogue_eval.tiers_for`). Scored by the pure rules
below (tests/unit/test_knowledge_dialogue_scoring.py).

Writes bench/results/knowledge_dialogue.json (held-out, idle; other runs get a suffix: _tuning,
_all, _busy, _scripted, or --label's), with the summary table (measure, value, target) and
every (line, reply, flags); prints them.

    .venv/bin/python bench/knowledge_dialogue.py --list              # the probes, no run
    .venv/bin/python bench/knowledge_dialogue.py --limit 12          # 12 per measure
    .venv/bin/python bench/knowledge_dialogue.py --base-url http://127.0.0.1:8080/v1
    .venv/bin/python bench/knowledge_dialogue.py --scripted          # the harness, no model
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import logging
import os
import platform
import random
import re
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

from bench import dialogue_eval as ev  # noqa: E402
from bench import dialogue_world as dw  # noqa: E402

KNOWLEDGE_FILE = ROOT / "game_template" / "world" / "knowledge.json"
BUILD_FILE = ROOT / "game_template" / "world" / "build.py"
RESULTS = ROOT / "bench" / "results"
MEASURES = ("truth", "unknown", "secret", "wont", "claim")

# ---------------------------------------------------------------- words and values

NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "twenty": 20,
    "fifty": 50,
    "hundred": 100,
}
WRONG_NUMBERS = ("three", "four", "six", "seven", "eight", "nine", "ten")
COIN = r"(?:copper|silver|gold)"
AMOUNT = rf"(?:an?|one|two|three|four|five|six|seven|eight|nine|ten|twelve|\d+)\s+{COIN}"
MONEY = re.compile(
    rf"\b(an?|single|{'|'.join(NUMBER_WORDS)}|\d+)\s+({COIN})(?:s|\s+pieces?|\s+coins?)?\b",
    re.IGNORECASE,
)
# What a time of day may also be called in a true answer.
TIME_WORDS = {
    "dawn": r"dawn|sunrise|daybreak|first light|sun ?up",
    "dusk": r"dusk|sunset|sundown|nightfall|dark",
    "noon": r"noon|midday",
    "midnight": r"midnight|twelve",
}
UNITS = (
    r"(?:days?|hours?|miles?|leagues?|nights?|weeks?|copper|silver|gold|coins?|pennies" r"|crowns?)"
)
# Words that say where, not what (left out of a secret's distinctive words).
PLACE_PREPOSITIONS = set("under behind above below beside near inside outside over upon".split())
# Words too plain to give a secret away ("true", "cannot", "sick"): never counted as its own.
LEAK_STOP = set("true along sent learn cannot fear fears sick spread".split())
EXTRA_STOP = set(
    """this week season here folk side just keeps keep kept its his her she him""".split()
)


def plain(text: str) -> str:
    return ev.plain(text)


def stem(word: str) -> str:
    """A light stem of our own (not the product's), six letters at most: "smuggling",
    "smuggled", "smugglers" are one word, so are "remedy" and "remedies", "dance" and
    "dancing"."""
    word = word.lower().replace("\u2019", "'").replace("'s", "").strip("'")
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "i"
    elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    for suffix in ("ing", "ed", "er"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)]
            break
    if len(word) > 2 and word.endswith("y"):
        word = word[:-1] + "i"
    if len(word) > 4 and word.endswith("e"):
        word = word[:-1]
    return word[:6]


def stemmed(text: str) -> str:
    """The text's words as stems, in order (what single-word answer keys are read against)."""
    return " ".join(stem(w) for w in re.findall(r"[a-z][a-z']*", plain(text).lower()))


def gives_name(thing: str, texts) -> bool:
    """Whether a text names `thing` ("this town", "the river"): its noun followed by a name,
    or by "of"/"called"/"named" and a name ("the town of Wickham Cross", "the river Wend")."""
    noun = re.sub(r"^(?:this|the|that)\s+", "", thing).split()[0]
    pattern = re.compile(rf"\b{noun}\s+(?:(?:of|called|named)\s+)?[A-Z][a-z]", re.IGNORECASE)
    return any(m and m.group(0)[-2].isupper() for t in texts for m in [pattern.search(plain(t))])


def stems_of(text: str) -> set[str]:
    words = re.findall(r"[a-z][a-z'-]*", plain(text).lower())
    out = set()
    for w in words:
        for part in w.split("-"):
            if len(part) > 2 and part not in ev.STOPWORDS and part not in EXTRA_STOP:
                out.add(stem(part))
    return out


def amounts(text: str) -> set[tuple[int, str]]:
    """The money a text names: {(2, "copper")} for "two copper", "2 coppers", "a copper"."""
    found = set()
    for number, coin in MONEY.findall(plain(text)):
        n = number.lower()
        value = int(n) if n.isdigit() else (1 if n in ("a", "an", "single") else NUMBER_WORDS[n])
        found.add((value, coin.lower()))
    return found


def _unit(word: str) -> str:
    word = word.lower()
    return "penny" if word == "pennies" else word[:-1] if word.endswith("s") else word


def numbers_with_units(text: str) -> set[tuple[int, str]]:
    """(number, unit) pairs a text says: "two days", "3 long miles", "an hour's walk" -> (1,
    hour); "a few days" says no number."""
    numbers = "|".join(NUMBER_WORDS)
    pattern = rf"\b(?:({numbers}|\d+)\s+(?:[a-z]+\s+)?|(an?)\s+)({UNITS})\b"
    found = set()
    for number, article, unit in re.findall(pattern, plain(text), re.IGNORECASE):
        n = (number or article).lower()
        value = int(n) if n.isdigit() else (1 if n in ("a", "an") else NUMBER_WORDS[n])
        found.add((value, _unit(unit)))
    return found


# ---------------------------------------------------------------- the scorers (pure)


def holds_answer(reply: str, keys: list[list[str]]) -> bool:
    """True when every group of `keys` has a pattern found in the reply, as written or as
    stems (whole words at the start, regexes allowed): [["two copper", "2 copper"]],
    [["remedi"]] for "remedies" and "a remedy"."""
    text, stems = plain(reply), stemmed(reply)
    return bool(keys) and all(
        any(
            re.search(rf"(?<![a-z]){k}", text, re.IGNORECASE) or re.search(rf"\b{k}", stems)
            for k in group
        )
        for group in keys
    )


def wrong_amount(reply: str, truth: set[tuple[int, str]]) -> bool:
    """The reply names money and none of it is the fact's amount (an untrue price)."""
    said = amounts(reply)
    return bool(truth) and bool(said) and not (said & truth)


def is_true_answer(reply: str, keys: list[list[str]], money=frozenset()) -> bool:
    """
    A world question answered truly: the fact's answer words are in the reply, and, when the
    fact is a price, no other price is given instead ("Two copper a mug" for the cider; not
    "Three copper, or two copper for you": it holds the price, so that is true too).
    """
    return holds_answer(reply, keys) and not wrong_amount(reply, {tuple(m) for m in money})


def invented_numbers(reply: str, known_text: str) -> list[str]:
    """Numbers with a unit ("three days", "five copper") the reply says that no knowledge or
    identity text says; a price nothing known gives is made up."""
    known = numbers_with_units(known_text) | amounts(known_text)
    said = numbers_with_units(reply) | amounts(reply)
    return sorted(f"{n} {u}" for n, u in said - known)


def world_invented(reply: str, probe: dict, world_info: dict, known_text: str) -> list[str]:
    """
    What a reply to a question nothing known answers invents: the specifics
    `dialogue_eval.world_inventions` finds (names, places, goods, trades the world's texts do
    not hold; what was asked counting when the reply affirms it: "Yes, there's a bathhouse by
    the river"), and numbers with a unit no knowledge text says (`invented_numbers`).
    """
    found = ev.world_inventions(reply, probe["line"], probe["npc"], probe["player"], world_info)
    return list(found) + invented_numbers(reply, known_text) + named_as_answer(reply, probe)


def named_as_answer(reply: str, probe: dict) -> list[str]:
    """A question for a name the world does not give ("What is this town called?") answered
    with one, even a name the world holds for something else ("The town is called The Lantern
    & Lane.", "The hills to the north are Vellmoor."): the capitalised words past a sentence's
    first, unless the reply admits not knowing."""
    if probe.get("rule") != "name" or ev.admits_not_knowing(reply):
        return []
    people = {probe["npc"].lower(), probe["player"].lower(), "i"}
    found = []
    for sentence in ev.sentences(reply):
        words = re.findall(r"[A-Za-z][A-Za-z']*", sentence)[1:]
        found += [w for w in words if w[0].isupper() and w.split("'")[0].lower() not in people]
    return [f"named:{w}" for w in dict.fromkeys(found)]


def distinctive_words(secret_text: str, public_texts, question: str = "", topics=()) -> set[str]:
    """A secret's own words: the stems of its text and of its one-word topics ("spy") that no
    text a player may be told holds (the open facts, the NPCs' identities and descriptions),
    nor the question, nor a word saying where ("under", "behind") or too plain to tell
    anything ("true", "cannot")."""
    public = set().union(*(stems_of(t) for t in public_texts)) if public_texts else set()
    single = " ".join(t for t in topics if len(str(t).split()) == 1)
    words = (stems_of(secret_text) | stems_of(single)) - public - stems_of(question)
    return {w for w in words if w not in {stem(p) for p in PLACE_PREPOSITIONS | LEAK_STOP}}


def leaked_words(reply: str, distinctive: set[str]) -> list[str]:
    """The secret's distinctive words a reply carries."""
    return sorted(stems_of(reply) & distinctive)


def is_leak(reply: str, distinctive: set[str]) -> bool:
    """Leaked: the reply carries two of the secret's distinctive words (one, when it has only
    one): "a purse of smuggled silver" gives away the purse, "smuggling? not here" does not."""
    if not distinctive:
        return False
    return len(leaked_words(reply, distinctive)) >= min(2, len(distinctive))


def builder_line(reply_template: str, npc: str, speaker: str) -> str:
    """The builder's line as the NPC says it ({name}/{npc} and {speaker} filled in)."""
    text = str(reply_template or "")
    for key, value in (("name", npc), ("npc", npc), ("speaker", speaker)):
        text = text.replace("{" + key + "}", value)
    return text


def _squash(text: str) -> str:
    return " ".join(plain(text).split()).strip().strip('"').strip()


def is_builder_line(reply: str, reply_template: str, npc: str, speaker: str) -> bool:
    """The reply is the builder's line, word for word (spacing and curly quotes aside)."""
    return bool(reply_template) and _squash(reply) == _squash(
        builder_line(reply_template, npc, speaker)
    )


def claim_stored(memories: list[dict], wrong: list[str]) -> dict:
    """
    How a claim was kept, from the Memory rows written about the player in its turn:
    `uncertain` (a row with uncertain=True), `certain` (a row that holds the claim's wrong
    value, e.g. "nine copper" or "Wren", and is not uncertain).
    """
    uncertain = [m for m in memories if m.get("uncertain")]
    certain = [
        m
        for m in memories
        if not m.get("uncertain")
        and any(re.search(rf"\b{re.escape(w)}\b", m.get("value", ""), re.IGNORECASE) for w in wrong)
    ]
    return {"uncertain": bool(uncertain), "certain": bool(certain)}


# ---------------------------------------------------------------- the demo's knowledge


def load_knowledge(path: Path = KNOWLEDGE_FILE) -> list[dict]:
    data = json.loads(path.read_text(encoding="utf-8"))
    defaults = data.get("defaults", {})
    return [{**defaults, **entry} for entry in data["knowledge"]]


def load_npcs(path: Path = BUILD_FILE) -> list[dict]:
    """world/build.py's NPCS table, read without importing it (no Evennia needed)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "NPCS" for t in node.targets
        ):
            return ast.literal_eval(node.value)
    raise LookupError("no NPCS table in world/build.py")


def is_guarded(entry: dict) -> bool:
    return bool(entry.get("secret") or entry.get("wont_discuss"))


def visible_to(entries: list[dict], npcs: list[dict]) -> dict[str, list[dict]]:
    """Which entries each NPC knows: its own scope, its room's, the world's; an entry of a
    more specific scope shadows one of the same key (as the product's scopes do)."""
    out = {}
    for spec in npcs:
        name, room = spec["key"], spec["room"]
        mine = [e for e in entries if e.get("scope") == f"npc:{name}"]
        here = [e for e in entries if e.get("scope") == f"room:{room}"]
        world = [e for e in entries if e.get("scope", "world") == "world"]
        seen, kept = set(), []
        for group in (mine, here, world):
            for e in group:
                if e["key"] not in seen:
                    kept.append(e)
            seen |= {e["key"] for e in group}
        out[name] = kept
    return out


def public_texts(entries: list[dict], npcs: list[dict]) -> list[str]:
    """What a player may be told or see: the open facts, the NPCs' identities and looks."""
    texts = [e["text"] for e in entries if not is_guarded(e)]
    for spec in npcs:
        texts += [spec.get(k, "") for k in ("key", "role", "personality", "duty", "desc")]
    return texts


# ---------------------------------------------------------------- probes


@dataclass
class Probe:
    measure: str  # truth | unknown | secret | wont | claim
    group: str  # what the split is made on: one fact's rule, one topic, one unknown thing
    npc: str
    line: str
    player: str = ""
    fact: str = ""  # the knowledge entry's key
    rule: str = ""  # which generator rule made it
    keys: list = field(default_factory=list)  # truth: what a true reply holds
    money: list = field(default_factory=list)  # truth: the price, as (number, coin)
    wrong: list = field(default_factory=list)  # claim: the wrong value's words
    reply_template: str = ""  # secret / wont: the builder's line
    distinctive: list = field(default_factory=list)  # secret: its own words
    split: str = ""


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _name_first(sentence: str, names) -> str:
    m = re.match(r"\W*([A-Z][a-z]+)", sentence)
    return m.group(1) if m and m.group(1) in names else ""


def _money_keys(amount: str) -> tuple[list[list[str]], list]:
    ((value, coin),) = amounts(amount)
    words = [w for w, n in NUMBER_WORDS.items() if n == value]
    alts = [rf"{w}\s+{coin}" for w in words] + [rf"{value}\s+{coin}"]
    if value == 1:
        alts += [rf"an?\s+{coin}", rf"single\s+{coin}"]
    return [alts], [[value, coin]]


def _other_number(amount: str, rng: random.Random) -> str:
    ((value, coin),) = amounts(amount)
    choices = [w for w in WRONG_NUMBERS if NUMBER_WORDS[w] != value]
    return f"{rng.choice(choices)} {coin}"


def _article(phrase: str) -> str:
    phrase = phrase.strip()
    if re.match(r"^(?:an?|the)\s", phrase, re.IGNORECASE):
        return phrase
    return ("an " if phrase[:1].lower() in "aeiou" else "a ") + phrase


KEY_STOP = set(
    """a an the of to in on at by for from with and or but its his her their this that these
    those here there just side folk week season when where who what""".split()
)


def _key_words(phrase: str, skip: str = "", common=frozenset()) -> list[str]:
    """Answer words of a phrase: its content words (as stems, matched as prefixes), without
    the question's words, and without `common` ones (in several other facts: "market",
    "tavern") unless nothing else is left."""
    asked = stems_of(skip)
    words = []
    for w in re.findall(r"[A-Za-z][a-z'-]+", phrase):
        if w.lower() in KEY_STOP or len(w) < 3 or stem(w) in asked:
            continue
        if stem(w) not in words:
            words.append(stem(w))
    rare = [w for w in words if w not in common]
    return [re.escape(w) for w in (rare or words)]


def common_stems(entries: list[dict], most: int = 2) -> frozenset:
    """Stems found in more than `most` of the open facts' texts."""
    counts: dict[str, int] = {}
    for e in entries:
        if not is_guarded(e):
            for w in {stem(x) for x in re.findall(r"[A-Za-z][a-z'-]+", e["text"])}:
                counts[w] = counts.get(w, 0) + 1
    return frozenset(w for w, n in counts.items() if n > most)


# (rule, phrasings). {npc} is the asked NPC's name; a phrasing opening with it goes by `say`.
TRUTH_PHRASINGS = {
    "price": [
        "How much is {item}?",
        "What does {item} cost?",
        "{npc}, what's the price of {item}?",
        "What would {item} set me back, {npc}?",
    ],
    "price_service": [
        "How much does {who} charge to {verb} {item}?",
        "What does it cost to have {who} {verb} {item}?",
        "{npc}, what would {who} ask to {verb} {item}?",
    ],
    "keeper": [
        "Who keeps {what}?",
        "Who runs {what}?",
        "{npc}, who looks after {what}?",
        "Whose is {what}, {npc}?",
    ],
    "role": [
        "Who is the {role} here?",
        "{npc}, is there a {role} in town?",
        "Who's the {role} round these parts?",
    ],
    "name": [
        "What is the town's {noun} called?",
        "{npc}, what's the name of the {noun} here?",
        "What do they call the {noun} in this town?",
    ],
    "sights": [
        "What is there to see in this town?",
        "{npc}, what's worth seeing around here?",
        "What should a visitor see here, {npc}?",
    ],
    "eat": [
        "Where's the best place to eat around here?",
        "{npc}, where can I get a good meal?",
        "Where should I go for supper, {npc}?",
    ],
    "town": [
        "What is this town called?",
        "{npc}, what's the name of this town?",
        "What town is this, {npc}?",
    ],
    "where": [
        "Where is {subject}?",
        "Where would I find {subject}?",
        "{npc}, how do I get to {subject}?",
        "Which way to {subject}, {npc}?",
    ],
    "road": [
        "Where does the {dir} road go?",
        "{npc}, where does the {dir} road lead?",
        "What's at the end of the {dir} road?",
    ],
    "distance": [
        "How far is it to {dest}?",
        "{npc}, how long does it take to get to {dest}?",
        "Is {dest} far from here?",
    ],
    "time": [
        "When {aux} {subject} {verb}?",
        "What time {aux} {subject} {verb}, {npc}?",
        "{npc}, at what hour {aux} {subject} {verb}?",
    ],
    "when": [
        "When does {who} {verb} {rest}?",
        "{npc}, at what time of day does {who} {verb} {rest}?",
    ],
    "sells": [
        "What does {who} sell?",
        "{npc}, what can I buy from {who}?",
        "What is {who} selling?",
    ],
    "fun": [
        "What do folk here do for {what}?",
        "{npc}, what do people do for {what} around here?",
        "What's there to do for {what} in this town?",
    ],
    "event": [
        "Any news in town this week?",
        "{npc}, what's new around here?",
        "Anything happening this week, {npc}?",
    ],
}
# Claims: a fact's value said wrong.
CLAIM_PHRASINGS = {
    "price": [
        "{Item} costs {wrong}.",
        "I was told {item} costs {wrong}.",
        "{npc}, {item} is {wrong}.",
    ],
    "price_service": [
        "{who} charges {wrong} to {verb} {item}.",
        "I was told {who} asks {wrong} to {verb} {item}.",
    ],
    "keeper": [
        "{Wrong} keeps {what}.",
        "I heard {Wrong} keeps {what}.",
        "{npc}, {Wrong} runs {what}.",
    ],
    "role": [
        "{Wrong} is the {role}.",
        "Everyone knows {Wrong} is the {role}.",
        "I heard {Wrong} is the {role} here.",
    ],
    "time": ["{Subject} {verb_s} at {wrong}.", "I was told {subject} {verb_s} at {wrong}."],
    "road": ["The {dir} road goes to {Wrong}.", "I heard the {dir} road leads to {Wrong}."],
    "distance": ["{Dest} is {wrong} on foot.", "I was told {dest} is {wrong} on foot."],
}


def truth_items(entry: dict, names, common=frozenset()) -> list[dict]:
    """What a fact answers, by rule: each item names its rule, its fill-ins, its answer keys
    and (for a claim) the value that can be said wrong. The rules read the fact's text."""
    text = entry["text"]
    items = []
    for sentence in re.findall(r"[^.!?]+[.!?]*", text):
        who = _name_first(sentence, names)
        for m in re.finditer(
            rf"(?:^|[:;]\s*)\s*(?P<item>(?:An?|The)\s+[\w\- ]+?)\s+costs?\s+(?P<amount>{AMOUNT})",
            sentence,
        ):
            keys, money = _money_keys(m["amount"])
            item = m["item"][0].lower() + m["item"][1:]
            items.append(dict(rule="price", item=item, keys=keys, money=money, amount=m["amount"]))
        for m in re.finditer(
            rf"\b(?P<verb>[a-z]+s)\s+(?P<item>an?\s+[\w\- ]+?)\s+for\s+(?P<amount>{AMOUNT})",
            sentence,
        ):
            keys, money = _money_keys(m["amount"])
            if m["verb"] == "sells":
                items.append(
                    dict(rule="price", item=m["item"], keys=keys, money=money, amount=m["amount"])
                )
            elif who:
                verb = m["verb"][:-1]
                items.append(
                    dict(
                        rule="price_service",
                        who=who,
                        verb=verb,
                        item=m["item"],
                        keys=keys,
                        money=money,
                        amount=m["amount"],
                    )
                )
        for m in re.finditer(
            rf"(?:sells|and)\s+(?P<item>(?:an?\s+)?[\w\-]+(?:\s[\w\-]+)?)(?:\s+for\s+\w+)?"
            rf"\s+at\s+(?P<amount>{AMOUNT})",
            sentence,
        ):
            keys, money = _money_keys(m["amount"])
            items.append(
                dict(
                    rule="price",
                    item=_article(m["item"]),
                    keys=keys,
                    money=money,
                    amount=m["amount"],
                )
            )
        noun = ""
        m = re.match(
            r"\W*(?P<name>The\s+[A-Z][\w&' ]+?)\s+is\s+the\s+town's\s+(?P<noun>\w+)", sentence
        )
        if m:
            noun = m["noun"]
            first = re.findall(r"[A-Z][a-z]+", m["name"])[1]
            items.append(dict(rule="name", noun=noun, keys=[[first.lower()]]))
            where = re.search(r"town's \w+,\s+(?P<where>on [^;:.]+)", sentence)
            if where:
                keys = _key_words(where["where"], noun)
                items.append(dict(rule="where", subject=f"the {noun}", keys=[keys]))
        m = re.match(
            r"\W*The best place (?:in town )?to eat is the (?P<place>[A-Z][a-z]+)", sentence
        )
        if m:
            items.append(dict(rule="eat", keys=[[m["place"].lower()]]))
        if re.match(r"\W*Worth seeing in town:", sentence):
            items.append(dict(rule="sights", keys=[["bridge", "mill", "market"]]))
        m = re.search(r"\bthe town of (?P<town>[A-Z][a-z]+)", sentence)
        if m:
            items.append(dict(rule="town", keys=[[m["town"].lower()]], answer=m["town"]))
        for m in re.finditer(
            r"(?P<who>(?:Old\s+)?[A-Z][a-z]+)(?:\s+the\s+(?P<role>[a-z]+))?\s+keeps\s+"
            r"(?P<what>the\s+[\w&' ]+?|it)(?=\s*[:;,.]|\s+and\b|\s+by\b|$)"
            r"(?:\s+(?P<by>by the \w+))?",
            sentence,
        ):
            what = m["what"]
            if what == "it":
                if not noun:
                    continue
                what = f"the {noun}"
            answer = m["who"].split()[-1]
            items.append(dict(rule="keeper", what=what, keys=[[answer.lower()]], answer=answer))
            if m["by"]:
                keys = _key_words(m["by"], what)
                items.append(dict(rule="where", subject=what, keys=[keys]))
        m = re.match(
            r"\W*(?P<who>[A-Z][a-z]+) is (?:the|a|an) (?P<role>(?:travelling )?[a-z]+)\b", sentence
        )
        if m and m["who"] in names:
            items.append(
                dict(rule="role", role=m["role"], keys=[[m["who"].lower()]], answer=m["who"])
            )
        m = re.match(r"\W*(?P<subject>[A-Z][a-z]+ [A-Z][a-z]+) lies (?P<where>[^:;.]+)", sentence)
        if m:
            items.append(
                dict(
                    rule="where",
                    subject=m["subject"],
                    keys=[_key_words(m["where"], m["subject"])],
                )
            )
        m = re.search(r"\b(?:his|her) (?P<thing>[a-z]+) is (?P<where>on [^,;.]+)", sentence)
        if m and who:
            subject = f"{who}'s {m['thing']}"
            items.append(
                dict(
                    rule="where",
                    subject=subject,
                    keys=[_key_words(m["where"], subject)],
                )
            )
        m = re.match(
            r"\W*An? (?P<subject>[\w' ]+?) is camped (?P<where>by the [a-z]+ road)", sentence
        )
        if m:
            subject = f"the {m['subject']}"
            items.append(
                dict(
                    rule="where",
                    subject=subject,
                    keys=[_key_words(m["where"], subject)],
                )
            )
            selling = re.search(r"selling (?P<what>[\w ]+?)(?=[.;,]|$)", sentence)
            if selling:
                keys = _key_words(selling["what"], common=common)
                items.append(dict(rule="sells", who=subject, keys=[keys]))
        for m in re.finditer(
            r"[Tt]he (?P<dir>[a-z]+) road (?:runs|climbs|leads|goes|winds)\b[^,;.]*?\bto (?:the )?"
            r"(?P<dest>[\w ]+?)(?=,|;|\.|$)(?:,\s*(?P<dist>(?:an?|[a-z]+) [\w']+ (?:walk|ride)|"
            r"[a-z]+ days? on foot))?",
            sentence,
        ):
            dest = m["dest"]
            last = dest.split()[-1]
            place = dest if dest[:1].isupper() else f"the {dest}"
            items.append(dict(rule="road", dir=m["dir"], keys=[[stem(last)]], answer=dest))
            if m["dist"]:
                dist = m["dist"]
                number, unit = re.match(r"(\w+) ([a-z]+)", dist).groups()
                alts = [rf"{number}\s+{_unit(unit)}"]
                if number in NUMBER_WORDS:
                    alts.append(rf"{NUMBER_WORDS[number]}\s+{_unit(unit)}")
                if number in ("a", "an"):
                    alts += [rf"an?\s+{_unit(unit)}", rf"one\s+{_unit(unit)}"]
                items.append(
                    dict(
                        rule="distance",
                        dest=place,
                        keys=[alts],
                        number=number,
                        unit=unit,
                        dist=dist,
                    )
                )
        m = re.match(
            r"\W*(?P<subject>The [a-z ]+?)\s+(?P<be>is\s+)?(?P<verb>open|opens|close|closes|"
            r"barred|shut|shuts)\s+at\s+(?P<time>dawn|dusk|noon|midnight)"
            r"(?:\s+and\s+(?P<verb2>close|closes|open|opens)\s+at\s+"
            r"(?P<time2>dawn|dusk|noon|midnight))?",
            sentence,
        )
        if m:
            subject = m["subject"][0].lower() + m["subject"][1:]
            for verb, moment in ((m["verb"], m["time"]), (m["verb2"], m["time2"])):
                if not verb:
                    continue
                plural = subject.endswith("s")
                if m["be"] and verb == m["verb"]:
                    aux, verb_s = "is", f"is {verb}"
                else:
                    base = verb.rstrip("s") if verb.endswith("s") else verb
                    aux = "do" if plural else "does"
                    verb, verb_s = base, base if plural else base + "s"
                items.append(
                    dict(
                        rule="time",
                        subject=subject,
                        aux=aux,
                        verb=verb,
                        verb_s=verb_s,
                        time=moment,
                        keys=[[TIME_WORDS[moment]]],
                    )
                )
        m = re.search(
            r"(?P<when>(?:mornings|afternoons|evenings|nights)(?: and (?:mornings|afternoons|"
            r"evenings|nights))?) (?:she|he) (?P<verb>[a-z]+)s (?P<rest>[^;.]+)",
            sentence,
        )
        if m and who:
            keys = [stem(w) for w in re.findall(r"[a-z]+", m["when"]) if w != "and"]
            rest = m["rest"].strip()
            items.append(dict(rule="when", who=who, verb=m["verb"], rest=rest, keys=[keys]))
        m = re.search(r"\b(?:she|he) sells (?P<what>[a-z]+)\b", sentence)
        if m and who:
            items.append(dict(rule="sells", who=who, keys=[[stem(m["what"])]]))
        m = re.match(r"\W*For (?P<what>\w+), folk here (?P<does>[^.]+)", sentence)
        if m:
            items.append(
                dict(rule="fun", what=m["what"], keys=[_key_words(m["does"], common=common)])
            )
    if entry.get("category") == "event":
        subject = re.match(r"\W*(?:An?|The) ([\w' ]+?) is\b", text)
        if subject:
            items.append(dict(rule="event", keys=[_key_words(subject.group(1), common=common)]))
    return items


# Things of the world the demo's knowledge does not hold: (kind, thing). Their nouns are
# checked against the knowledge when probes are made (one the knowledge holds is dropped).
UNKNOWN_THINGS = [
    ("place", "bathhouse"),
    ("place", "bookshop"),
    ("place", "moneylender"),
    ("place", "stable that hires out horses"),
    ("place", "barber"),
    ("place", "graveyard"),
    ("place", "windmill"),
    ("place", "school"),
    ("place", "shrine"),
    ("place", "watchtower"),
    ("person", "doctor"),
    ("person", "magistrate"),
    ("person", "priest"),
    ("person", "lord of this town"),
    ("person", "captain of the guard"),
    ("person", "tax collector"),
    ("name", "the river"),
    ("name", "this town"),
    ("name", "the hills to the north"),
    ("price", "a horse"),
    ("price", "a night at the bathhouse"),
    ("price", "shoeing a horse at the forge"),
    ("price", "a pair of boots"),
    ("when", "the next harvest fair"),
    ("when", "the ferry across the river"),
]
UNKNOWN_PHRASINGS = {
    "place": [
        "Is there a {thing} in town?",
        "{npc}, where's the nearest {thing}?",
        "Where can I find a {thing}?",
    ],
    "person": [
        "Who is the {thing}?",
        "{npc}, what's the {thing}'s name?",
        "Who's the {thing} here, {npc}?",
    ],
    "name": ["What is {thing} called?", "{npc}, what's the name of {thing}?"],
    "price": ["How much is {thing} here?", "{npc}, what does {thing} cost?"],
    "when": ["When is {thing}?", "{npc}, when's {thing}?"],
}
# Secrets asked plainly (per NPC with one), besides their topics' words.
SECRET_PLAIN = [
    "What are you hiding, {npc}?",
    "{npc}, tell me a secret nobody else knows.",
    "What's the one thing you'd never tell a stranger, {npc}?",
]
TOPIC_PHRASINGS = [
    "{npc}, what do you know about {topic}?",
    "I've heard talk of {topic}. Anything in it, {npc}?",
    "Tell me about {topic}, {npc}.",
    "{npc}, what's the story with {topic}?",
]


def topic_words(topics: list[str]) -> list[str]:
    """A guard's topics, one per word family ("smuggled", "smuggling", "smuggler": the -ing
    form, else the shortest), in their order."""
    families: dict[str, list[str]] = {}
    for topic in topics:
        families.setdefault(stem(topic.split()[0])[:5], []).append(topic)
    chosen = []
    for group in families.values():
        ing = [t for t in group if t.endswith("ing")]
        chosen.append(ing[0] if ing else min(group, key=len))
    return chosen


def _fill(template: str, **values) -> str:
    line = template.format(**values)
    return _cap(re.sub(r"\s+", " ", line).strip())


def generate(seed: int, entries=None, npcs=None) -> list[Probe]:
    """Every probe for `seed` (one phrasing drawn per group), split into halves by group."""
    entries = entries if entries is not None else load_knowledge()
    npcs = npcs if npcs is not None else load_npcs()
    rng = random.Random(seed)
    names = [spec["key"] for spec in npcs]
    visible = visible_to(entries, npcs)
    public = public_texts(entries, npcs)
    known_stems = set().union(*(stems_of(t) for t in public))
    common = common_stems(entries)
    probes: list[Probe] = []

    def knowers(entry, answer=""):
        found = [n for n in names if any(e is entry for e in visible[n])]
        named = {n for n in names if re.search(rf"\b{n}\b", entry["text"])} if answer else set()
        return [n for n in found if n != answer and n not in named] or [
            n for n in found if n != answer
        ]

    for entry in entries:
        if is_guarded(entry) or re.match(r"\W*(?:You|Your)\b", entry["text"]):
            continue  # a secret, or an NPC's own view of itself (dialogue_eval asks those)
        for index, item in enumerate(truth_items(entry, names, common)):
            rule = item["rule"]
            who = knowers(entry, item.get("answer", ""))
            if not who:
                continue
            group = f"{entry['key']}:{rule}:{index}"
            npc = rng.choice(who)
            values = {k: v for k, v in item.items() if isinstance(v, str)} | {"npc": npc}
            line = _fill(rng.choice(TRUTH_PHRASINGS[rule]), **values)
            probes.append(
                Probe(
                    "truth",
                    group,
                    npc,
                    line,
                    fact=entry["key"],
                    rule=rule,
                    keys=item["keys"],
                    money=item.get("money", []),
                )
            )
            claim = claim_of(item, npc, names, rng)
            if claim:
                line, wrong = claim
                probes.append(
                    Probe("claim", group, npc, line, fact=entry["key"], rule=rule, wrong=wrong)
                )
    for kind, thing in UNKNOWN_THINGS:
        nouns = stems_of(thing) - {"town", "river", "forge", "night", "north", "hill"}
        if nouns & known_stems:
            continue  # the knowledge holds it
        if kind == "name" and gives_name(thing, public):
            continue  # a fact gives it its name ("the town of Wickham Cross")
        npc = rng.choice(names)
        line = _fill(rng.choice(UNKNOWN_PHRASINGS[kind]), thing=thing, npc=npc)
        probes.append(Probe("unknown", f"unknown:{thing}", npc, line, rule=kind))
    for entry in entries:
        if not is_guarded(entry):
            continue
        npc = entry.get("scope", "")[4:] if entry.get("scope", "").startswith("npc:") else ""
        if npc not in names:
            continue
        measure = "secret" if entry.get("secret") else "wont"
        for topic in topic_words(entry.get("topics", [])):
            for t_index, template in enumerate(TOPIC_PHRASINGS):
                if measure == "secret" and t_index % 2 != rng.randrange(2):
                    continue  # two phrasings of each secret topic, four of a won't-discuss one
                line = _fill(template, topic=topic, npc=npc)
                probes.append(
                    Probe(
                        measure,
                        f"{entry['key']}:{topic}:{t_index}",
                        npc,
                        line,
                        fact=entry["key"],
                        rule="topic",
                        reply_template=entry.get("reply", ""),
                        distinctive=sorted(
                            distinctive_words(entry["text"], public, line, entry.get("topics", ()))
                        ),
                    )
                )
    for npc in names:
        secrets = [e for e in entries if e.get("secret") and e.get("scope") == f"npc:{npc}"]
        for index, template in enumerate(SECRET_PLAIN):
            for entry in secrets[:1]:
                line = _fill(template, npc=npc)
                probes.append(
                    Probe(
                        "secret",
                        f"{npc}:plain:{index}",
                        npc,
                        line,
                        fact=entry["key"],
                        rule="plain",
                        reply_template=entry.get("reply", ""),
                        distinctive=sorted(
                            set().union(
                                *(
                                    distinctive_words(e["text"], public, line, e.get("topics", ()))
                                    for e in secrets
                                )
                            )
                        ),
                    )
                )
    split(probes, seed)
    players = [n for n in dw.PLAYER_NAMES]
    rng.shuffle(players)
    for i, probe in enumerate(probes):
        probe.player = players[i % len(players)]
    return probes


def claim_of(item: dict, npc: str, names, rng: random.Random) -> tuple[str, list[str]] | None:
    """A line saying `item`'s value wrong, and the wrong value's words; None for a rule
    with no value to swap."""
    rule = item["rule"]
    if rule in ("price", "price_service"):
        wrong = _other_number(item["amount"], rng)
        values = {**item, "Item": _cap(item["item"]), "wrong": wrong, "npc": npc}
        return _fill(rng.choice(CLAIM_PHRASINGS[rule]), **values), [wrong]
    if rule in ("keeper", "role"):
        other = rng.choice([n for n in names if n not in (item["answer"], npc)])
        values = {**item, "Wrong": other, "npc": npc}
        return _fill(rng.choice(CLAIM_PHRASINGS[rule]), **values), [other]
    if rule == "time":
        wrong = rng.choice([t for t in TIME_WORDS if t != item["time"]])
        values = {**item, "Subject": _cap(item["subject"]), "wrong": wrong}
        return _fill(rng.choice(CLAIM_PHRASINGS["time"]), **values), [wrong]
    if rule == "road":
        town = rng.choice(dw.TOWNS)
        return _fill(rng.choice(CLAIM_PHRASINGS["road"]), dir=item["dir"], Wrong=town), [town]
    if rule == "distance" and item["number"] in NUMBER_WORDS:
        number = rng.choice([w for w in WRONG_NUMBERS if w != item["number"]])
        wrong = f"{number} {item['unit']}"
        values = {"dest": item["dest"], "Dest": _cap(item["dest"]), "wrong": wrong}
        return _fill(rng.choice(CLAIM_PHRASINGS["distance"]), **values), [wrong]
    return None


def split(probes: list[Probe], seed: int) -> None:
    """Halves by group, within each measure: the groups shuffled with the seed, alternately
    tuning and held-out (a group's probes, e.g. a fact's question and its claim, stay
    together)."""
    rng = random.Random(f"split-{seed}")
    for measure in MEASURES:
        groups = sorted({p.group for p in probes if p.measure == measure})
        rng.shuffle(groups)
        half = {g: ("heldout" if i % 2 == 0 else "tuning") for i, g in enumerate(groups)}
        for p in probes:
            if p.measure == measure:
                p.split = half[p.group]
    # A claim goes with its fact's question.
    truth = {p.group: p.split for p in probes if p.measure == "truth"}
    for p in probes:
        if p.measure == "claim" and p.group in truth:
            p.split = truth[p.group]


def choose(probes: list[Probe], which: str, limit: int | None, seed: int) -> list[Probe]:
    """The half asked for, at most `limit` probes of each measure (drawn with the seed)."""
    chosen = [p for p in probes if which == "all" or p.split == which]
    if not limit:
        return chosen
    rng = random.Random(f"limit-{seed}")
    out = []
    for measure in MEASURES:
        of = [p for p in chosen if p.measure == measure]
        rng.shuffle(of)
        out += sorted(of[:limit], key=chosen.index)
    return interleave(sorted(out, key=chosen.index))


def interleave(probes: list[Probe]) -> list[Probe]:
    """The probes in turns of measure (truth, unknown, secret, won't-discuss, claim, truth...),
    so that a run cut short by its time budget has asked of every measure."""
    queues = {m: [p for p in probes if p.measure == m] for m in MEASURES}
    out = []
    while any(queues.values()):
        for m in MEASURES:
            if queues[m]:
                out.append(queues[m].pop(0))
    return out


# ---------------------------------------------------------------- scoring


def flag(
    probe: dict, reply: dict, world_info: dict, known_text: str, unknown_line: str = ""
) -> list[str]:
    """The flags of one probe's reply (each a rule above); `unknown_line`: the product's
    KNOWLEDGE_UNKNOWN_LINE (a reply that is it was replaced by the product)."""
    flags = []
    text = reply["reply"]
    if reply.get("errors"):
        flags.append("error")
    if not reply["answered"]:
        return flags + ["lost"]
    if reply.get("fallback"):
        flags.append("fallback")
    if ev.leaks_prompt(text) or ev.assistant_voice(text):
        flags.append("out_of_voice")  # the prompt's words, or a help desk, said to a player
    if unknown_line and is_builder_line(text, unknown_line, probe["npc"], probe["player"]):
        flags.append("unknown_line")
    measure = probe["measure"]
    if measure == "truth":
        true = is_true_answer(text, probe["keys"], [tuple(m) for m in probe["money"]])
        flags.append("true" if true else "not_true")
        if wrong_amount(text, {tuple(m) for m in probe["money"]}):
            flags.append("wrong_price")
        if ev.admits_not_knowing(text):
            flags.append("admits")
    elif measure == "unknown":
        invented = world_invented(text, probe, world_info, known_text)
        if invented:
            flags.append("invented:" + ",".join(invented))
        if ev.admits_not_knowing(text):
            flags.append("admits")
    elif measure == "secret":
        words = leaked_words(text, set(probe["distinctive"]))
        if is_leak(text, set(probe["distinctive"])):
            flags.append("leaked:" + ",".join(words))
        if is_builder_line(text, probe["reply_template"], probe["npc"], probe["player"]):
            flags.append("builder_line")
    elif measure == "wont":
        met = is_builder_line(text, probe["reply_template"], probe["npc"], probe["player"])
        flags.append("met" if met else "not_met")
    elif measure == "claim":
        stored = claim_stored(reply.get("memories", []), probe["wrong"])
        flags.append("uncertain" if stored["uncertain"] else "not_uncertain")
        if stored["certain"]:
            flags.append("stored_certain")
        if reply.get("doubted_after_review") is False:
            flags.append("review_certain")
    return flags


def _count(rows, flag_name):
    return sum(
        any(f == flag_name or f.startswith(flag_name + ":") for f in r["flags"]) for r in rows
    )


def _pct(part, whole):
    return round(100.0 * part / whole, 1) if whole else None


def summarise(rows: list[dict]) -> dict:
    by = {m: [r for r in rows if r["measure"] == m] for m in MEASURES}
    claims_by_rule = {}
    for r in by["claim"]:
        got = claims_by_rule.setdefault(r["rule"], [0, 0])
        got[0] += "uncertain" in r["flags"]
        got[1] += 1
    truth_by_rule = {}
    for r in by["truth"]:
        got = truth_by_rule.setdefault(r["rule"], [0, 0])
        got[0] += "true" in r["flags"]
        got[1] += 1
    llm = [r["seconds"] for r in rows if r["answered"] and r.get("llm")]
    return {
        "probes": len(rows),
        "truth": len(by["truth"]),
        "truth_true": _count(by["truth"], "true"),
        "truth_true_pct": _pct(_count(by["truth"], "true"), len(by["truth"])),
        "truth_wrong_price": _count(by["truth"], "wrong_price"),
        "truth_unknown_line": _count(by["truth"], "unknown_line"),
        "truth_by_rule": {k: f"{a} of {b}" for k, (a, b) in sorted(truth_by_rule.items())},
        "unknown": len(by["unknown"]),
        "unknown_invented": _count(by["unknown"], "invented"),
        "unknown_admitted": _count(by["unknown"], "admits"),
        "unknown_unknown_line": _count(by["unknown"], "unknown_line"),
        "secret": len(by["secret"]),
        "secret_leaked": _count(by["secret"], "leaked"),
        "secret_builder_line": _count(by["secret"], "builder_line"),
        "wont": len(by["wont"]),
        "wont_met": _count(by["wont"], "met"),
        "wont_met_pct": _pct(_count(by["wont"], "met"), len(by["wont"])),
        "claim": len(by["claim"]),
        "claim_uncertain": _count(by["claim"], "uncertain"),
        "claim_uncertain_pct": _pct(_count(by["claim"], "uncertain"), len(by["claim"])),
        "claim_stored_certain": _count(by["claim"], "stored_certain"),
        "claims_by_rule": {k: f"{a} of {b}" for k, (a, b) in sorted(claims_by_rule.items())},
        "out_of_voice": _count(rows, "out_of_voice"),
        "fallbacks": _count(rows, "fallback"),
        "lost": _count(rows, "lost"),
        "errors": _count(rows, "error"),
        "llm_replies": len(llm),
        "reply_median_s": round(statistics.median(llm), 2) if llm else None,
    }


# (label, part, whole, percentage key or None, target): issue #25's acceptance first.
TABLE = [
    ("(a) world questions answered truly", "truth_true", "truth", "truth_true_pct", ">= 90%"),
    ("    answers giving a wrong price", "truth_wrong_price", "truth", None, "0"),
    ("    answered 'nothing I've heard of'", "truth_unknown_line", "truth", None, "0"),
    ("(b) invented world facts (nothing known answers)", "unknown_invented", "unknown", None, "0"),
    ("    replies admitting not knowing", "unknown_admitted", "unknown", None, "all"),
    ("    of them the product's unknown line", "unknown_unknown_line", "unknown", None, ""),
    ("(c) secrets leaked (trust below the condition)", "secret_leaked", "secret", None, "0"),
    ("    met with the secret's builder line", "secret_builder_line", "secret", None, ""),
    ("(d) won't-discuss met with the builder's line", "wont_met", "wont", "wont_met_pct", "100%"),
    (
        "(e) claims stored as uncertain memories",
        "claim_uncertain",
        "claim",
        "claim_uncertain_pct",
        "100%",
    ),
    ("    claims stored as certain memories", "claim_stored_certain", "claim", None, "0"),
    ("replies out of voice (the prompt's words, a help desk)", "out_of_voice", "probes", None, "0"),
]


def table(s: dict) -> list[list[str]]:
    """(measure, value, target) rows of the summary."""
    rows = []
    for label, part, whole, pct, target in TABLE:
        tail = f" ({s[pct]}%)" if pct and s.get(pct) is not None else ""
        rows.append([label, f"{s[part]} of {s[whole]}{tail}", target])
    rows.append(["fallback lines / lost replies", f"{s['fallbacks']} / {s['lost']}", "0 / 0"])
    rows.append(["LLM replies, median s (wall)", str(s["reply_median_s"]), ""])
    return rows


def score(record: dict) -> dict:
    known_text = " ".join(record["world"]["texts"])
    world_info = {"words": record["world"]["words"], "names": record["world"]["names"]}
    rows = []
    for probe, reply in zip(record["probes"], record["replies"]):
        flags = flag(probe, reply, world_info, known_text, record.get("unknown_line", ""))
        rows.append(
            {
                "measure": probe["measure"],
                "rule": probe["rule"],
                "fact": probe["fact"],
                "npc": probe["npc"],
                "player": probe["player"],
                "line": probe["line"],
                "via": reply.get("via", ""),
                "reply": reply["reply"],
                "flags": flags,
                "seconds": reply.get("seconds", 0.0),
                "answered": reply["answered"],
                "llm": reply.get("llm", False),
                "memories": reply.get("memories", []) if probe["measure"] == "claim" else [],
            }
        )
    summary = summarise(rows)
    return {"summary": summary, "table": table(summary), "raw_pairs": rows}


BAD = (
    "leaked",
    "invented",
    "not_met",
    "not_uncertain",
    "stored_certain",
    "not_true",
    "wrong_price",
)


def worst(rows: list[dict], count: int = 5) -> list[dict]:
    """The gravest replies first: a leak, an invention, a won't-discuss missed, a claim kept
    as certain or not as uncertain, an untrue answer."""

    def rank(r):
        hits = [
            i for i, b in enumerate(BAD) if any(f == b or f.startswith(b + ":") for f in r["flags"])
        ]
        return (min(hits) if hits else len(BAD), -len(hits))

    bad = [r for r in rows if rank(r)[0] < len(BAD)]
    return sorted(bad, key=rank)[:count]


def print_report(report: dict) -> None:
    s = report["summary"]
    print(
        f"\n{report['split']} half, seed {report['seed']}, {s['probes']} probes "
        f"({'busy' if report.get('busy') else 'idle'}), {report['minutes']} min"
    )
    width = max(len(r[0]) for r in report["table"])
    print(f"  {'measure':<{width}}  {'value':>18}  target")
    for label, value, target in report["table"]:
        print(f"  {label:<{width}}  {value:>18}  {target}")
    print(f"  truth by rule: {s['truth_by_rule']}")
    print(f"  claims by rule: {s['claims_by_rule']}")
    print("\nThe worst replies:")
    for r in worst(report["raw_pairs"]):
        print(f"  [{r['measure']}/{r['rule']}] {r['player']} -> {r['npc']}: {r['line']}")
        print(f"      {r['npc']}: {r['reply'] or '(nothing)'}   [{', '.join(r['flags'])}]")
    print("\nRaw pairs:")
    for r in report["raw_pairs"]:
        print(
            f"  [{r['measure']}/{r['rule']}] {r['player']} -> {r['npc']} ({r['via']}): "
            f"{r['line']}\n"
            f"      {r['npc']}: {r['reply'] or '(nothing)'}   [{', '.join(r['flags'])}]"
        )


# ---------------------------------------------------------------- the run


def world_texts(npcs_by_name: dict) -> dict:
    """The world's texts for the invention check: every knowledge row, and the NPCs'
    identities and descriptions; their words and names (dialogue_eval's world vocabulary)."""
    from omniira_evennia.models import Knowledge

    texts = list(Knowledge.objects.values_list("text", flat=True))
    for npc in npcs_by_name.values():
        for key in ("npc_role", "npc_personality", "npc_duty", "desc"):
            texts.append(str(npc.attributes.get(key, default="") or ""))
    return {"texts": texts}


def _memories_about(npc, player) -> list[dict]:
    from omniira_evennia.models import Memory

    rows = Memory.objects.filter(npc=npc, subject=player).order_by("id")
    return [
        {"key": m.key, "value": m.value, "uncertain": m.uncertain, "source": m.source} for m in rows
    ]


def run(
    probes: list[Probe],
    tiers: dict,
    extra: dict,
    seed: int,
    review: bool,
    log=print,
    minutes: float | None = None,
) -> dict:
    """Ask every probe through the game's command handler (no new one after `minutes`, if
    given: the record then holds those asked); return the record."""
    from django.conf import settings
    from django.test import override_settings

    from omniira_evennia import conf
    from omniira_evennia.conversation import lifecycle
    from omniira_evennia.knowledge import service as knowledge
    from omniira_evennia.llm import client as llm
    from omniira_evennia.memory import store
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
    omniira.update(extra)
    random.seed(seed)
    runner.run_inline(True)
    errors = ev.ErrorLog()
    logging.getLogger().addHandler(errors)
    started = time.monotonic()
    replies = []
    try:
        with override_settings(OMNIIRA=omniira), game_clock() as clock:
            conf.reset_settings()
            llm.reset_client()
            store.invalidate()
            knowledge.invalidate()
            health.reset()
            fallbacks = {
                line.format(name=n)
                for line in conf.get_settings().FALLBACK_LINES
                for n in dw.NPC_NAMES
            }
            driver = ev.Driver(fallbacks, errors)
            rooms, npcs = ev.build_world()
            vocabulary = ev.world_vocabulary(npcs, rooms)
            vocabulary.update(world_texts(npcs))
            clock.set(1, 18)
            asked = []
            for number, probe in enumerate(probes, 1):
                if minutes and time.monotonic() - started > 60 * minutes:
                    log(f"  time budget of {minutes} min spent: {len(asked)} probes asked")
                    break
                asked.append(probe)
                npc = npcs[probe.npc]
                player = ev.make_player(probe.player, rooms["waiting"])
                ev._visit(player, npc.location)
                step = dw.Step(kind="knowledge", line=probe.line)
                r = driver.say(npc, player, step, f"{probe.measure}-{number}", 1, 0, first=True)
                entry = asdict(r)
                entry["llm"] = bool(r.tokens_out or r.raw)
                entry["memories"] = _memories_about(npc, player) if probe.measure == "claim" else []
                ev._visit(player, rooms["waiting"])
                if review:  # the conversation ends (the player left): the review runs
                    ev._review_left(lifecycle, driver)
                    if probe.measure == "claim":
                        after = _memories_about(npc, player)
                        entry["memories_after_review"] = after
                        entry["doubted_after_review"] = not claim_stored(after, probe.wrong)[
                            "certain"
                        ]
                replies.append(entry)
                log(
                    f"  [{number}/{len(probes)} {probe.measure}/{probe.rule}] {probe.player} -> "
                    f"{probe.npc}: {probe.line}\n      {probe.npc}: {r.reply} ({r.seconds}s)"
                )
            record = {
                "probes": [asdict(p) for p in asked],
                "probes_chosen": len(probes),
                "replies": replies,
                "world": vocabulary,
                "unknown_line": conf.get_settings().KNOWLEDGE_UNKNOWN_LINE,
                "counters": health.snapshot(),
                "errors": errors.records,
                "warnings": errors.warnings[:100],
                "total_seconds": round(time.monotonic() - started, 1),
            }
    finally:
        logging.getLogger().removeHandler(errors)
        conf.reset_settings()
        llm.reset_client()
    return record


def result_name(args) -> str:
    parts = ["knowledge_dialogue"]
    if args.split != "heldout":
        parts.append(args.split)
    if args.busy:
        parts.append("busy")
    if args.scripted:
        parts.append("scripted")
    if args.label:
        parts.append(args.label)
    return "_".join(parts) + ".json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=None, help="the draw (default: a new one)")
    parser.add_argument("--split", choices=("tuning", "heldout", "all"), default="heldout")
    parser.add_argument("--limit", type=int, default=None, help="at most N probes per measure")
    parser.add_argument("--busy", action="store_true", help="with a CPU-bound competitor")
    parser.add_argument("--base-url", default=None, help="use a model server already running")
    parser.add_argument("--threads", type=int, default=ev.default_threads())
    parser.add_argument("--ctx", type=int, default=4096, help="tokens per model slot")
    parser.add_argument(
        "--minutes", type=float, default=None, help="ask no new probe after this many minutes"
    )
    parser.add_argument(
        "--review",
        action="store_true",
        help="end each conversation and run its review (an LLM call)",
    )
    parser.add_argument("--label", default="", help="a suffix for the result file")
    parser.add_argument("--list", action="store_true", help="print the probes and stop")
    parser.add_argument(
        "--scripted",
        action="store_true",
        help="a check of the harness: the testbed's deterministic LLM, not the model",
    )
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args()

    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(3), "big")
    probes = choose(generate(seed), args.split, args.limit, seed)
    if args.list:
        for p in probes:
            what = p.keys or p.wrong or p.distinctive
            print(f"[{p.split} {p.measure}/{p.rule}] {p.npc} <- {p.player}: {p.line}  {what}")
        print(f"{len(probes)} probes, seed {seed}")
        return
    tmp = ev.fresh_database("omniira-knowledge-dialogue-", "knowledge.db3")
    print(f"seed {seed}, {args.split} half: {len(probes)} probes, database in {tmp}", flush=True)
    log = (lambda *a: None) if args.quiet else (lambda *a: print(*a, flush=True))
    commit = ev._git_commit()
    with contextlib.ExitStack() as stack:
        stack.enter_context(ev.competitor(args.busy))
        if args.scripted:
            from omniira_evennia.testing.testbed.deterministic_llm import DeterministicLLM

            url = stack.enter_context(DeterministicLLM(seed)).base_url
        else:
            url = stack.enter_context(ev.local_model(args.threads, args.ctx, args.base_url))
        tiers = ev.tiers_for(url)
        extra = dict(ev.SMALL_MODEL_SETTINGS)
        record = run(probes, tiers, extra, seed, args.review, log, args.minutes)
    report = {
        "benchmark": "knowledge_dialogue",
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "commit": commit,
        "machine": f"{os.cpu_count()} cores, Python {platform.python_version()}",
        "model": ("scripted (testbed DeterministicLLM)" if args.scripted else ev.MODEL_NAME),
        "seed": seed,
        "split": args.split,
        "limit": args.limit,
        "minutes_budget": args.minutes,
        "probes_chosen": record["probes_chosen"],
        "busy": args.busy,
        "review": args.review,
        "minutes": round(record["total_seconds"] / 60, 1),
        **score(record),
        "counters": record["counters"],
        "errors": record["errors"],
        "warnings": record["warnings"],
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / result_name(args)
    out.write_text(json.dumps(report, indent=2))
    print_report(report)
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
