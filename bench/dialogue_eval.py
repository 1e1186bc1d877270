"""
Evaluation: what an NPC says and stores when players talk to it, with the packaged offline
model (issues #16 and #24) - built so that it cannot be tuned to.

Scenarios are generated per run (bench/dialogue_world.py): facts drawn from pools with a seed
(`--seed`), several phrasings per fact and per question, player names drawn too, split by
scenario into a tuning half and a held-out half (`--split`, held-out by default; the report
says which). Each runs end to end through the product's real paths, in a throwaway SQLite
database with the demo's world (game_template/world/build.py), the real embedder and the
offline model served by llama.cpp on 127.0.0.1. Every line goes through the game's command
handler as a player types it: `say <line>` when it opens with the NPC's name (or is a
mid-conversation line), else `talk <npc> = <line>`.

1. Day 1, evening: each player tells two or three facts about themselves, asks the NPC about
   itself ("What do you do here?") and about its trade or the town, says two lines
   mid-conversation through `say` (one without the NPC's name, one with the name at the end:
   answered or ignored), sometimes passes on news about a third party, and says goodbye (the
   conversation-end review runs).
2. Gossip rounds: the NPCs are paired in turn in rooms with no player (`gossip_round`).
3. The night's rollover (reflections, diaries), then a restart: every in-process cache is
   dropped (memory matrices, settings, the LLM client, Evennia's object cache).
4. Day 2: each player asks each fact back and one never told, then leaves (the review runs,
   as the ticker would run it); then a newcomer the NPC never met asks a never-told question.

Scored per reply by the named rules below (`is_*`, `*_slip`, each with its rule in its
docstring, unit-tested in tests/unit/test_dialogue_scoring.py); per memory and per belief
about a player: grounded in a fact that player stated about themselves, or not (decided by
the facts' keyword sets, independently of the product's own checks); for gossip: news passed
on against talk passed on. The report (printed table and JSON) shows at least 30 raw
(line, reply) pairs, chosen to include the worst of each category.

Writes bench/results/dialogue_eval.json (held-out, idle, every scenario of the half; other
runs get a suffix: _tuning, _all, _busy, _subset, or --label's).

    .venv/bin/python bench/dialogue_eval.py                      # the held-out half (~40 min)
    .venv/bin/python bench/dialogue_eval.py --split tuning --limit 4   # a quick tuning subset
    .venv/bin/python bench/dialogue_eval.py --busy               # with a CPU-bound competitor
    .venv/bin/python bench/dialogue_eval.py --rescore bench/results/dialogue_eval.json
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import json
import logging
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")

from bench import dialogue_world as world  # noqa: E402
from bench.dialogue_world import Scenario, Step, matches  # noqa: E402
from omniira_evennia.llm.local_model import (  # noqa: E402
    SLOT_CTX,
    SLOTS,
    SMALL_MODEL_SETTINGS,
    SMALL_MODEL_TIERS,
    TIER_SAMPLING,
    default_threads,
    start_server,
    wait_until_healthy,
)

IDLE_PROMPT_TPS = 90.0
IDLE_GEN_TPS = 32.0
RESULTS = ROOT / "bench" / "results"
PROMPTS_FILE = os.environ.get("DIALOGUE_EVAL_PROMPTS", "")  # JSON lines of requests, if set
DEFAULT_COUNT = 48  # scenarios generated; the held-out half is 24

# The demo's sampling (local_model.TIER_SAMPLING, held equal to the demo's settings by a test),
# so the evaluation sees what a player of `make demo` sees.
# The demo's local branch also sets SMALL_MODEL_TIERS (the lean "speech" reply) and
# SMALL_MODEL_SETTINGS; the evaluation runs them too, unless --tier/--set say otherwise.
# Its timeouts are the demo's (game_template/server/conf/settings.py), so that a reply a player
# would lose to the fallback line is lost here too (the deadline then follows the measured pace).
DEMO_TIMEOUTS = {"voice": 150, "reasoning": 240, "ambient": 150}
DEMO_TIERS = {
    name: {**sampling, **SMALL_MODEL_TIERS.get(name, {}), "timeout": DEMO_TIMEOUTS[name]}
    for name, sampling in TIER_SAMPLING.items()
}

# The NPCs' own trades and haunts (their role and duty in world/build.py), for "the NPC's own
# trade given as the player's" and "what do you do" answered in role.
NPC_TRAITS = {
    "Maren": r"tavern|cider|plum wine|\bale\b|inn ?keep|barkeep|rents? rooms|\bstew\b|\bbar\b",
    "Lyra": r"\bbard|lute|minstrel|\bsongs?\b|sings?\b|singing|music|play(?:s|ing)? for coins",
    "Voss": r"blacksmith|\bsmith|forge|anvil|blades?\b|mending tools|mend(?:s|ing)? tools",
    "Wren": r"herbalist|\bherbs?\b|remed|tend(s|ing)? (the |to )?(sick|ill)",
}
NPC_ROLES = {"Maren": "tavern keeper", "Lyra": "bard", "Voss": "blacksmith", "Wren": "herbalist"}

SENTENCE = re.compile(r"[^.!?]+[.!?]*")
FIRST_PERSON = re.compile(r"\b(i|i'm|i've|i'll|i'd|me|my|mine|myself)\b", re.IGNORECASE)
SECOND_PERSON = re.compile(r"\b(you|you're|you've|you'll|you'd|your|yours|yourself)\b", re.I)
# "I remember (that)", "I think": what follows is about someone else, not the NPC.
KNOWING = re.compile(
    r"^\W*(?:\w+,\s+|(?:yes|no|well|oh|ah|aye|hm+)[,!.]?\s+)*i\s+(?:do\s+)?(?:remember|recall|think|"
    r"believe|know|heard|hear|guess|suppose|see)(?:\s+that)?\b",
    re.IGNORECASE,
)
ADMITS = re.compile(
    r"(?:\bnever|\bnot|n't)\s+(?:\w+\s+)?(?:told|tell|mentioned|mention|said|say|shared|share)\b"
    r"[^.!?]*\b(?:me|us)\b"
    r"|\bI\s+(?:do not|don't|didn't|did not|can't|cannot|couldn't|could not)\s+(?:\w+\s+)?"
    r"(?:know|recall|remember|say|tell)"
    r"|\bI\s+(?:have|'ve)\s+no\s+(?:idea|notion|memory|recollection)|\bno idea\b|\bnot sure\b"
    r"|\bI\s+haven't\s+(?:heard|been told)|\bnot that I\s+(?:know|recall|remember)"
    r"|\bwe(?:'ve| have)\s+(?:never|not|only just)\s+met|\bfirst time (?:I've|I have)\s+(?:seen|met)"
    r"|\bhaven't\s+(?:met|seen)\s+you\b|\bdon't know (?:you|each other)"
    # A shrug, not "You tell me that you breed goats on the ridge." (seed 63341, a newcomer).
    r"|\byou tell me(?=\s*(?:[,.!?]|$))" r"|\bnew face|\bnever (?:met|seen) you",
    re.IGNORECASE,
)
ASSISTANT = re.compile(
    r"how (?:can|may) i (?:help|assist)|(?:provide|give me|share|tell me) (?:some |a bit |a little )?"
    r"more (?:context|details|information)|\banything else\b|\bany tips\b|\btips (?:for|on)\b"
    r"|\bas an ai\b|language model|\bassist(?:ance)?\b"
    r"|\bi(?:'m| am) (?:always |just |only )?(?:here|happy|glad) to help"
    # "Oh no, Marisol! I'm sorry about that. Let me help you." (held-out seed 45119): the
    # whole offer, with nothing the NPC would do.
    r"|\blet me (?:help|assist) you(?: with (?:that|this|anything))?\s*(?:[.!]|$)"
    r"|\bfeel free to\b|\blet me know if\b|\bdo you need (?:help|anything)|\bhelp you with\b"
    r"|apologi[sz]e for (?:any|the) confusion|\bhow can i be of\b"
    r"|\b(?:enough|any|more|no|additional) information\b|\bhave information\b"
    r"|\bwithout more context\b|\bin this story world\b|\binformation i'?ve been given\b",
    re.IGNORECASE,
)
STOPWORDS = set(
    "a an the is was are were be been being has have had do does did of to in on at for and or "
    "but with by as it its this that these those there here what who whom which when where why "
    "how so if then than not no yes oh ah well aye i me my mine you your yours we us our he him "
    "his she her they them their s t d ll ve re m am can could will would shall should must may "
    "might just very too also any some all one ever never really still always about from into "
    "out up down over again once only own same now today tonight love it's i'm you're that's "
    "there's i've i'll i'd you've don't can't won't isn't aren't wasn't he's she's we're "
    "they're let's what's here's".split()
)
PRONOUN_SWAP = {
    "i": "you",
    "me": "you",
    "my": "your",
    "mine": "yours",
    "myself": "yourself",
    "am": "are",
    "i'm": "you're",
    "i've": "you've",
    "i'll": "you'll",
    "i'd": "you'd",
    "you": "i",
    "your": "my",
    "yours": "mine",
}

# Specific things an answer may assert. Words from the generator's pools (another player's
# fact shows as one) and common ones a small model reaches for.
GENERIC_TRADES = """baker butcher farmer merchant sailor soldier guard hunter storyteller scholar
healer priest miner fisherman cook carpenter smith blacksmith innkeeper trader weaver tailor
painter musician minstrel bard herbalist apothecary physician doctor mason builder brewer vintner
gardener servant maid knight thief woodcutter carter porter clerk teacher farmhand""".split()
ANIMALS = """dog cat horse pony bird owl hound rabbit pig cow sheep hen chicken mouse rat snake
lizard fox wolf goat ferret raven tortoise donkey parrot puppy kitten dove crow canary
hamster""".split()
FOOD_WORDS = """sugar salt vinegar spice bread meat fish beef pork chicken fruit apples wine beer
mead butter cream gravy gluten dairy peanuts sweeteners artificial colours colors lamb venison
potatoes carrots beans""".split()
PLACE_WORDS = """museum gallery library temple church chapel shrine cathedral castle tower bakery
mill smithy docks harbour harbor port pier wharf bridge river lake fountain park garden inn shop
store guild hall school academy bank theatre theater arena barracks jail prison gate statue
monument lighthouse farm orchard vineyard brewery stable stables apothecary bathhouse baths
bookshop street alley quarter district moor forest woods hill mountain clinic hospital
infirmary""".split()
GOODS_WORDS = """bread pastries pastry pies cake cakes cheese meat fish fruit vegetables apples
beer mead whisky rum tea coffee soup sausages clothes jewelry jewellery rings pottery candles
soap books maps weapons swords axes armour armor horseshoes nails potions salves tinctures spices
silk wool leather cloth furs shields helmets daggers knives ploughs""".split()
KIN_WORDS = [r for r, _ in world.RELATIONS] + ["wife", "husband", "twin", "children", "child"]


def _pool_words() -> list[str]:
    words = set()
    for noun, _, _ in world.TRADES:
        words.update(noun.split())
    words.update(f for f, _ in world.FOODS)
    words.update(w.split()[-1] for w, _, _ in world.FEARS)
    for _, keys in world.ITEMS:
        words.update(re.sub(r"\\b|[^a-z ]", "", k) for group in keys for k in group)
    return sorted(w for w in words if w and w not in {"maker", "sweep", "dark", "keys"})


SPECIFIC_WORDS = sorted(
    set(GENERIC_TRADES + ANIMALS + FOOD_WORDS + PLACE_WORDS + GOODS_WORDS + KIN_WORDS)
    | set(_pool_words())
)
# Capitalised words that name no one.
NOT_NAMES = set("""sir madam miss lord lady mister master mistress god gods monday tuesday wednesday
    thursday friday saturday sunday sure aye yes no nay well oh ah hmm indeed certainly alas
    goodbye farewell hello welcome thanks nope yep yeah""".split())  # "Sure, Tamsyn." names nobody
PROPER_NAMES = set(
    world.PLAYER_NAMES
    + world.KIN_NAMES["she"]
    + world.KIN_NAMES["he"]
    + world.PET_NAMES
    + world.TOWNS
    + [name for name, _, _ in world.TOWNSFOLK]
)


# ---------------------------------------------------------------- text helpers


def plain(text: str) -> str:
    """Curly quotes straightened, so the rules see one apostrophe."""
    return (text or "").replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"')


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE.findall(plain(text).replace('"', " ")) if s.strip()]


def _stem(word: str) -> str:
    for suffix in ("ing", "es", "ed", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def content_words(text: str, skip=()) -> set[str]:
    skipped = {s.lower() for s in skip}
    return {
        _stem(w)
        for w in re.findall(r"[a-z']+", plain(text).lower())
        if w not in STOPWORDS and w not in skipped and len(w) > 2
    }


def _is_question(sentence: str) -> bool:
    return sentence.rstrip().endswith("?")


def _names_pattern(name: str) -> re.Pattern:
    return re.compile(rf"\b{re.escape(name)}\b", re.IGNORECASE)


# ---------------------------------------------------------------- the scorers (pure)


def is_restated(reply: str, line: str, npc: str = "", player: str = "") -> bool:
    """
    The reply hands the player's words back and adds at most two content words of its own
    (none, if the line was a question: "What do I do here?" for "What do you do here?"): the
    line with its pronouns turned round at a similarity of 0.75 or more ("You are a
    cartographer; you draw maps of the marshes." for "Maren, I am a cartographer; I draw maps
    of the marshes."), or four fifths or more of its content words (three at least), or, adding
    nothing, half of them ("Tiberius lives alone out past the marsh road, Honora." for "You
    should know about my brother, Tiberius: he lives alone out past the marsh road."). Names
    are left out on both sides.
    """
    names = [n for n in (npc, player) if n]
    strip = "|".join(rf"\b{re.escape(n)}\b" for n in names) or "$^"
    said = re.sub(strip, " ", plain(line))
    answer = " ".join(re.findall(r"[a-z']+", re.sub(strip, " ", plain(reply)).lower()))
    if not answer:
        return False
    swapped = " ".join(PRONOUN_SWAP.get(w, w) for w in re.findall(r"[a-z']+", said.lower()))
    line_words, reply_words = content_words(said), content_words(reply, skip=names)
    added = len(reply_words - line_words)
    if added > (0 if said.rstrip().endswith("?") else 2):
        return False
    if difflib.SequenceMatcher(None, swapped, answer).ratio() >= 0.75:
        return True
    if len(line_words) < 3:
        return False
    covered = len(line_words & reply_words) / len(line_words)
    shared = len(line_words & reply_words)
    return covered >= 0.8 or (added == 0 and covered >= 0.4 and shared >= 2)


# Agreement before the claim ("You're right, Zephyr, I cannot eat eggs."): its "you" and the
# player's name do not make what follows said to the player.
AGREEING = re.compile(
    r"^\W*(?:(?:yes|aye|oh|ah|well)[,!]?\s+)?(?:you(?:'re| are) (?:quite |so )?(?:right|correct)|"
    r"that's (?:right|true)|true enough|i (?:know|see)|indeed)[,.!]?\s+(?:[A-Z][\w']*[,.!]\s+)?",
    re.IGNORECASE,
)


def first_person_claim(reply: str, claim: list[str], player: str = "") -> list[str]:
    """
    Role slip: sentences of the NPC's claiming the player's fact (or the topic of the player's
    question) in the NPC's own first person: a sentence with I/me/my and a claim word, without
    "you" or the player's name, that is not an admission ("I'm afraid I don't know"); a leading
    "I remember (that)" / "I think" is set aside first, since what follows is about someone else
    ("I remember that Quill works as a baker" claims nothing), and so is a leading agreement
    ("You're right, Zephyr, I cannot eat eggs." claims "I cannot eat eggs").
    """
    found = []
    for sentence in sentences(reply):
        rest = KNOWING.sub("", AGREEING.sub("", sentence))
        if player:  # the player named as the one spoken to ("..., Nerys.") is no "about them"
            name = re.escape(player)
            rest = re.sub(rf"^\W*{name},\s*|,\s*{name}\s*(?=[.!?]*\s*$)", " ", rest)
        if not FIRST_PERSON.search(rest) or SECOND_PERSON.search(rest) or ADMITS.search(rest):
            continue
        if player and _names_pattern(player).search(rest):
            continue
        if any(world._word(w).search(rest) for w in claim):
            found.append(sentence)
    return found


SAYS_FRAME = re.compile(
    r"\b[A-Z][\w']* says(?: to (?:you|[A-Z]\w*))?\s*[:,]|\bsays to you\b"
    r"|\b(?i:you say to you)\b"  # "You say to you: "I don't know."" (held-out seed 45119)
    r"|^\W*(?i:you (?:say|answer|reply|respond)\w*)\s*[:,]\s*[\"\u201c]?"  # seed 83417
)
CUES = r"(?:yes|no|well|oh|ah|aye|sorry|thanks|thank you|right|okay|ok|hello|hi|indeed)"


def speaks_as_player(reply: str, npc: str, player: str) -> bool:
    """
    Role slip: the NPC speaks as the player, or as if the player were talking to it: the
    chat frame of a line ("Bram says to you: ...", "Ada says: ..."), the player's name as
    its own ("I am Tobiah", "my name is Tobiah"), or the NPC addressing itself by its own name
    ("No, Voss. You are a blacksmith", "Yes, Lyra. I work as a storyteller", "I don't know who
    Thorne is searching for, Wren.").
    """
    text = plain(reply)
    if SAYS_FRAME.search(text) or re.match(rf"^\s*{re.escape(player)}\s*:", text):
        return True
    # A line written for the player: 'You might say: "Well, Ulric, I've been making barrels"'
    # (held-out seed 71993, counted by hand).
    if re.search(
        r"\byou (?:might|could|can|should) (?:say|reply|answer|respond)\s*[:\"]", text, re.I
    ):
        return True
    if re.search(rf"\b(?:i am|i'm|my name is|call me)\s+{re.escape(player)}\b", text, re.I):
        return True
    name = re.escape(npc)
    if re.search(rf"\b{CUES},?\s+{name}\s*[,.!?]", text, re.IGNORECASE):
        return True
    for sentence in sentences(text):
        if re.search(rf",\s*{name}\s*[.!?]*$", sentence):
            return True
        if re.match(rf"^{name},\s+(?:i|you|do|did|what|can|could|would|will|have)\b", sentence):
            return True
    return False


# Verbs of a clause about someone: "what Idris does", "that Idris is", "Idris never told me".
ABOUT_VERBS = (
    r"(?:does|do|did|doesn't|didn't|is|isn't|was|wasn't|has|hasn't|had|likes|loves|wants|fears|"
    r"keeps|works|lives|came|comes|needs|treasures|owns|dreams|hopes|plans|said|told|mentioned|"
    r"never|can't|cannot|might|may|must|should|could|would|will|feels|felt)"
)


def speaks_of_listener(reply: str, player: str, line: str = "") -> bool:
    """
    Role slip: the player spoken of in the third person, to their face: their name as the
    subject of a clause ("I do not know what Idris does for a living." to Idris, held-out seed
    45119; "Rosalie has a fear of spiders." to Rosalie), not as the one addressed ("Idris, I
    ...", "Thank you, Idris.").
    """
    if not player:
        return False
    name = re.escape(player)
    lead = (
        r"(?:\b(?:what|where|who|how|why|whether|if|that|because)\s+|(?:^|[.!?:;]\s+)\W*"
        r"(?:(?:maybe|perhaps|surely|probably)\s+)?)"
    )
    if re.search(rf"{lead}{name}\s+{ABOUT_VERBS}\b", plain(reply), re.IGNORECASE):
        return True
    # "Emrys' brother Godfrey" to Emrys; "You tell Quill that he ..." to Quill (seed 19447).
    if re.search(rf"\b{name}(?:'s|')\s+[a-z]|\byou tell {name}\b", plain(reply), re.I):
        return True
    # "Do you have any other memories or news about Finnegan?" to Finnegan (seed 28751)
    if re.search(rf"\b(?:memories|news) about {name}\b", plain(reply), re.I):
        return True
    # "I've never met Ingram, so I don't know what he's talking about." to Ingram (seed 11411)
    never_met = (
        rf"\b(?:never|not|haven't|have not|don't|do not) (?:met|seen|heard of|know) {name}\b"
    )
    if re.search(never_met, plain(reply), re.IGNORECASE):
        return True
    # Their name anywhere but as the one addressed: "I do not remember Fenwick doing anything
    # for a living.", "I remember: Jessamy shellfish makes her break out ..." (seed 77213).
    text = plain(reply)
    for found in re.finditer(rf"\b{name}\b(?!'s|')", text, re.IGNORECASE):
        before, after = text[: found.start()], text[found.end() :]
        if re.search(rf"(?:^|[,.!?;:]\s*|\b(?:{CUES}|{GREETS})\s+)\W*$", before, re.I) and (
            re.match(r"\s*(?:[,.!?;:]|$)", after)
        ):
            continue  # "Yes, Fenwick.", "Goodbye Fenwick!", "..., Fenwick: ..."
        return True
    # The "she" of someone their line spoke of is theirs: "Whisker? I'm sure you're happy to
    # have her with you." to "My cat is called Whisker, and she hates the rain." (seed 70919).
    return _listener_as_he_or_she(text, player) and not re.search(_PERSON_NOUNS, line, re.I)


GREETS = r"(?:dear|goodbye|farewell|hello|welcome|night|morning|evening|day|bye|cheers)"
_PERSON_NOUNS = (
    r"\b(?:mother|father|sister|brother|aunt|uncle|cousin|son|daughter|wife|husband|friend|"
    r"grand\w+|man|woman|girl|boy|lad|lass|neighbou?r|master|teacher|king|queen|lord|lady|"
    r"raven|cat|dog|horse|goat|tortoise|parrot|ferret|donkey|owl|hound|mare|pony)s?\b"
)


def _listener_as_he_or_she(text: str, player: str) -> bool:
    """The player as "he" or "she" beside "you": "You've heard your stories about his fears.",
    "... you have been terrified of rats since she was a child." (seed 77213), when nobody else
    is named or spoken of whom the pronoun could be."""
    if not re.search(r"\b(?:you|your)\b", text, re.I):
        return False
    if not re.search(r"\b(?:he|she|his|him|her)\b", text, re.I):
        return False
    inner = re.findall(r"(?<=[\w,;:] )[A-Z][a-z]+", text)
    others = [n for n in inner if n.lower() != player.lower() and n not in ("I",)]
    return not others and not re.search(_PERSON_NOUNS, text, re.I)


_KIN = (
    r"(?:mother|father|sister|brother|aunt|uncle|cousin|son|daughter|wife|husband|grandmother|"
    r"grandfather|niece|nephew|mum|dad)"
)
_YOUR_KIN_NAMED = re.compile(rf"\byour (?:late |dear |old |poor )?{_KIN},?\s+([A-Z][a-z']+)")


def gives_them_untold_kin(reply: str, told: str, player: str = "") -> bool:
    """
    Role slip: a kinsman named as the listener's whom they never named ("The iron key is a
    relic of your late husband, Tomas, ..." to a stranger telling of their key, held-out seed
    67219: the NPC's own late husband put on the player). `told` is all the speaker said of
    themselves (their facts' lines; "" for a newcomer); their own name after the kinsman is
    them addressed ("You never told me about your mother, Emrys.").
    """
    for match in _YOUR_KIN_NAMED.finditer(plain(reply)):
        name = match.group(1)
        if name.lower() == player.lower():
            continue
        if not re.search(rf"\b{re.escape(name)}\b", told, re.IGNORECASE):
            return True
    return False


WORK_VERB = re.compile(
    r"\bi(?:'m| am)?\s+(?:also |just |mostly |mainly )?(?:sell|make|mend|brew|bake|forge|tend|"
    r"keep|run|pour|cook|play|sing|heal|treat|fix|repair)\w*\b",
    re.IGNORECASE,
)


# "your ..." ending in a place or line of work ("your stew" is the player's supper).
GIVEN_TRADE = re.compile(
    r"\byour\s+((?:[\w'-]+\s+){0,2}(?:stall|shop|forge|smithy|anvil|tavern|inn|workshop|trade|"
    r"craft|wares|business|customers|remedies|herbs|blades|tools)s?)\b",
    re.IGNORECASE,
)


def claims_anothers_trade(reply: str, npc: str, told: str = "") -> bool:
    """
    Role slip: another NPC's trade claimed as the NPC's own: a first-person sentence of work
    with another NPC's trade words and none of its own ("I sell remedies and herbs." from Lyra,
    the bard, held-out seed 50423, busy; "I sell remedies and tend anyone who falls ill." from
    Voss, seed 38261). "I remember/know that ..." before it is set aside. Or given to the
    player, who never told of it: "I might recommend your herb stall" (Voss to Ulric, seed
    40813; the herb stall is Wren's).
    """
    own = NPC_TRAITS.get(npc, "$^")
    others = [traits for name, traits in NPC_TRAITS.items() if name != npc]
    for given in GIVEN_TRADE.finditer(plain(reply)):
        what = given.group(1)
        if re.search(own, what, re.I):
            continue
        if any(re.search(t, what, re.I) and not re.search(t, told, re.I) for t in others):
            return True
    for sentence in sentences(plain(reply)):
        rest = KNOWING.sub("", sentence)
        if not WORK_VERB.search(rest) or re.search(own, rest, re.IGNORECASE):
            continue
        if any(re.search(traits, rest, re.IGNORECASE) for traits in others):
            return True
    return False


def denies_being_itself(reply: str, npc: str, role: str = "") -> bool:
    """
    Role slip: the NPC speaks of itself as someone else: "I am not Lyra, so I cannot answer",
    "my name isn't Lyra", someone "named"/"called" Voss, "who Maren is", "ask Wren", "Wren would
    know", "looking for Voss", "I'm not a/the <its role>", or "You are Maren" said by Maren.
    """
    name = re.escape(npc)
    patterns = [
        rf"\bI(?:'m| am)\s+not\s+{name}\b",
        rf"\bmy name (?:is not|isn't)\s+{name}\b",
        rf"\b(?:named|called)\s+{name}\b",
        rf"\bwho\s+{name}\s+is\b",
        rf"\bask\s+{name}\b",
        rf"\b{name}\s+(?:would|might|could|may|will)\s+know\b",
        rf"\b(?:looking|searching)\s+for\s+{name}\b",
        rf"\bwhere\s+{name}\s+is\b",
        rf"\byou(?:'re| are)\s+{name}\b",  # the player taken for the NPC
    ]
    if role:
        patterns.append(rf"\bI(?:'m| am)\s+not\s+(?:a|an|the)\s+{re.escape(role)}")
    return any(re.search(p, plain(reply), re.IGNORECASE) for p in patterns)


def third_person_self(reply: str, npc: str) -> bool:
    """
    Role slip: the NPC describes itself in the third person: a sentence or a clause after a
    comma whose subject is its own name ("Maren is a tavern keeper.", "Maren smiles, feeling
    grateful.", "At my forge, Voss makes a good knife") said by that NPC; its name as a
    vocative ("Maren, ...", "Yes, Wren, I ...") is not this slip.
    """
    name = re.escape(npc)
    return any(re.search(rf"(?:^\W*|,\s+){name}(?:'s)?\s+[a-z]", s) for s in sentences(reply))


AUX = r"(?:do|does|did|can|could|will|would|have|has|had|are|were|is|should|must)"
# "What must you never put in my food?" asks "put", not "never" (held-out seed 91823 scored the
# plain "You never told me what you cannot eat" a slip).
ADVERBS = r"(?:(?:really|still|ever|even|always|also|please|perhaps|truly|never|not)\s+)?"
# Verbs that say little alone: the slip must say them with the question's next word ("you have
# family", "you've been here"), not in a clause of its own ("as long as you've been alive").
LIGHT_VERBS = {"do", "have", "be", "been", "are", "get", "got", "is", "make"}


def asked_of_npc(question: str) -> tuple[str, str] | None:
    """(verb, object) of a question put to the NPC: "Do you have family here?" -> (have,
    family); "How long have you kept this place?" -> (kept, place); None if it asks no "you"."""
    m = re.search(
        rf"\b{AUX}\s+you\s+{ADVERBS}([a-z']+)((?:\s+[a-z']+){{0,4}})", plain(question), re.I
    )
    if not m:
        return None
    verb = m.group(1).lower()
    after = m.group(2).lower().split()
    rest = [w for w in after if w not in STOPWORDS]
    return verb, (rest[0] if rest else after[0] if after else "")


def answered_as_player(reply: str, question: str, npc: str, npc_directed: bool = True) -> bool:
    """
    Role slip: the player's question to the NPC answered as if the player had been asked: its
    verb said back with "you" as the subject in a statement ("Do you have family?" -> "Yes, you
    do have family."; "Do you remember what Hesketh does?" -> "No, you don't remember what
    Hesketh does"), or, to a question about the NPC, the NPC's own trade given to "you" ("What
    do you do here?" -> "You are a blacksmith").
    """
    text = plain(reply)
    asked = asked_of_npc(question)
    for sentence in sentences(text):
        if _is_question(sentence):
            continue
        if asked:
            verb, obj = asked
            fillers = r"(?:(?:do|don't|do not|does|did|didn't|have|haven't|had|are|aren't|were|"
            fillers += r"can|can't|cannot|will|won't|would|really|still|also|never|always|not)\s+)"
            pattern = rf"\byou(?:'re|'ve|'d|'ll)?\s+{fillers}{{0,3}}{re.escape(verb)}\b"
            if verb in LIGHT_VERBS and obj:
                pattern += rf"(?:\s+[\w']+){{0,3}}?\s+{re.escape(obj)}"
            if re.search(pattern, sentence, re.IGNORECASE):
                return True
        if not npc_directed:
            continue
        subject = r"\byou(?:'re| are| run| keep| sell| work| make| mend| pour| play| sing| tend)\b"
        if re.search(subject + r"[^.!?]*(?:" + NPC_TRAITS.get(npc, "$^") + ")", sentence, re.I):
            return True
    return False


CUE_START = r"^\W*(?:(?:yes|no|well|oh|ah|aye|hm+)[,!.]?\s+)?"
SWAPS = [
    # the NPC's own state or thoughts put on the player
    re.compile(CUE_START + r"you(?:'re| are)\s+(?:sorry|not sure|afraid (?:that|i|you))", re.I),
    re.compile(
        CUE_START + r"you\s+(?:think|wonder|feel|believe|hope|guess|suppose|agree)\b(?!,)", re.I
    ),
    # the admission turned round
    re.compile(
        r"\bI\s+(?:never|haven't|have not|didn't|did not)\s+(?:told|tell|mention(?:ed)?|said|say)"
        r"\s+you\b",
        re.I,
    ),
    # the player's telling said as the NPC's ("I told you that I'm afraid of ghosts.", 36457)
    re.compile(CUE_START + r"i told you (?:that )?i(?:'m| am| was|'ve| have)\b", re.I),
    # "I told you it was deep water, Bram." to "What did I tell you scares me most?" (held-out
    # seed 73529, read by hand)
    re.compile(CUE_START + r"i told you (?:that )?(?:it|they) (?:was|were|is|are)\b", re.I),
]


ASKS_FOR_SELF = re.compile(
    r"\b(?:can|could|may|might|should|do)\s+i\s+([a-z']+)\s+(?:a|an|the|some)?\s*([a-z']+)", re.I
)


def swaps_i_and_you(reply: str, line: str = "") -> bool:
    """
    Role slip: I and you swapped in a statement: the NPC's own state or thoughts put on the
    player ("You're sorry, but you don't have up-to-date news around town.", "You think that is
    very unsettling.", "You wonder why it is so wet."), or the admission turned round ("I never
    told you about your home town, Corwin."). "You know, ..." and questions are not swaps. Or
    the player's question about themselves taken as the NPC's: "Yes, I could get a room
    upstairs." to "Could I get a room?" (held-out seed 77213).
    """
    asked = ASKS_FOR_SELF.search(plain(line))
    if asked and any(
        re.search(
            rf"\bi\b(?:\s+\w+)?\s+{asked.group(1)}\s+(?!you\b)(?:\w+\s+)?{asked.group(2)}", s, re.I
        )
        for s in sentences(reply)
        if not _is_question(s)
    ):
        return True
    if (
        told_of_self(line)
        and re.search(r"\bi(?:'ll| will|'m going to| mean to| plan to)\b", line, re.I)
        and not re.search(r"\b(?:would|will|do) you\b|\bjoin me\b|\blet's\b", line, re.I)
        and re.match(r"\W*(?:(?:sure|yes|oh),?\s+)?i(?:'d| would) (?:love|like) to\b", reply, re.I)
    ):
        return True  # their plan taken as an invitation: "Sure, I'd love to!" (seed 83417)
    asked_to = re.search(r"\b(?:so|and|please)\s+(?:never\s+)?(keep|put|serve)\b", line, re.I)
    if asked_to and re.search(
        rf"\byou(?:'ll| will|'d| would)\s+(?:make sure to\s+)?{asked_to.group(1)}\b", reply, re.I
    ):
        return True  # asked of the NPC, given back: "You'll make sure to keep it off your plate."
    if told_of_self(line) and any(
        THEIR_STATE.search(s) and not re.search(r"\byou|\b(?:too|myself|also|as well)\b", s, re.I)
        for s in sentences(reply)
        if not _is_question(s)
    ):
        return True
    return any(
        p.search(sentence)
        for sentence in sentences(reply)
        if not _is_question(sentence)
        for p in SWAPS
    )


# The player's state told as the NPC's own: "I feel hungry." to "I haven't eaten since sunrise."
# (busy seed 90271), "I fell down and hurt my knee." to "I nearly slipped on the cobbles" (83417).
THEIR_STATE = re.compile(
    r"\bi(?:'m| am| feel| felt)\s+(?:so |very |really |a bit )?(?:hungry|starving|famished|"
    r"thirsty|tired|weary|exhausted|cold|soaked|wet|sore|footsore)\b|\bi need (?:to eat|food|"
    r"something to eat|to rest|a rest)\b|\bi (?:fell|slipped|tripped|stumbled|hurt|twisted)\b",
    re.I,
)


def told_of_self(line: str) -> bool:
    """A statement in the first person (not a question)."""
    return not _is_question(line) and re.search(r"\b(?:i|i'm|i've|my|me)\b", line, re.I)


DENIES_TELLING = re.compile(
    r"\bi (?:don't|do not) (?:know|recall|remember)\s+(?:(?:if|whether|that|about|what|of)\s+)?"
    r"(?:you|your)\b(?! mean)|\bi(?:'ve| have) no idea (?:if |whether |that |about )?(?:you|your)\b"
    r"|\bi (?:don't|do not) know\b[^.!?]{0,30}?\bwho you(?:'re| are)\b"  # to an introduction (telnet trial)
    r"|\byou(?:'ve| have)? (?:never|not|haven't|didn't|did not|don't|do not) (?:told|said|"
    r"mentioned|tell|say|mention)\b",
    re.I,
)
# What the player tells denied to them: "You are not afraid of rats." to "Nothing frightens me
# like rats." (held-out seed 19447), a word of their line within four words.
DENIES_FACT = re.compile(
    r"\byou(?:(?:'re| are) not|\s+aren't|\s+(?:don't|do not|never))((?:\W+[\w']+){1,4})", re.I
)


def denies_the_telling(reply: str, kind: str, line: str = "") -> bool:
    """
    Role slip: the player telling about themselves met with the NPC's not knowing it ("I don't
    know if you can touch pepper." to "I can't touch pepper, it makes me sick"; "You have never
    told me about a milk allergy." to "Never put milk in anything you serve me: I'm allergic.").
    A player hears an NPC who does not listen.
    """
    if kind != "tell":
        return False
    if DENIES_TELLING.search(plain(reply)):
        return True
    if re.search(r"n't\b|\b(?:not|never|cannot|no)\b", line, re.I):
        return False  # "I don't eat honey." is rightly "You don't eat honey."
    said = {w for w in re.findall(r"[a-z]{4,}", line.lower())}
    return any(
        said & set(re.findall(r"[a-z]{4,}", m.group(1).lower()))
        for m in DENIES_FACT.finditer(plain(reply))
    )


SCAFFOLD = re.compile(
    r"(?i:^\W*that is\s*:|\bwhat do you remember about\b|\byour notes about\b|private notes"
    r"|\byour memories\b|\baccording to (?:your|my|the) (?:memories|notes|information)\b"
    r"|\bthe information (?:provided|given)\b|\bfactually (?:incorrect|correct)\b)"
    r"|\[\[|\]\]|\b(?:REMEMBER|OPINION|CONCERN|COMMITMENT)\s*:|\"(?:say|remember)\"\s*:"
)


PHRASE_WORDS = 6


def prompt_phrases(n: int = PHRASE_WORDS) -> frozenset:
    """
    Every run of `n` words of the product's prompt templates (the string literals of
    omniira_evennia/conversation/prompts.py and instructions.py as the code is now, f-strings'
    fixed parts too), its worked examples left out (a line from an EXAMPLE marker to the end of
    its literal: an NPC may well say "You never told me about a dog").
    """
    import ast
    import inspect

    from omniira_evennia.conversation import instructions, prompts

    grams = set()
    source = inspect.getsource(prompts) + "\n" + inspect.getsource(instructions)
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        text = node.value.split("EXAMPLE")[0]
        words = re.findall(r"[a-z']+", text.lower())
        grams.update(tuple(words[i : i + n]) for i in range(len(words) - n + 1))
    return frozenset(grams)


def leaks_prompt(reply: str, phrases: frozenset = frozenset()) -> bool:
    """A broken reply: the prompt said aloud: its scaffolding ("That is: What do you remember
    about Linnea?", a tag, the JSON keys of a structured turn, "your notes about", "according
    to your memories", "the information provided"), or six words
    running of its instructions (`prompt_phrases`: "You are Maren, a person living in this
    world, never an assistant.")."""
    if SCAFFOLD.search(plain(reply)):
        return True
    words = re.findall(r"[a-z']+", plain(reply).lower())
    n = PHRASE_WORDS
    return any(tuple(words[i : i + n]) in phrases for i in range(len(words) - n + 1))


def is_repeat(reply: str, earlier: list[str]) -> bool:
    """A broken reply: the same words as an earlier reply of the NPC's to this speaker that day
    (similarity 0.9 or more), whatever was said to it; or a loop, one word two fifths or more
    of a reply of eight words or more ("Perrin, Perrin, Perrin, ...": held-out seed 83417)."""
    words = re.findall(r"[a-z']+", plain(reply).lower())
    if len(words) >= 8 and max(words.count(w) for w in set(words)) >= 0.4 * len(words):
        return True
    text = " ".join(words)
    return bool(text) and any(
        difflib.SequenceMatcher(None, text, " ".join(re.findall(r"[a-z']+", e.lower()))).ratio()
        >= 0.9
        for e in earlier
    )


def assistant_voice(reply: str) -> bool:
    """Role slip: an assistant's voice instead of the character's: "How can I help", "provide
    more context", "anything else", "tips", "as an AI", "assistance", "feel free to", "let me
    know if", "I'm here to help", "help you with"."""
    return bool(ASSISTANT.search(plain(reply)))


# A text adventure's narration of the player: "You look at the ledger, where you see a note",
# "You decide to look for a shop", "You hear a sound and see a man", "You listen attentively to
# your brief introduction." (held-out seed 94727) (not "You look tired", "You listen to me").
NARRATION = re.compile(
    r"(?:^|[.!?]\s+)you (?:decide to|notice|find yourself|pick up|turn to|walk (?:in|into|over|up)|"
    r"enter |step (?:in|into|forward)|look (?:at|around|up at|into)|see an? |hear an? |"
    r"listen (?:attentively|carefully|closely|intently) |nod (?:along|slowly)|smile (?:at|and)|"
    r"take a (?:seat|sip|drink)|sit down (?:at|on|by))"
    # "You are walking down Market Square, but the cobblestones ..." (held-out seed 11411)
    r"|(?:^|[.!?]\s+)(?:(?:yes|no|well|ah|oh),?\s+)?you(?:'re| are) (?:walking|strolling|"
    r"wandering|heading|travell?ing|making your way)\b(?![^.!?]*\?)",
    re.IGNORECASE,
)


def narrates_player(reply: str) -> bool:
    """Role slip: the reply narrates what the player does or sees, instead of speaking."""
    return bool(NARRATION.search(plain(reply)))


def admits_not_knowing(reply: str) -> bool:
    """The reply says the NPC does not know or was never told ("You never told me about a dog,
    Bryn.", "I don't know who Thorne is searching for", "we've never met")."""
    return bool(ADMITS.search(plain(reply)))


def npc_trade_as_players(reply: str, npc: str, player: str) -> bool:
    """The NPC's own trade given as the player's: a sentence whose subject is "you" or the
    player's name, with a verb of being, working or having (not "you're in the tavern"), and
    the NPC's trade words ("No, Voss. You are a blacksmith", "Thorne sells remedies at a market
    stall" said by Wren to Thorne, "You have a collection of antique tools and blades");
    "I remember/heard that" before it is set aside."""
    traits = NPC_TRAITS.get(npc, "$^")
    verbs = r"(?:'re|'s| are| is| were| was| work(?:s|ed)?| sell(?:s)?| run(?:s)?| keep(?:s)?"
    verbs += r"| make(?:s)?| mend(?:s)?| pour(?:s)?| play(?:s)?| sing(?:s)?| tend(?:s)?"
    verbs += r"|'ve| have| has| own(?:s)?| carr(?:y|ies)| treasure(?:s)?)"
    cue = r"^\W*(?:(?:yes|no|well|oh|ah|aye)[,!.]?\s+)*"
    subject = rf"{cue}(?:{re.escape(player)}|you){verbs}\b(?!\s+(?:in|at|to|by|near|here)\b)"
    for sentence in sentences(reply):
        rest = KNOWING.sub("", sentence).strip()
        if FIRST_PERSON.search(rest) or not re.search(traits, rest, re.IGNORECASE):
            continue
        if re.search(subject, rest, re.IGNORECASE):
            return True
    return False


NEGATION = re.compile(r"\b(?:no|not|never|none|nothing|nor|without)\b|n't\b", re.IGNORECASE)


def specific_mentions(
    reply: str, question: str, allowed_names, world_words=(), affirmed: bool = False
) -> list[str]:
    """
    What specific things the reply names: capitalised names not among `allowed_names` (a word
    opening a sentence only if it is one of the generator's names or the sentence has two
    words at most), and words for trades, animals, foods, places, goods or kin that are not in
    `world_words` (what the demo world holds) nor in the question, unless `affirmed` and the
    reply affirms it in a sentence without a negation ("Yes, there is a temple" to "Is there a
    temple in town?"; "There's no temple" names none). "The name of Quill's animal is Max." ->
    [Max]; "Never put salt or vinegar in Sable's food" -> [salt, vinegar].
    """
    found = []
    allowed = {n.lower() for n in allowed_names}
    asked = {_stem(w) for w in re.findall(r"[a-z]+", plain(question).lower())}
    in_world = {_stem(w) for w in world_words}
    # "knives" for the world's "knife" (held-out seed 38917 counted Voss's knives as invented).
    in_world |= {re.sub(r"fe?$", "v", w) for w in in_world if re.search(r"[^f]fe?$", w)}
    said = sentences(reply)
    for sentence in said:
        tokens = re.findall(r"[A-Za-z][A-Za-z']*", sentence)
        for i, token in enumerate(tokens):
            bare = token.split("'")[0]
            if not bare[:1].isupper() or bare.lower() in allowed | NOT_NAMES or bare == "I":
                continue
            # A sentence's first word is a name if the generator's, or if it is all the
            # sentence says ("Mara." asked what the horse is called).
            if i == 0 and bare not in PROPER_NAMES and len(tokens) > 2:
                continue
            if bare.lower() in STOPWORDS or bare.lower() in asked:
                continue
            found.append(bare)
    # Without the names it may say: "Piers, I sell songs" names the player, no pier (idle seed
    # 61507 counted it as a place invented).
    names = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(allowed))) + r")\b", re.I)
    unnamed = [names.sub(" ", x) for x in said] if allowed else said
    for word in SPECIFIC_WORDS:
        stem = _stem(word)
        if stem in in_world:
            continue
        pattern = re.compile(rf"\b{re.escape(word)}(?:s|es)?\b", re.IGNORECASE)
        hits = [x for x in unnamed if pattern.search(x)]
        if stem in asked or pattern.search(question):  # "horses" asked: _stem gives "hors"
            hits = [x for x in hits if affirmed and not NEGATION.search(x)]
        if hits:
            found.append(word)
    return sorted(set(found), key=found.index)


def is_invented_answer(
    reply: str, question: str, npc: str, player: str, allowed_names, world_words=()
) -> bool:
    """
    An invented answer to a never-told question: the reply does not admit not knowing
    (`admits_not_knowing`) and names or asserts something specific (`specific_mentions`: a
    name, an item, a place, a trade, an animal, a food), tells a story of its own
    (`tells_a_story`), or gives the NPC's own trade as the player's (`npc_trade_as_players`).
    """
    if admits_not_knowing(reply):
        return False
    if npc_trade_as_players(reply, npc, player):
        return True
    if CLAIMS_TO_REMEMBER.search(reply) or THEIR_HOME_SAID.search(reply):
        # "I remember: you are from the docks." (held-out seed 92821: the world's docks, so
        # no name of it counted): a memory of what was never told, or a home never named.
        return True
    if tells_a_story(reply, question, [npc, player]):
        return True
    return bool(specific_mentions(reply, question, [*allowed_names, player], world_words))


STORY_WORDS = 6
CLAIMS_TO_REMEMBER = re.compile(
    r"^\W*(?:(?:yes|aye|oh|ah)\W+)?(?:i (?:remember|recall)\b(?! (?:nothing|no)\b)"
    r"|you told me\b|you said\b)",
    re.IGNORECASE,
)
THEIR_HOME_SAID = re.compile(
    r"\byou(?:'re| are| come| came| hail) from\b|\byour home ?(?:town )?is\b|\byou grew up\b",
    re.IGNORECASE,
)


def tells_a_story(reply: str, question: str, names) -> bool:
    """
    An answer made up in words of its own, whatever they are: statements (not questions) that
    bring STORY_WORDS content words or more the question did not have ("The man had a special
    necklace ... made from a rare gemstone that had been hidden in the attic", to "Maren, do
    you remember what I treasure most?" from a newcomer, held-out seed 15511, busy: no name in
    it, so `specific_mentions` did not see it).
    """
    stated = " ".join(s for s in sentences(reply) if not _is_question(s))
    return len(content_words(stated, skip=names) - content_words(question)) >= STORY_WORDS


def gives_world_name_as_theirs(reply: str, player: str, world_names) -> bool:
    """A never-told question answered with a name of the world said of the player: "the old
    town where you grew up is Wickham Cross", "Guinevere is from a town called Wickham Cross"
    (held-out run of seed 86111, not flagged: the world's names were allowed everywhere)."""
    if admits_not_knowing(reply):
        return False
    them = re.compile(rf"\b(?:you|your|you're|{re.escape(player)}(?:'s)?)\b", re.IGNORECASE)
    # Said of them as where they are from or what something of theirs is called; a pointer to
    # a person or a room of the world ("ask Wren", "you're in the Lantern & Lane") is not.
    cue = re.compile(r"\b(?:from|grew up|born|lives?|living|called|named)\b", re.IGNORECASE)
    people = {n.lower() for n in world.NPC_NAMES} | {player.lower()}
    names = [n for n in world_names if n and n[:1].isupper() and n.lower() not in people]
    for sentence in sentences(reply):
        if (
            them.search(sentence)
            and cue.search(sentence)
            and any(re.search(rf"\b{re.escape(n)}\b", sentence) for n in names)
        ):
            return True
    return False


EMBELLISH_WORDS = 2
BEEN_THERE = re.compile(r"\bi(?:'ve| have) (?:been there|seen it)\b", re.IGNORECASE)


def embellishes(reply: str, line: str, known_names) -> bool:
    """
    What the player named (a name inside their line the world does not hold) described by the
    NPC with EMBELLISH_WORDS words or more the line did not have ("The lost mine of Carrow is
    near the well, where Old Hob the baker keeps the bread stall.", held-out busy seed 90271),
    or the NPC saying it has been there ("I've been there several times."). Questions and what
    is said to the player stay theirs.
    """
    known = {n.lower() for n in known_names}
    names = []
    for sentence in sentences(line):
        for i, token in enumerate(re.findall(r"[A-Za-z][A-Za-z']*", sentence)):
            bare = token.split("'")[0]
            if i and bare[:1].isupper() and bare != "I" and bare.lower() not in known:
                names.append(bare)
    if not names:
        return False
    said = content_words(line)
    for sentence in sentences(reply):
        if _is_question(sentence) or re.search(r"\byou", sentence, re.IGNORECASE):
            continue
        if BEEN_THERE.search(sentence):
            return True
        for name in names:
            told = re.search(rf"\b{re.escape(name)}\s+(?:is|was|lies|sits|stands|has)\b", sentence)
            if told and len(content_words(sentence, [name]) - said) >= EMBELLISH_WORDS:
                return True
    return False


RECITED_SHARE = 0.7


def recites_a_fact(reply: str, line: str, facts) -> bool:
    """
    A fact of what the NPC knows said to a line that does not ask of it: a reply sentence with
    RECITED_SHARE of a fact sentence's content words (four or more) when the line shares
    fewer than two with that fact ("Old Hob the baker keeps the bread stall by the well ..."
    to "I always carry a book of old sea charts", held-out seed 35089).
    """
    said = content_words(line)
    units = [
        words
        for fact in facts
        if len(content_words(fact) & said) < 2
        for words in map(content_words, sentences(fact))
        if len(words) >= 4
    ]
    return any(
        len(content_words(sentence) & words) >= RECITED_SHARE * len(words)
        for sentence in sentences(reply)
        for words in units
    )


GOODBYE_KEYS = [["back"], ["tomorrow"]]
HOME_CLAIM = re.compile(
    r"\b(?:is|are|was|comes?|hails?) from\b|\bgrew up\b|\bborn\b|\bhome ?town\b|\bhome is\b",
    re.IGNORECASE,
)


def classify_memory(value: str, scenario: Scenario | None) -> str:
    """
    Where a memory about a player comes from: "fact" when it matches a fact that player stated
    about themselves in the scenario (by the fact's keyword sets), "smalltalk" when it matches
    their small talk, "news" when it matches the news they passed on, else "ungrounded" (from
    their question, the NPC's reply, someone else, or nowhere). A newcomer stated nothing.
    """
    if scenario is None:
        return "ungrounded"
    if any(matches(value, f.keys) for f in scenario.facts):
        return "fact"
    if HOME_CLAIM.search(value):
        # "Yvaine is from the docks." from "The walk up from the docks was longer than I
        # remembered." (held-out seed 92821): small talk's words, a home nobody named.
        return "ungrounded"
    if any(matches(value, keys) for keys in scenario.smalltalk):
        return "smalltalk"
    said_goodbye = " ".join(step.line for step in scenario.day1 if step.kind == "goodbye")
    if "back tomorrow" in said_goodbye and matches(value, GOODBYE_KEYS):
        # "Emrys will be back tomorrow." from "Goodbye, Lyra, I'll be back tomorrow." is what
        # they said (held-out seed 29881 counted it ungrounded).
        return "smalltalk"
    if scenario.news and matches(value, scenario.news.keys):
        return "news"
    return "ungrounded"


def is_recalled(reply: str, scenario: Scenario, fact_index: int) -> bool:
    """The fact brought back as the player's: its keywords in the reply, not claimed by the NPC
    in the first person."""
    fact = scenario.facts[fact_index]
    return (
        matches(plain(reply), fact.keys)
        and not first_person_claim(reply, fact.claim, scenario.player)
        and not denied(reply, fact)
    )


_DENIAL = re.compile(r"\b(?:not|never|no|cannot|can't|aren't|don't|doesn't|isn't)\b", re.I)


# A reply longer than this is an essay, not a line said across a counter (held-out seed 63341:
# 80 words on what a falconer does, to "I'm a falconer by trade").
ESSAY_WORDS = 60


def denied(reply: str, fact) -> bool:
    """Every sentence naming the fact denies it, and the player's own telling had no denial:
    "You are not afraid of ghosts." for "Nothing frightens me like ghosts." (held-out seed
    63341 counted it recalled)."""
    if _DENIAL.search(fact.line):
        return False  # "I cannot eat garlic" comes back as "You can't eat garlic."
    naming = [s for s in sentences(reply) if matches(s, fact.keys)]
    return bool(naming) and all(_DENIAL.search(s) for s in naming)


def world_inventions(reply: str, question: str, npc: str, player: str, world_info: dict):
    """Specific places, goods, trades or names a reply about the trade or the town asserts that
    the demo world does not hold (`specific_mentions` against the world's words, what the
    question asked about counting when the reply affirms it)."""
    names = [*world_info["names"], player, npc]
    return specific_mentions(reply, question, names, world_info["words"], affirmed=True)


def role_slips(reply: str, step: Step, scenario: Scenario, speaker: str) -> list[str]:
    """
    The role slips of one reply, by form. A first-person claim is of the speaker's own facts
    (or of a never-told question's topic), and, asked the player's trade, of the NPC's own
    ("Yes, I remember. I was a herbalist." to "Do you remember my line of work?").
    """
    theirs = scenario.facts if speaker == scenario.player else []
    claims = [c for f in theirs for c in f.claim] + list(step.claim)
    # The told fact's own words in the NPC's first person, however phrased: "That's right, onions
    # can cause me allergic reactions." to "Never put onions in anything you serve me: I'm
    # allergic." (held-out seed 53309, counted by hand).
    if step.kind == "tell" and step.fact is not None and speaker == scenario.player:
        fact = scenario.facts[step.fact]
        # Not after "I love" / "I know": "I know, Gwendolyn. I love Pudding." is the NPC's own
        # fondness for the player's tortoise (seed 67219, rescored).
        claims += [
            rf"^(?!.*\bi (?:love|like|adore|know|remember)\b).*?(?<![a-z]){re.escape(word)}"
            for group in fact.keys
            for word in group
        ]
    category = scenario.facts[step.fact].category if step.fact is not None else step.category
    if step.kind in ("ask", "never_told", "newcomer") and category == "trade":
        traits = NPC_TRAITS.get(scenario.npc, "$^")
        # "I sell remedies at my market stall." from Wren to "What is my trade?" (seed 45119)
        doing = r"(?:sell|work|run|keep|make|mend|pour|play|sing|tend|brew|forge)s?"
        claims.append(rf"i(?:'m| am| was|\s+{doing})\s+(?:an?\s+|the\s+)?(?:\w+\s+)?(?:{traits})")
    npc_directed = step.kind in ("self", "trade", "town", "mid_named", "mid_plain")
    told = " ".join(f"{f.value} {f.line}" for f in theirs)
    forms = {
        "first_person_claim": bool(first_person_claim(reply, claims, speaker)),
        "speaks_as_player": speaks_as_player(reply, scenario.npc, speaker),
        "denies_being_itself": denies_being_itself(
            reply, scenario.npc, NPC_ROLES.get(scenario.npc, "")
        ),
        "third_person_self": third_person_self(reply, scenario.npc),
        "answered_as_player": answered_as_player(reply, step.line, scenario.npc, npc_directed),
        "swaps_i_and_you": swaps_i_and_you(reply, step.line),
        "assistant_voice": assistant_voice(reply),
        "narrates_player": narrates_player(reply),
        "speaks_of_listener": speaks_of_listener(reply, speaker, step.line),
        "claims_anothers_trade": claims_anothers_trade(reply, scenario.npc, told),
        "denies_the_telling": denies_the_telling(reply, step.kind, step.line),
        "gives_them_untold_kin": gives_them_untold_kin(reply, told, speaker),
    }
    return [form for form, hit in forms.items() if hit]


SLIP_FORMS = (
    "first_person_claim",
    "speaks_as_player",
    "denies_being_itself",
    "third_person_self",
    "answered_as_player",
    "swaps_i_and_you",
    "assistant_voice",
    "narrates_player",
    "speaks_of_listener",
    "claims_anothers_trade",
    "denies_the_telling",
    "gives_them_untold_kin",
)


def percentile(values, pct):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


def _pct(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 1) if whole else None


# ---------------------------------------------------------------- the run: replies


@dataclass
class Reply:
    scenario: str
    phase: str  # the step's kind (dialogue_world.STEP_KINDS)
    step: int  # its index in the day's steps
    day: int
    npc: str
    speaker: str
    said: str
    via: str  # say | talk
    reply: str = ""
    answered: bool = False  # the NPC's turn ran and said something
    refused: bool = False  # the turn was refused (rate, queue, share)
    fallback: bool = False
    first: bool = False  # the first line of a conversation
    seconds: float = 0.0
    tokens_out: int = 0
    tokens_in: int = 0
    raw: str = ""  # what the model wrote, before tags and character breaks were taken out
    prompt_n: int = 0  # llama.cpp's own timings: tokens evaluated (after its prompt cache)
    predicted_n: int = 0
    also_answered: list[str] = field(default_factory=list)  # other NPCs who took the line
    errors: list[str] = field(default_factory=list)
    flags: list[str] = field(default_factory=list)


ERROR_TEXT = re.compile(r"traceback|untrapped error|an error occurred|exception", re.IGNORECASE)


class ErrorLog(logging.Handler):
    """Errors the product logs while the evaluation runs (a crashed turn, a failed job), and
    its warnings (an LLM call that failed, a review put off), the first few hundred."""

    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.records: list[str] = []
        self.warnings: list[str] = []

    def emit(self, record):
        text = f"{record.name}: {record.getMessage()}"[:500]
        if record.levelno >= logging.ERROR:
            self.records.append(text)
        elif len(self.warnings) < 300:
            self.warnings.append(text)


class Driver:
    """Say lines as a player types them (the game's command handler) and keep what came back."""

    def __init__(self, fallbacks: set[str], errors: ErrorLog):
        self.fallbacks = fallbacks
        self.errors = errors
        self.replies: list[Reply] = []
        self.review_seconds: list[float] = []

    @staticmethod
    def command_for(step: Step, npc: str) -> tuple[str, str]:
        """`say` for a line that opens with the NPC's name and for the mid-conversation probes
        (their addressing is what is measured), `talk` for the rest (always addressed)."""
        from omniira_evennia.conversation.addressing import addressed_name

        if step.probe or addressed_name(step.line, [npc]):
            return "say", f"say {step.line}"
        return "talk", f"talk {npc} = {step.line}"

    def say(self, npc, player, step: Step, scenario: str, day: int, index: int, first=False):
        from evennia.commands.cmdhandler import cmdhandler

        from omniira_evennia import commands as omniira_commands
        from omniira_evennia.conversation import lifecycle, service
        from omniira_evennia.llm.client import LLMClient
        from omniira_evennia.models import LLMUsage

        via, command = self.command_for(step, npc.key)
        review = [0.0]
        real_close = lifecycle.close_conversation

        def timed_close(*args, **kwargs):
            t0 = time.monotonic()
            try:
                return real_close(*args, **kwargs)
            finally:
                review[0] += time.monotonic() - t0

        raw, timings, voice_timings = [], [], []
        real_chat, real_post = LLMClient.chat, LLMClient._post

        def recording_chat(client, tier_name, messages, **kwargs):
            start = len(timings)
            result = real_chat(client, tier_name, messages, **kwargs)
            if kwargs.get("feature") == "conversation":
                raw.append(result.text)
                voice_timings.extend(timings[start:])
            if PROMPTS_FILE:  # every request and its answer, to read what the model was shown
                with open(PROMPTS_FILE, "a") as out:
                    record = {"tier": tier_name, "messages": messages, "reply": result.text}
                    out.write(json.dumps(record) + "\n")
            return result

        def recording_post(client, *args, **kwargs):
            data = real_post(client, *args, **kwargs)
            timings.append(data.get("timings") or {})
            return data

        turns = []  # every turn the command started, whoever it went to
        real_start = service.start_turn

        def recording_start(npc_, speaker, message):
            entry = {"npc": npc_.key, "text": None, "refused": False}
            turns.append(entry)
            deferred = real_start(npc_, speaker, message)
            if deferred is None:
                entry["refused"] = True
            else:
                deferred.addCallback(lambda text: entry.update(text=text) or text)
            return deferred

        heard = []

        def inbox(text=None, *args, **kwargs):
            heard.append(text[0] if isinstance(text, tuple) else text)

        patches = [
            mock.patch.object(lifecycle, "close_conversation", timed_close),
            mock.patch.object(service, "close_conversation", timed_close, create=True),
            mock.patch.object(LLMClient, "chat", recording_chat),
            mock.patch.object(LLMClient, "_post", recording_post),
            mock.patch.object(service, "start_turn", recording_start),
            mock.patch.object(player, "msg", inbox),
        ]
        if hasattr(omniira_commands, "start_turn"):  # a command that calls the turn directly
            patches.append(mock.patch.object(omniira_commands, "start_turn", recording_start))
        last_usage = LLMUsage.objects.order_by("-id").values_list("id", flat=True).first() or 0
        logged = len(self.errors.records)
        started = time.monotonic()
        with contextlib.ExitStack() as stack:
            for patch in patches:
                stack.enter_context(patch)
            cmdhandler(player, command, callertype="object")
        seconds = time.monotonic() - started - review[0]
        if review[0]:
            self.review_seconds.append(review[0])
        mine = [t for t in turns if t["npc"] == npc.key]
        text = (mine[0]["text"] or "") if mine else ""
        usage = (
            LLMUsage.objects.filter(id__gt=last_usage, feature="conversation")
            .order_by("id")
            .first()
        )
        errors = [str(h) for h in heard if h and ERROR_TEXT.search(str(h))]
        errors += self.errors.records[logged:]
        reply = Reply(
            scenario=scenario,
            phase=step.kind,
            step=index,
            day=day,
            npc=npc.key,
            speaker=player.key,
            said=step.line,
            via=via,
            reply=text,
            answered=bool(text.strip()),
            refused=bool(mine) and mine[0]["refused"],
            fallback=text in self.fallbacks,
            first=first,
            seconds=round(seconds, 2),
            tokens_out=usage.tokens_out if usage else 0,
            raw=raw[0] if raw else "",
            tokens_in=usage.tokens_in if usage else 0,
            prompt_n=sum(int(t.get("prompt_n") or 0) for t in voice_timings),
            predicted_n=sum(int(t.get("predicted_n") or 0) for t in voice_timings),
            also_answered=[t["npc"] for t in turns if t["npc"] != npc.key],
            errors=errors,
        )
        self.replies.append(reply)
        return reply


# ---------------------------------------------------------------- the run: the world


def build_world():
    """The demo's world as `make demo` builds it (world/build.py), NPCs kept at their posts,
    and a side room where players wait between their turns (so NPCs can gossip alone)."""
    from evennia.utils import create
    from world import build

    rooms = build.build_world()
    npcs = {}
    for spec in build.NPCS:
        npc = [o for o in rooms[spec["room"]].contents if o.key == spec["key"]][0]
        npc.db.npc_autonomous = False  # nobody walks off during the evaluation
        npcs[spec["key"]] = npc
    rooms["waiting"] = create.create_object("typeclasses.rooms.Room", key="A Quiet Lane")
    return rooms, npcs


def _strings(value, found: list[str]) -> None:
    if isinstance(value, str):
        found.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _strings(item, found)
    elif isinstance(value, (list, tuple, set)):
        for item in value:
            _strings(item, found)


def _world_modules() -> list:
    """world/build.py and any other module the demo adds to the game's world package
    (knowledge, lore ...): not the demo's admin helper nor Evennia's template modules (help
    entries about Evennia itself, example prototypes)."""
    import importlib
    import pkgutil

    import world

    modules = []
    for info in pkgutil.iter_modules(world.__path__):
        if info.name in ("demo_admin", "help_entries", "prototypes"):
            continue
        try:
            modules.append(importlib.import_module(f"world.{info.name}"))
        except Exception as err:  # a module that needs a running server: its tables unread
            logging.getLogger(__name__).info("world.%s not read: %s", info.name, err)
    return modules


def _knowledge_texts() -> list[str]:
    """The text of what NPCs know about the world (the product's Knowledge rows, issue #25),
    if the product has them; nothing otherwise."""
    from django.apps import apps

    try:
        model = apps.get_model("omniira_evennia", "Knowledge")
    except LookupError:
        return []
    fields = [
        f.name
        for f in model._meta.get_fields()
        if getattr(f, "get_internal_type", None) and f.get_internal_type() in TEXT_FIELDS
    ]
    return [str(v) for row in model.objects.values(*fields)[:5000] for v in row.values() if v]


def demo_facts() -> list[str]:
    """The texts of the demo's knowledge file (game_template/world/knowledge.json)."""
    path = ROOT / "game_template" / "world" / "knowledge.json"
    return [e["text"] for e in json.loads(path.read_text())["knowledge"] if e.get("text")]


TEXT_FIELDS = ("CharField", "TextField")


def world_vocabulary(npcs, rooms) -> dict:
    """
    What the demo world holds, from the upper-case tables of the game's world modules
    (world/build.py's rooms and NPCs, and whatever knowledge the project adds there), what its
    NPCs know (Knowledge rows, if the product has them) and every text Attribute of its NPCs
    and rooms: its words, and its names (capitalised words).
    """
    texts, sources = [], []
    known = _knowledge_texts()
    if known:
        texts += known
        sources.append(f"Knowledge ({len(known)} texts)")
    for module in _world_modules():
        for name, value in vars(module).items():
            if name.isupper() and isinstance(value, (dict, list, tuple, str)):
                _strings(value, texts)
                sources.append(f"{module.__name__}.{name}")
    for obj in [*npcs.values(), rooms["tavern"], rooms["market"]]:
        texts.append(obj.key)
        for attr in obj.attributes.all():
            before = len(texts)
            _strings(attr.value, texts)
            if len(texts) > before:
                sources.append(f"{obj.key}.{attr.key}")
    joined = " ".join(texts)
    words = sorted({w for w in re.findall(r"[a-z]+", joined.lower()) if len(w) > 2})
    names = sorted(set(re.findall(r"\b[A-Z][a-z]+\b", joined)) - {"The", "You", "Say"})
    facts = sorted(set(known))
    return {"words": words, "names": names, "facts": facts, "sources": sorted(set(sources))}


def make_player(name: str, room):
    """A player character with an account, as a logged-in player has (commands such as
    `talk` look up the account's nicks); no session, so `EvalPlayer` counts it as played."""
    from evennia.utils import create

    account = create.create_account(
        f"{name}-{time.monotonic_ns()}", None, "not-a-real-password-7413"
    )
    player = create.create_object("bench.eval_player.EvalPlayer", key=name, location=room)
    player.db_account = account
    player.save(update_fields=["db_account"])
    return player


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


def _visit(player, room):
    player.move_to(room, quiet=True, move_type="teleport")


def _memories(npc, subject) -> list[dict]:
    from omniira_evennia.models import Memory

    rows = Memory.objects.filter(npc=npc, subject=subject).exclude(kind="commitment")
    return [
        {"key": m.key, "value": m.value, "source": m.source, "kind": m.kind, "suspect": m.suspect}
        for m in rows.order_by("id")
    ]


def _beliefs(subject) -> list[dict]:
    from omniira_evennia.models import Reflection

    rows = Reflection.objects.filter(target=subject).select_related("npc").order_by("id")
    return [{"npc": r.npc.key, "belief": r.belief, "importance": r.importance} for r in rows]


def _gossip_memories() -> list[dict]:
    from omniira_evennia.models import Knowledge, Memory, Source

    rows = Memory.objects.filter(source=Source.GOSSIP).select_related(
        "npc", "subject", "provenance"
    )
    return [
        {
            "npc": m.npc.key,
            "subject": m.subject.key if m.subject else "",
            "teller": m.provenance.key if m.provenance else "",
            "value": m.value,
            "chain": m.chain,
        }
        for m in rows.order_by("id")
    ] + [
        # Knowledge one NPC passed to another (news a player told, a world event): gossip too.
        {
            "npc": k.npc.key,
            "subject": "",
            "teller": k.teller.key if k.teller else "",
            "value": k.text,
            "chain": k.chain,
            "knowledge": True,
        }
        for k in Knowledge.objects.filter(source="gossip").select_related("npc", "teller")
    ]


def _npc_memories(npcs) -> dict[str, list[str]]:
    """What each NPC holds of people and of what it was told or heard: its memories and the
    knowledge it learned (news a player told it, gossip of it), not what a builder wrote."""
    from omniira_evennia.models import Knowledge, Memory

    return {
        name: list(Memory.objects.filter(npc=npc).values_list("value", flat=True))
        + list(
            Knowledge.objects.filter(npc=npc)
            .exclude(source="authored")
            .values_list("text", flat=True)
        )
        for name, npc in npcs.items()
    }


GOSSIP_LAYOUTS = [
    {"tavern": ["Maren", "Lyra"], "market": ["Voss", "Wren"]},
    {"tavern": ["Maren", "Voss"], "market": ["Lyra", "Wren"]},
    {"tavern": ["Maren", "Wren"], "market": ["Lyra", "Voss"]},
]


def gossip_rounds(npcs, rooms, rounds: int, log) -> list[dict]:
    """The NPCs paired in turn in the two rooms (no player there) and each pair let talk
    (`omniira_evennia.api.gossip_round`); returns what each exchange said and kept."""
    from omniira_evennia import api

    homes = {name: npc.location for name, npc in npcs.items()}
    exchanges = []
    for number in range(rounds):
        layout = GOSSIP_LAYOUTS[number % len(GOSSIP_LAYOUTS)]
        for room, names in layout.items():
            for name in names:
                npcs[name].move_to(rooms[room], quiet=True, move_type="teleport")
        for room in (rooms["tavern"], rooms["market"]):
            results = []
            started = time.monotonic()
            for deferred in api.gossip_round(room=room, budget=1):
                deferred.addBoth(results.append)
            for result in results:
                exchanges.append(_exchange_record(result, npcs, time.monotonic() - started))
                log(f"  gossip in {room.key}: {exchanges[-1]['lines']}")
    for name, npc in npcs.items():
        npc.move_to(homes[name], quiet=True, move_type="teleport")
    return exchanges


def _exchange_record(result, npcs, seconds) -> dict:
    names = {npc.id: name for name, npc in npcs.items()}
    if not hasattr(result, "lines"):
        return {"lines": [], "accepted": [], "error": str(result)[:300], "seconds": seconds}
    return {
        "lines": [[names.get(who, str(who)), text] for who, text in result.lines],
        "accepted": [item.fact for item in result.accepted],
        "rejected": [reason for _, reason in result.rejected],
        "error": result.error,
        "seconds": round(seconds, 2),
    }


# ---------------------------------------------------------------- the run


def run_eval(
    scenarios: list[Scenario],
    tiers: dict,
    extra_settings: dict | None = None,
    rollover: bool = True,
    gossip: int = 2,
    seed: int = 0,
    log=print,
) -> dict:
    """Run the scenarios in the current (migrated, empty enough) database; return the record
    of everything said and stored (`score` turns it into the report)."""
    from django.conf import settings
    from django.test import override_settings

    from omniira_evennia import conf
    from omniira_evennia.conversation import lifecycle
    from omniira_evennia.llm import client as llm
    from omniira_evennia.memory import store
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
    random.seed(seed)  # the product's own draws (gossip pairs, fallback lines)
    runner.run_inline(True)
    errors = ErrorLog()
    logging.getLogger().addHandler(errors)
    started = time.monotonic()
    try:
        with override_settings(OMNIIRA=omniira), game_clock() as clock:
            conf.reset_settings()
            llm.reset_client()
            store.invalidate()
            health.reset()
            fallbacks = {
                line.format(name=n)
                for line in conf.get_settings().FALLBACK_LINES
                for n in world.NPC_NAMES
            }
            driver = Driver(fallbacks, errors)
            rooms, npcs = build_world()
            # As the server's start does (lifecycle.warm_up), when the settings ask for it.
            from omniira_evennia.lifecycle import warm_prompts

            warm_prompts(list(npcs.values()))
            world_info = world_vocabulary(npcs, rooms)
            waiting = rooms["waiting"]
            players = {s.id: make_player(s.player, waiting) for s in scenarios}

            def talk(s, player, steps, day):
                npc = npcs[s.npc]
                _visit(player, npc.location)
                for index, step in enumerate(steps):
                    r = driver.say(npc, player, step, s.id, day, index, first=index == 0)
                    note = "" if r.answered else (" (refused)" if r.refused else " (no reply)")
                    log(
                        f"  [{s.id} {step.kind}] {player.key}: {step.line}\n      {s.npc}: {r.reply}"
                        f" ({r.seconds}s){note}"
                    )
                _visit(player, waiting)

            # 1. Day 1, evening: tell, ask, small talk, news, goodbye (the review runs).
            clock.set(1, 18)
            for number, s in enumerate(scenarios, 1):
                talk(s, players[s.id], s.day1, 1)
                log(f"day 1: {number}/{len(scenarios)}, {time.monotonic() - started:.0f}s")
            memories_day1 = {s.id: _memories(npcs[s.npc], players[s.id]) for s in scenarios}
            counters_tell = health.snapshot()

            # 2. Gossip, with every player out of the rooms.
            clock.set(1, 21)
            exchanges = gossip_rounds(npcs, rooms, gossip, log) if gossip else []

            # 3. The night: rollover, then a restart.
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
            waiting = _refetch(waiting)

            # 4. Day 2: each player asks back, leaves (the ticker's review); then newcomers.
            clock.set(2, 10)
            for number, s in enumerate(scenarios, 1):
                talk(s, players[s.id], s.day2, 2)
                _review_left(lifecycle, driver)
                log(f"day 2: {number}/{len(scenarios)}, {time.monotonic() - started:.0f}s")
            newcomers = {}
            for s in scenarios:
                newcomers[s.id] = make_player(s.newcomer, waiting)
                talk(s, newcomers[s.id], s.newcomer_steps, 2)
                _review_left(lifecycle, driver)
            night_work = _night_work_retried(daily, log) if rollover else {}
            record = {
                "scenarios": [s.to_dict() for s in scenarios],
                "replies": [asdict(r) for r in driver.replies],
                "memories_day1": memories_day1,
                "memories": {
                    s.id: {
                        "player": _memories(npcs[s.npc], players[s.id]),
                        "newcomer": _memories(npcs[s.npc], newcomers[s.id]),
                    }
                    for s in scenarios
                },
                "beliefs": {
                    s.id: {"player": _beliefs(players[s.id]), "newcomer": _beliefs(newcomers[s.id])}
                    for s in scenarios
                },
                "gossip_memories": _gossip_memories(),
                "npc_memories": _npc_memories(npcs),
                "exchanges": exchanges,
                "world": world_info,
                "counters": health.snapshot(),
                "counters_after_tell": counters_tell,
                "rollover": rollover_summary,
                "night_work": night_work,
                "review_seconds": driver.review_seconds,
                "errors": errors.records,
                "warnings": errors.warnings,
                "total_seconds": time.monotonic() - started,
            }
    finally:
        logging.getLogger().removeHandler(errors)
        conf.reset_settings()
        llm.reset_client()
    return record


def _review_left(lifecycle, driver) -> None:
    """What the ticker does once a player has left: end the conversation, review it."""
    t0 = time.monotonic()
    if lifecycle.reap_conversations():
        lifecycle.process_ended(limit=100)
        driver.review_seconds.append(time.monotonic() - t0)


def _night_work_retried(daily, log) -> dict:
    """The night's diaries and reflections by status, after the rollover and after the ticker's
    retries: each failed one is run again as if its wait were over (`retry_due`), up to
    RETRY_ATTEMPTS rounds, as a game left running would."""
    from django.db.models import Count
    from django.utils import timezone

    from omniira_evennia.conf import get_settings
    from omniira_evennia.models import DailyWork

    def by_status() -> dict:
        return dict(DailyWork.objects.values_list("status").annotate(n=Count("id")))

    after_rollover = by_status()
    for _ in range(get_settings().RETRY_ATTEMPTS):
        waiting = DailyWork.objects.filter(status="retry")
        if not waiting.update(retry_at=timezone.now()):  # the wait is over (time passes)
            break
        daily.retry_due()  # run inline here (runner.run_inline): done when it returns
        log(f"night's work retried: {by_status()}")
    return {"after_rollover": after_rollover, "at_end": by_status()}


# ---------------------------------------------------------------- scoring the record


def flag_reply(
    r: dict,
    step: Step,
    scenario: Scenario,
    others: list[Scenario],
    world_info,
    earlier=(),
    said_before=(),
):
    """The flags of one reply (each a rule above), by what its line was for; `earlier`: the
    NPC's earlier replies to this speaker that day; `said_before`: the speaker's earlier lines
    to the NPC (a reply handing one of them back is restated too, but not the asked fact's own
    line when it is asked back)."""
    flags = []
    if step.probe:
        flags.append("answered" if r["answered"] else "ignored")
    if r["errors"]:
        flags.append("error")
    if not r["answered"]:
        if not step.probe:
            flags.append("lost")
        return flags
    if r["fallback"]:
        return flags + ["fallback"]
    reply, speaker = r["reply"], r["speaker"]
    if leaks_prompt(reply, world_info.get("prompt_phrases", frozenset())):
        flags.append("prompt_leak")
    if is_repeat(reply, list(earlier)):
        flags.append("repeat")
    asked = {t.line for t in scenario.day1 if step.kind == "ask" and t.fact == step.fact}
    lines = [step.line] + [line for line in said_before if line not in asked]
    # Saying it does not know what it was never told repeats the question's words ("I don't
    # remember what your son is called."): that is the answer asked for, not the words handed
    # back (held-out busy seed 11411 counted two such as restated).
    admitted = step.kind in ("never_told", "newcomer") and admits_not_knowing(reply)
    if (
        step.kind != "goodbye"
        and not admitted
        and any(is_restated(reply, line, scenario.npc, speaker) for line in lines)
    ):
        flags.append("restated")
    flags += [f"slip:{form}" for form in role_slips(reply, step, scenario, speaker)]
    if len(re.findall(r"[A-Za-z']+", reply)) > ESSAY_WORDS:
        flags.append("essay")
    if step.kind == "ask":
        flags.append("recalled" if is_recalled(reply, scenario, step.fact) else "missed")
    if step.kind in ("never_told", "newcomer"):
        allowed = world_info["names"] + list(world.NPC_NAMES)
        admits = admits_not_knowing(reply)
        if admits:
            flags.append("admits")
        # Answered with another of their facts: "Building a windmill, Finnegan." (his dream) to
        # "Do you remember my line of work?" (held-out busy seed 44893, counted by hand).
        theirs = scenario.facts if speaker == scenario.player else []
        misanswered = not admits and any(matches(reply, f.keys) for f in theirs)
        if (
            is_invented_answer(
                reply, step.line, scenario.npc, speaker, allowed, world_info["words"]
            )
            or gives_world_name_as_theirs(reply, speaker, world_info["names"])
            or misanswered
        ):
            flags.append("invented")
        if any(matches(reply, f.keys) for o in others for f in o.facts if o.npc == scenario.npc):
            flags.append("mixup")
    # What the NPC says of its trade and town must be in the world; of itself it may make up.
    if step.kind in ("trade", "town") or step.category == "likes":
        invented = world_inventions(reply, step.line, scenario.npc, speaker, world_info)
        if invented:
            flags.append("world_invented:" + ",".join(invented))
    if step.kind in ("tell", "news", "mid_plain"):
        known = [*world_info["names"], *world.NPC_NAMES, speaker]
        if embellishes(reply, step.line, known):
            flags.append("embellished")
        if recites_a_fact(reply, step.line, world_info.get("facts", ())):
            flags.append("recited")
    if step.kind == "self" and step.category == "role":
        in_role = re.search(NPC_TRAITS.get(scenario.npc, "$^"), reply, re.IGNORECASE)
        flags.append("in_role" if in_role else "off_role")
    return flags


def _steps_of(scenario: Scenario, r: dict) -> Step:
    if r["speaker"] == scenario.newcomer and r["speaker"] != scenario.player:
        return scenario.newcomer_steps[r["step"]]
    return (scenario.day1 if r["day"] == 1 else scenario.day2)[r["step"]]


def score(record: dict, meta: dict | None = None) -> dict:
    """The report: every reply flagged, memories and beliefs classified, gossip counted, the
    summary, and the raw pairs a person should read."""
    scenarios = [Scenario.from_dict(s) for s in record["scenarios"]]
    by_id = {s.id: s for s in scenarios}
    world_info = {**record["world"], "prompt_phrases": prompt_phrases()}
    # A run from before the facts were kept: the demo's knowledge file, as the run had it.
    world_info.setdefault("facts", demo_facts())
    replies = record["replies"]
    answers: dict[tuple, list[str]] = {}
    lines: dict[tuple, list[str]] = {}
    for r in replies:
        s = by_id[r["scenario"]]
        earlier = answers.setdefault((r["scenario"], r["speaker"], r["day"]), [])
        before = lines.setdefault((r["scenario"], r["speaker"]), [])
        others = [o for o in scenarios if o is not s]
        step = _steps_of(s, r)
        r["flags"] = flag_reply(r, step, s, others, world_info, earlier, before)
        r["category"] = s.facts[step.fact].category if step.fact is not None else step.category
        if r["answered"] and not r["fallback"]:
            earlier.append(r["reply"])
        if step.kind != "goodbye":
            before.append(r["said"])
    memories = classify_memories(record, by_id)
    beliefs = classify_beliefs(record, by_id)
    gossip = score_gossip(record, scenarios)
    summary = summarise(scenarios, record, replies, memories, beliefs, gossip)
    summary.update(meta or {})
    return {
        "summary": summary,
        "table": table_rows(summary),
        "raw_pairs": raw_pairs(replies, seed=len(replies)),
        "memories": memories,
        "beliefs": beliefs,
        "gossip": gossip,
        "flagged_replies": [r for r in replies if _bad(r["flags"])],
    }


def classify_memories(record: dict, by_id: dict) -> list[dict]:
    rows = []
    for sid, who in record["memories"].items():
        s = by_id[sid]
        for role, subject in (("player", s.player), ("newcomer", s.newcomer)):
            for m in who[role]:
                cls = classify_memory(m["value"], s if role == "player" else None)
                rows.append(
                    {
                        "scenario": sid,
                        "npc": s.npc,
                        "about": subject,
                        "role": role,
                        "class": cls,
                        **m,
                    }
                )
    return rows


def classify_beliefs(record: dict, by_id: dict) -> list[dict]:
    rows = []
    for sid, who in record["beliefs"].items():
        s = by_id[sid]
        for role, subject in (("player", s.player), ("newcomer", s.newcomer)):
            for b in who[role]:
                cls = classify_memory(b["belief"], s if role == "player" else None)
                rows.append({"scenario": sid, "about": subject, "role": role, "class": cls, **b})
    return rows


def score_gossip(record: dict, scenarios: list[Scenario]) -> dict:
    """
    News passed on against talk passed on: a planted news item is passed on when a memory on
    an NPC other than the one told matches its keys; any gossip memory matching no planted
    news is talk passed on (who knows what, greetings, lines said to the listener).
    """
    planted = [s for s in scenarios if s.news]
    passed, kept = [], []
    for s in planted:
        reached = sorted(
            name
            for name, values in record["npc_memories"].items()
            if name != s.npc and any(matches(v, s.news.keys) for v in values)
        )
        if reached:
            passed.append(
                {"scenario": s.id, "news": s.news.line, "told": s.npc, "reached": reached}
            )
        if any(matches(v, s.news.keys) for v in record["npc_memories"].get(s.npc, [])):
            kept.append(s.id)
    facts = [f for s in scenarios for f in s.facts]
    news, told, talk, lore = [], [], [], []
    for g in record["gossip_memories"]:
        if any(matches(g["value"], s.news.keys) for s in planted):
            news.append(g)
        elif any(matches(g["value"], f.keys) for f in facts):
            told.append(g)  # a player's own fact passed on: news about the player, not planted
        elif g.get("knowledge") and not re.search(r"\b(?:you|your)\b", g["value"], re.I):
            lore.append(g)  # what the world's builder wrote, passed on: no talk, no news
        else:
            talk.append(g)
    return {
        "planted": [{"scenario": s.id, "told": s.npc, "line": s.news.line} for s in planted],
        "kept_by_the_told": kept,
        "passed": passed,
        "news_memories": len(news),
        "player_facts": told,
        "talk": talk,
        "lore": lore,
        "exchanges": record.get("exchanges", []),
    }


def _count(replies, flag, phases=None) -> int:
    return sum(
        any(f == flag or f.startswith(flag + ":") for f in r["flags"])
        for r in replies
        if phases is None or r["phase"] in phases
    )


def summarise(scenarios, record, replies, memories, beliefs, gossip) -> dict:
    facts = sum(len(s.facts) for s in scenarios)
    night_at_end = (record.get("night_work") or {}).get("at_end", {})  # none in older records
    stored = sum(
        any(matches(m["value"], f.keys) for m in record["memories_day1"][s.id])
        for s in scenarios
        for f in s.facts
    )
    answered = [r for r in replies if r["answered"] and not r["fallback"]]
    asks = [r for r in replies if r["phase"] == "ask"]
    history = [r for r in replies if r["phase"] == "never_told"]
    newcomers = [r for r in replies if r["phase"] == "newcomer"]
    towns = [r for r in answered if r["phase"] in ("trade", "town") or r.get("category") == "likes"]
    selfq = [r for r in answered if r["phase"] == "self"]
    tellings = [r for r in answered if r["phase"] in ("tell", "news", "mid_plain")]
    slips = [r for r in answered if any(f.startswith("slip:") for f in r["flags"])]
    ungrounded = [m for m in memories if m["class"] == "ungrounded"]
    first = [r["seconds"] for r in replies if r["first"] and r["answered"]]
    seconds = [r["seconds"] for r in answered]
    idle = [
        r["prompt_n"] / IDLE_PROMPT_TPS + r["predicted_n"] / IDLE_GEN_TPS
        for r in answered
        if r["prompt_n"] or r["predicted_n"]
    ]
    mid = {kind: [r for r in replies if r["phase"] == kind] for kind in ("mid_plain", "mid_named")}
    classes = {}
    for m in memories:
        classes[m["class"]] = classes.get(m["class"], 0) + 1
    lost = [r for r in replies if "lost" in r["flags"]]
    return {
        "scenarios": len(scenarios),
        "facts": facts,
        "replies": len(answered),
        "lines": len(replies),
        "facts_stored": stored,
        "facts_stored_pct": _pct(stored, facts),
        "facts_recalled": _count(asks, "recalled"),
        "facts_recalled_pct": _pct(_count(asks, "recalled"), len(asks)),
        "memories_stored": len(memories),
        "memories_ungrounded": len(ungrounded),
        "memories_ungrounded_pct": _pct(len(ungrounded), len(memories)),
        "memory_classes": classes,
        "memories_about_newcomers": sum(m["role"] == "newcomer" for m in memories),
        "beliefs": len(beliefs),
        "beliefs_ungrounded": sum(b["class"] == "ungrounded" for b in beliefs),
        "invented_newcomers": _count(newcomers, "invented"),
        "newcomer_questions": len(newcomers),
        "invented_newcomers_pct": _pct(_count(newcomers, "invented"), len(newcomers)),
        "invented_history": _count(history, "invented"),
        "history_questions": len(history),
        "invented_history_pct": _pct(_count(history, "invented"), len(history)),
        "admitted_not_knowing_pct": _pct(
            _count(history + newcomers, "admits"), len(history + newcomers)
        ),
        "cross_player_mixups": _count(history + newcomers, "mixup"),
        "town_questions": len(towns),
        "town_invented": _count(towns, "world_invented"),
        "town_invented_pct": _pct(_count(towns, "world_invented"), len(towns)),
        "tellings": len(tellings),
        "tellings_embellished": _count(tellings, "embellished"),
        "tellings_recited": _count(tellings, "recited"),
        "self_questions": len(selfq),
        "self_role_questions": _count(selfq, "in_role") + _count(selfq, "off_role"),
        "self_role_in_role": _count(selfq, "in_role"),
        "prompt_leaks": _count(answered, "prompt_leak"),
        "repeated": _count(answered, "repeat"),
        "repeated_pct": _pct(_count(answered, "repeat"), len(answered)),
        "restated": _count(answered, "restated"),
        "restated_pct": _pct(_count(answered, "restated"), len(answered)),
        "essays": _count(answered, "essay"),
        "role_slips": len(slips),
        "role_slips_pct": _pct(len(slips), len(answered)),
        "role_slips_by_form": {form: _count(answered, f"slip:{form}") for form in SLIP_FORMS},
        "role_confusion_pct": _pct(len(slips), len(answered)),  # the old name (bench/report.py)
        "mid_plain_lines": len(mid["mid_plain"]),
        "mid_plain_answered_pct": _pct(_count(mid["mid_plain"], "answered"), len(mid["mid_plain"])),
        "mid_named_lines": len(mid["mid_named"]),
        "mid_named_answered_pct": _pct(_count(mid["mid_named"], "answered"), len(mid["mid_named"])),
        "news_planted": len(gossip["planted"]),
        "news_kept_by_the_told": len(gossip["kept_by_the_told"]),
        "news_passed": len(gossip["passed"]),
        "gossip_news_memories": gossip["news_memories"],
        "gossip_player_facts_passed": len(gossip["player_facts"]),
        "gossip_talk_passed": len(gossip["talk"]),
        "gossip_lore_passed": len(gossip.get("lore", [])),
        "gossip_exchanges": len(gossip["exchanges"]),
        "fallbacks": sum(r["fallback"] for r in replies),
        "fallback_pct": _pct(sum(r["fallback"] for r in replies), len(replies)),
        "lost": len(lost),
        "refused": sum(r["refused"] for r in replies),
        "errors": len(record.get("errors", [])) + sum(bool(r["errors"]) for r in replies),
        "warnings": len(record.get("warnings", [])),
        "llm_failures": sum("LLM call failed" in w for w in record.get("warnings", [])),
        "first_reply_p50_s": _round(percentile(first, 50)),
        "first_reply_p95_s": _round(percentile(first, 95)),
        "reply_median_s": _round(statistics.median(seconds)) if seconds else None,
        "reply_p95_s": _round(percentile(seconds, 95)),
        "reply_idle_median_s": _round(statistics.median(idle)) if idle else None,
        "reply_idle_p95_s": _round(percentile(idle, 95)),
        "review_median_s": (
            _round(statistics.median(record["review_seconds"]))
            if record.get("review_seconds")
            else None
        ),
        "night_work": sum(night_at_end.values()),
        "night_work_done": sum(
            n for status, n in night_at_end.items() if status in ("done", "empty")
        ),
        "total_minutes": round(record.get("total_seconds", 0) / 60, 1),
    }


def _round(value):
    return None if value is None else round(value, 2)


def _of(part: str, whole: str):
    # A summary from before a measure came has no key for it: "-".
    return lambda s: f"{s[part]} of {s[whole]}" if part in s and whole in s else "-"


def _pair(a: str, b: str):
    return lambda s: f"{s[a]} / {s[b]}"


def _form(form: str):
    return lambda s: s["role_slips_by_form"][form]


# (label, a summary key or a function of the summary, target: issue #24's acceptance)
TABLE = [
    ("facts stored as memories, %", "facts_stored_pct", ">= 95"),
    ("facts brought back after a restart, %", "facts_recalled_pct", ">= 90"),
    ("ungrounded memories, % of stored", "memories_ungrounded_pct", "<= 2"),
    ("ungrounded beliefs (of all beliefs)", _of("beliefs_ungrounded", "beliefs"), "0"),
    ("invented answers, newcomers", _of("invented_newcomers", "newcomer_questions"), "0"),
    ("invented answers, players with history", _of("invented_history", "history_questions"), "0"),
    ("  of them another player's fact (mix-ups)", "cross_player_mixups", "0"),
    ("never-told questions admitted, %", "admitted_not_knowing_pct", "100"),
    ("trade/town answers with invented specifics", _of("town_invented", "town_questions"), "0"),
    (
        "tellings met with a description of what they named",
        _of("tellings_embellished", "tellings"),
        "0",
    ),
    (
        "tellings met with a fact of the NPC's it was not asked",
        _of("tellings_recited", "tellings"),
        "0",
    ),
    ("'what do you do' answered in role", _of("self_role_in_role", "self_role_questions"), "all"),
    ("restated replies, %", "restated_pct", "<= 3"),
    (f"replies over {ESSAY_WORDS} words", "essays", "0"),
    ("replies repeating an earlier one that day, %", "repeated_pct", "<= 5"),
    ("replies saying the prompt's scaffolding", "prompt_leaks", "0"),
    ("role slips, % of replies", "role_slips_pct", "<= 2"),
    *[(f"  {form.replace('_', ' ')}", _form(form), "0") for form in SLIP_FORMS],
    ("mid-conversation lines answered, no name, %", "mid_plain_answered_pct", "100"),
    ("mid-conversation lines answered, name at the end, %", "mid_named_answered_pct", "100"),
    ("gossip: planted news passed on to another NPC", _of("news_passed", "news_planted"), "most"),
    (
        "gossip memories: planted news / players' facts / talk",
        lambda s: (
            f"{s['gossip_news_memories']} / {s['gossip_player_facts_passed']} / "
            f"{s['gossip_talk_passed']}"
        ),
        "talk 0",
    ),
    ("fallback lines / lost replies", _pair("fallbacks", "lost"), "0 / 0"),
    ("first reply, p50 / p95 s (wall)", _pair("first_reply_p50_s", "first_reply_p95_s"), ""),
    ("reply time, median s (wall)", "reply_median_s", ""),
    (
        "reply time at idle speed, median / p95 s",
        _pair("reply_idle_median_s", "reply_idle_p95_s"),
        "",
    ),
    ("conversation-end review, median s", "review_median_s", ""),
    (
        "night's diaries and reflections done, retried where needed",
        _of("night_work_done", "night_work"),
        "all",
    ),
]


def table_rows(summary: dict) -> list[list[str]]:
    rows = []
    for label, key, target in TABLE:
        value = key(summary) if callable(key) else summary.get(key)
        rows.append([label, "-" if value is None else str(value), target])
    return rows


def print_table(report: dict) -> None:
    s = report["summary"]
    print(
        f"\n{s.get('split', '?')} half, seed {s.get('seed')}, {s['scenarios']} scenarios, "
        f"{s['facts']} facts, {s['lines']} lines ({'busy' if s.get('busy') else 'idle'}), "
        f"{s['total_minutes']} min"
    )
    width = max(len(r[0]) for r in report["table"])
    for label, value, target in report["table"]:
        print(f"  {label:<{width}}  {value:>14}  {target}")


SEVERITY = [
    "prompt_leak",
    "mixup",
    "invented",
    "slip:speaks_as_player",
    "slip:denies_being_itself",
    "slip:answered_as_player",
    "slip:swaps_i_and_you",
    "slip:first_person_claim",
    "slip:assistant_voice",
    "world_invented",
    "embellished",
    "recited",
    "slip:third_person_self",
    "restated",
    "repeat",
    "missed",
    "off_role",
    "fallback",
    "lost",
    "error",
]


def _bad(flags: list[str]) -> list[str]:
    return [f for f in flags if any(f == s or f.startswith(s + ":") for s in SEVERITY)]


def _badness(r: dict) -> tuple:
    ranks = [
        len(SEVERITY) - i
        for i, s in enumerate(SEVERITY)
        if any(f == s or f.startswith(s + ":") for f in r["flags"])
    ]
    return (len(ranks), max(ranks, default=0))


def raw_pairs(replies: list[dict], seed: int = 0, count: int = 30, per_flag: int = 3) -> list:
    """At least `count` (line, reply) pairs for a person to read: the worst `per_flag` of each
    category first (most flags, then the gravest), then others drawn at random for contrast."""
    chosen = []
    for flag in SEVERITY:
        hits = [
            r for r in replies if any(f == flag or f.startswith(flag + ":") for f in r["flags"])
        ]
        for r in sorted(hits, key=_badness, reverse=True)[:per_flag]:
            if r not in chosen:
                chosen.append(r)
    rest = [r for r in replies if r not in chosen and r["answered"]]
    random.Random(seed).shuffle(rest)
    chosen += rest[: max(0, count - len(chosen))]
    return [
        {
            "scenario": r["scenario"],
            "phase": r["phase"],
            "npc": r["npc"],
            "speaker": r["speaker"],
            "line": r["said"],
            "reply": r["reply"],
            "flags": r["flags"],
        }
        for r in chosen
    ]


def print_raw(report: dict, limit: int | None = None) -> None:
    print("\nRaw pairs (the worst of each category first):")
    for p in report["raw_pairs"][:limit]:
        flags = ", ".join(p["flags"]) or "-"
        print(
            f"  [{p['phase']}] {p['speaker']} -> {p['npc']}: {p['line']}\n      "
            f"{p['npc']}: {p['reply'] or '(nothing)'}   [{flags}]"
        )
    bad = [m for m in report["memories"] if m["class"] == "ungrounded"]
    if bad:
        print("\nUngrounded memories (first 12):")
        for m in bad[:12]:
            print(f"  {m['npc']} about {m['about']} ({m['role']}, {m['source']}): {m['value']}")
    beliefs = [b for b in report["beliefs"] if b["class"] == "ungrounded"]
    if beliefs:
        print("\nUngrounded beliefs (first 8):")
        for b in beliefs[:8]:
            print(f"  {b['npc']} about {b['about']} (importance {b['importance']}): {b['belief']}")
    talk = report["gossip"]["talk"]
    if talk:
        print("\nTalk passed on as gossip (first 8):")
        for g in talk[:8]:
            print(f"  {g['npc']} heard from {g['teller']} about {g['subject']}: {g['value']}")


# ---------------------------------------------------------------- the model server


@contextlib.contextmanager
def local_model(threads: int | None = None, ctx: int = SLOT_CTX, base_url: str | None = None):
    """The packaged offline model on a free port, served as `make demo` serves it (SLOTS slots
    of `ctx` tokens), or `base_url`, a server already running."""
    if base_url:
        yield base_url
        return
    server, url = start_server(threads=threads, ctx=ctx * SLOTS, parallel=SLOTS)
    try:
        wait_until_healthy(url, server, timeout=600)  # the first run assembles 1.1 GB
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:  # busy in a generation, it may not hear SIGTERM
            server.kill()
            server.wait(timeout=30)


def fresh_database(prefix: str, name: str) -> str:
    """A new SQLite game database in a temporary folder, migrated, with the default homes (the
    evaluations' starting world). Returns the folder."""
    from bench.retrieval import setup_django

    tmp = tempfile.mkdtemp(prefix=prefix)
    setup_django("sqlite", tmp, name)
    ensure_default_homes()
    return tmp


MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf (llama.cpp via xllamacpp)"


@contextlib.contextmanager
def competitor(enabled: bool):
    """One CPU-bound process for the run's duration (`--busy`), killed at the end. It runs in
    a session of its own, as another program on a user's machine does: on Linux (autogroup)
    it then weighs as much as the model server with all its threads."""
    if not enabled:
        yield None
        return
    proc = subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
    try:
        yield proc.pid
    finally:
        proc.kill()
        proc.wait(timeout=10)


def tiers_for(base_url: str, overrides: dict | None = None) -> dict:
    tiers = {}
    for name, tier in DEMO_TIERS.items():
        tiers[name] = {"base_url": base_url, "model": "local", **tier}
        tiers[name].update((overrides or {}).get(name, {}))
    return tiers


def choose(seed: int, count: int, split: str, limit: int | None = None, only=None):
    """The run's scenarios: the seed's `count`, the chosen half, optionally a covering subset."""
    scenarios = world.select(world.generate(seed, count), split)
    if only:
        return [s for s in scenarios if s.id in only]
    if limit:
        return world.covering(scenarios, limit)
    return scenarios


def rescore(path: Path) -> dict:
    """Score a stored run again with today's scoring (e.g. after a rule was changed)."""
    report = json.loads(path.read_text())
    meta = {k: report["summary"].get(k) for k in ("split", "seed", "busy", "subset")}
    again = score(report["record"], meta)
    report.update(again)
    path.write_text(json.dumps(report, indent=2))
    return report


def result_name(args) -> str:
    if args.label:
        return f"dialogue_eval_{args.label}.json"
    parts = ["dialogue_eval"]
    if args.split != "heldout":
        parts.append(args.split)
    if args.limit or args.only:
        parts.append("subset")
    if args.busy:
        parts.append("busy")
    return "_".join(parts) + ".json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=None, help="the draw (default: a new one)")
    parser.add_argument("--count", type=int, default=DEFAULT_COUNT, help="scenarios generated")
    parser.add_argument("--split", choices=("tuning", "heldout", "all"), default="heldout")
    parser.add_argument("--limit", type=int, default=None, help="a covering subset of N")
    parser.add_argument("--only", default="", help="comma-separated scenario ids")
    parser.add_argument("--busy", action="store_true", help="with a CPU-bound competitor")
    parser.add_argument("--gossip-rounds", type=int, default=2)
    parser.add_argument("--no-rollover", action="store_true")
    parser.add_argument("--base-url", default=None, help="use a model server already running")
    parser.add_argument("--threads", type=int, default=default_threads())
    parser.add_argument("--ctx", type=int, default=4096, help="tokens per model slot")
    parser.add_argument("--label", default="", help="results go to dialogue_eval_<label>.json")
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
        report = rescore(Path(args.rescore))
        print_table(report)
        print_raw(report)
        return
    extra = dict(SMALL_MODEL_SETTINGS)
    for item in args.set:
        key, _, value = item.partition("=")
        extra[key] = json.loads(value)
    tier_overrides: dict = {}
    for item in args.tier:
        path, _, value = item.partition("=")
        tier, _, key = path.partition(".")
        tier_overrides.setdefault(tier, {})[key] = json.loads(value)

    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(3), "big")
    commit = _git_commit()  # the code the run starts with (later commits do not change it)
    scenarios = choose(
        seed, args.count, args.split, args.limit, [x for x in args.only.split(",") if x]
    )
    tmp = fresh_database("omniira-dialogue-eval-", "dialogue.db3")
    print(
        f"seed {seed}, {args.split} half: {len(scenarios)} scenarios, database in {tmp}", flush=True
    )
    with competitor(args.busy), local_model(args.threads, args.ctx, args.base_url) as url:
        record = run_eval(
            scenarios,
            tiers_for(url, tier_overrides),
            extra,
            rollover=not args.no_rollover,
            gossip=args.gossip_rounds,
            seed=seed,
            log=(lambda *a: None) if args.quiet else (lambda *a: print(*a, flush=True)),
        )
    meta = {
        "split": args.split,
        "seed": seed,
        "busy": args.busy,
        "subset": bool(args.limit or args.only),
    }
    report = {
        "benchmark": "dialogue_eval",
        "label": args.label or "current",
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "commit": commit,
        "machine": f"{os.cpu_count()} cores, Python {platform.python_version()}",
        "model": MODEL_NAME,
        "threads": args.threads,
        "settings": extra,
        "tier_overrides": tier_overrides,
        **score(record, meta),
        "record": record,
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / result_name(args)).write_text(json.dumps(report, indent=2))
    append_to_log(report, args.note)
    print_table(report)
    print_raw(report)
    print(f"\nwrote {RESULTS / result_name(args)}")


LOG = RESULTS / "dialogue_eval_log.json"


def append_to_log(report: dict, note: str = "") -> None:
    """Every run's summary, in order, so docs/benchmarks.md can show what each change did."""
    runs = json.loads(LOG.read_text()) if LOG.exists() else []
    runs.append(
        {key: report[key] for key in ("label", "date", "commit", "settings", "tier_overrides")}
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
