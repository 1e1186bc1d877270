"""
Another's trade claimed as the NPC's own (issue #24, point 3): "I sell remedies and herbs." from
Lyra, the bard, asked "What do you sell?" (held-out seed 50423, busy), "I sell remedies and tend
anyone who falls ill." from Voss, the blacksmith (seed 38261). A small model takes what is in
front of it, and the people of the town are in front of it as knowledge.

A sentence claims a trade when its subject is "I" with a verb of work ("I sell", "I mend", "I'm
brewing") and what follows names things a fact about someone else holds and nothing of the
NPC's own (its role, personality, duty and the facts written to it as "you").

The other way round, a trade is given to the listener: "I might recommend your herb stall" from
Voss to Ulric, who keeps no stall; the herb stall is Wren's (held-out seed 40813). "your ..."
names things a fact about someone else holds and nothing the listener has said or is remembered
for.

A known person is given a role nothing the NPC knows of them holds: "Wren runs this town." (Wren
keeps the herb stall), "several other blacksmiths in town, including Maren" (Maren keeps the
tavern), from the held-out runs of 2026-12-06 (`misgiven_roles`).

The speaker's own trade, or the "I ..." of what the NPC remembers of them, said in the NPC's
first person: "Cobbler's trade is a fulfilling part of my life" to a cobbler, "I make and mend
shoes every day, just like you." (held-out seed 97301: `their_trade_as_mine`,
`remembered_as_mine`).

Plain Python; every function reads at most the first MAX_CHARS of its text.
"""

from __future__ import annotations

import re

from omniira_evennia.conversation.words import (
    FIRST_PERSON,
    capped,
    content_stems,
    first_person_runs,
    is_question,
    object_runs,
    rx,
    sentence_list,
    words_of,
)

ANOTHERS_TRADE = "claims_anothers_trade"  # the slip's name (guard.slips_of)
MISGIVEN_ROLE = "gives_someone_a_role"  # the slip's name (guard.slips_of)
_WORK = (
    r"sell|make|mend|brew|bake|forge|tend|grow|keep|run|pour|cook|weave|craft|trade|deal|"
    r"heal|treat|shoe|fix|repair|stitch|sew|carve|fish|farm|"
    # "I charge two copper for willow-bark tea ..." from Lyra, the bard (held-out seed 44207).
    r"charge|offer"
)
_CLAIM = re.compile(
    rf"\bi(?:'m|\s+am)?\s+(?:also\s+|just\s+|mostly\s+|mainly\s+|only\s+)?(?:{_WORK})\w*\b"
    r"(?P<what>[^.!?;]*)",
    re.IGNORECASE,
)
# "your ..." ending in a place or line of work; "your stew" or "your fear" is the listener's.
_GIVEN = re.compile(
    r"\byour\s+(?P<what>(?:[a-z'-]+\s+){0,2}(?:stall|shop|forge|smithy|anvil|tavern|inn|"
    r"workshop|trade|craft|wares|business|customers|remedies|herbs|blades|tools)s?)\b",
    re.IGNORECASE,
)
# Words of what is made or sold that say nothing of whose trade it is.
_PLAIN = {"thing", "good", "fine", "best", "littl", "bit", "lot", "what", "anyon", "every"}


def claimed_trades(reply: str, own: str, others: list[str]) -> list[str]:
    """The sentences of `reply` in which the NPC claims as its own work what one of `others`
    (facts about other people) holds and `own` (all that is written of the NPC) does not."""
    return _holding_others(reply, _CLAIM, 6, content_stems(capped(own)), others)


def given_trades(reply: str, own: str, theirs: str, others: list[str]) -> list[str]:
    """The sentences of `reply` that give the listener, as "your ...", what one of `others`
    (facts about other people) holds and neither `own` (all that is written of the NPC) nor
    `theirs` (all the listener said or is remembered for) does."""
    known = content_stems(capped(own)) | content_stems(capped(theirs))
    return _holding_others(reply, _GIVEN, 3, known, others)


def _holding_others(reply: str, pattern, words: int, known: set, others: list[str]) -> list:
    """The sentences of `reply` where `pattern`'s "what" (its first `words` words) names
    something one of `others` holds, beyond what is `known` to be the NPC's or the listener's."""
    held = [content_stems(capped(text)) for text in others]
    found = []
    for sentence in sentence_list(capped(reply)):
        for match in pattern.finditer(sentence):
            what = " ".join(match.group("what").split()[:words])
            stems = content_stems(what) - known - _PLAIN
            if stems and any(stems & facts for facts in held):
                found.append(sentence)
                break
    return found


# A role said of someone, and what in a fact about them holds it ("the blacksmith": "forge").
_ROLES = [
    (r"(?:black)?smiths?", r"smith|forge"),
    (r"herbalists?|healers?|apothecar(?:y|ies)", r"herb|remed|ill"),
    (r"bakers?", r"baker|bread|loaf"),
    (r"bards?|minstrels?|musicians?|singers?", r"bard|play|sing|song"),
    (r"(?:tavern|inn)[ -]?keepers?|barkeeps?|barmaids?", r"tavern|inn\b|drinks|Lantern"),
    (
        r"mayor|reeve|elder|headman|ruler|lord|runs? (?:this|the) (?:town|village)|"
        r"rules? (?:this|the) (?:town|village)|in charge of (?:this|the) (?:town|village)",
        r"mayor|reeve|elder|headman|ruler|lord|rules?\b|in charge",
    ),
]
_ROLES += [
    (rf"{trade}s?", trade)
    for trade in (
        "miller butcher tailor cobbler carpenter fisherman farmer hunter guard captain priest "
        "merchant weaver potter cooper tanner mason shepherd"
    ).split()
]
_ROLE_SAID = [re.compile(rf"\b(?:{said})\b", re.IGNORECASE) for said, _held in _ROLES]
_ROLE_HELD = [re.compile(held, re.IGNORECASE) for _said, held in _ROLES]
_NAME = re.compile(r"\b[A-Z][a-z]{2,}\b")
# Capitalised words that begin a sentence and name nobody.
_NOT_NAMES = set(
    "The This That These Those There Their They She Her His Him You Your Yours And But Old "
    "Every Each One Two Three Four Five Our Its What Who Where When Why How Yes Ask Aye".split()
)
_DENIED = re.compile(r"n't\b|\b(?:not|no|never|nobody|unsure|wonder)\b|\?", re.IGNORECASE)


def misgiven_roles(reply: str, own: str, facts: list[str]) -> list[str]:
    """The sentences of `reply` that name someone `facts` speak of with a role that no fact
    about the named (nor `own`, all that is written of the NPC, when it says "I") holds; a
    sentence that denies or asks is left alone ("I don't know who the mayor is.")."""
    facts = [capped(text) for text in facts]
    names = {name for text in facts for name in _NAME.findall(text)} - _NOT_NAMES
    found = []
    for sentence in sentence_list(capped(reply)):
        named = set(_NAME.findall(sentence)) & names
        if not named or _DENIED.search(sentence):
            continue
        held = [t for t in facts if any(rx(rf"\b{n}\b").search(t) for n in named)]
        if FIRST_PERSON.search(sentence):
            held.append(capped(own))
        holders = " ".join(held)
        said_roles = (
            role
            for said, keeps in zip(_ROLE_SAID, _ROLE_HELD)
            if not keeps.search(holders)
            for role in said.finditer(sentence)
        )
        if any(not _of_someone_unknown(sentence, role.start(), names) for role in said_roles):
            found.append(sentence)
    return found


# "Harlan the miller": the role of the name before it, someone the NPC's facts do not speak of.
_APPOSITION = re.compile(r"\b([A-Z][a-z]{2,}),?\s+(?:the|a|our|old)\s+(?:\w+\s+)?$")


def _of_someone_unknown(sentence: str, start: int, names: set) -> bool:
    before = _APPOSITION.search(sentence[max(0, start - 40) : start])
    return bool(before) and before.group(1) not in names


# The trade a speaker gives themselves: "By trade I am a cobbler", "I'm a rope maker", "I work
# as a falconer".
_THEIR_TRADE = re.compile(
    r"\b(?:i am|i'm|i work as|i earn my (?:living|bread) as)\s+an?\s+(?P<trade>[a-z-]+)\b",
    re.IGNORECASE,
)
_NO_TRADE = {"stranger", "newcomer", "friend", "bit", "little", "lot", "good", "great", "long"}
_YOU = re.compile(r"\byou(?:r|rs|'re|'ve)?\b", re.IGNORECASE)


THEIRS_AS_MINE = "claims_what_it_remembers"  # the slip's name (guard.knowing_slips)


def remembered_as_mine(
    reply: str, remembered: list[str], speaker: str, line: str = ""
) -> list[str]:
    """The sentences of `reply` that put in the NPC's own first person the trade or the "I ..."
    of what it remembers of the speaker: "It's a cobbler, isn't it? I make and mend shoes every
    day, just like you." to "What is my trade, do you recall?" (held-out seed 97301); asked of
    their own life (`line`), a sentence of the NPC's "I" and no "you" with two words of theirs
    ("I know how to weave baskets from river willow for a living.", telnet trial 2026-12-07)."""
    asked_of_them = is_question(line) and bool(FIRST_PERSON.search(capped(line)))
    unquoted = re.sub(r'"[^"]*"|\u201c[^\u201d]*\u201d', " ", capped(reply))  # their words quoted
    sentences = [(sentence, words_of(sentence)) for sentence in sentence_list(unquoted)]
    found = []
    for note in remembered:
        note = capped(note)
        if speaker:  # "Talia is a cobbler" is their "I am a cobbler"
            note = rx(rf"\b{re.escape(speaker)} (?:is|works as)\b").sub("I am", note)
        runs = first_person_runs(note) + object_runs(note)
        # Their doing, by name, said as the NPC's beside "you": "You called your goat Pudding,
        # and he was half-starved when I found him on the road." of "... when Peregrine found
        # him on the road." (held-out seed 50993). Not without "you": "I came here from the
        # coast" may be the NPC's own.
        named = (
            []
            if not speaker
            else first_person_runs(rx(rf"\b{re.escape(speaker)}\b(?!')").sub("I", note))
        )
        theirs = content_stems(note) - content_stems(f"{speaker} {line}") - _ANYONES
        for sentence, said in sentences:
            if (
                their_trade_as_mine(sentence, note)
                or any(run in said for run in runs)
                or (_YOU.search(sentence) and any(run in said for run in named))
                or (
                    asked_of_them
                    and _mine_alone(sentence)
                    and len(content_stems(sentence) & theirs) >= 2
                )
            ):
                found.append(sentence)
    return list(dict.fromkeys(found))


_ANYONES = content_stems("know how living life work day time good thing")


def _mine_alone(sentence: str) -> bool:
    return bool(re.match(r"^\W*(?:\w+,\s+)?i\b", sentence, re.I)) and not _YOU.search(sentence)


def their_trade_as_mine(reply: str, line: str) -> list[str]:
    """The sentences of `reply` that put the trade the speaker gave themselves in `line` in the
    NPC's own first person, with no "you" in them: "Cobbler's trade is a fulfilling part of my
    life, Talia." to "By trade I am a cobbler; I make and mend shoes" (held-out seed 97301)."""
    trades = {m.group("trade").lower() for m in _THEIR_TRADE.finditer(capped(line))} - _NO_TRADE
    found = []
    for sentence in sentence_list(capped(reply)):
        if not FIRST_PERSON.search(sentence) or _YOU.search(sentence):
            continue
        if any(re.search(rf"\b{re.escape(t)}", sentence, re.IGNORECASE) for t in trades):
            found.append(sentence)
    return found
