"""
The words of a line, for the voice rules (voice.py, topics.py, repeats.py): the cap every rule
reads within, its sentences, its content words as stems, whether it is a question.

Plain Python; every function is linear in its (capped) input.
"""

from __future__ import annotations

import functools
import re

MAX_CHARS = 2000
STOP_WORDS = set(
    "a an the and or but of to in on at for from with by as is am are was were be been has have "
    "had do does did not no so it its this that these those you your yours i me my we our here "
    "there what who how why when where which any some much many yes oh well ever still now "
    # Modals and particles carry no fact: "You would keep your cheese off your plate." adds
    # nothing to "Cheese makes me break out in a rash, so keep it off my plate." (seed 71359).
    "would could should will shall can must might may off out up just very really quite also too "
    "then than about "
    # Auxiliaries said no and "being", "yet": "I haven't heard the news about Wren being robbed
    # on the north road yet." adds nothing to the news told (held-out seed 29881).
    "being yet isn't aren't wasn't weren't hasn't haven't hadn't don't doesn't didn't won't "
    # Who, not what: "Eugenia went east with the soldiers" is the line's fact, "she" or "her"
    # round it no word of the NPC's own (seed 43969).
    "he him his she her hers they them their theirs".split()
)

# Words a reply frames the player's line with ("You remember Merrick telling you that ..."):
# they add nothing of the NPC's own.
FRAMING_WORDS = set(
    "remember recall told tell telling said say saying says mention mentioned know knew heard "
    "hear think thought see seen indeed really sure right true understand understood".split()
)

# The words a clause about someone opens with ("I don't know what Idris does", "I heard that
# Idris is ..."): the name after them is that clause's subject (voice.py, repairs.py).
CLAUSE_LEAD = r"\b(?:what|where|who|how|why|whether|if|that|because)\s+"
# The verbs of a line written for someone ('Rosalie responds, "..."', "Quill says: ..."):
# character_breaks, voice and repairs read the same frame.
SAID_VERBS = r"(?:says|asks|replies|responds|answers)"
# Words a speaker says of themselves ("I", "my", ...): their line is about them (voice.py,
# handback.py, plain_lines.py).
FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself)\b", re.IGNORECASE)
# A player's line telling of their own (embellishments, shapes): the narrower set of the two.
OWN_TELLING = re.compile(r"\b(?:i|i'm|i've|my|me)\b", re.IGNORECASE)


@functools.lru_cache(maxsize=4096)
def rx(pattern: str, flags: int = 0) -> re.Pattern:
    """`pattern` compiled once and kept. For the patterns built with a player's or an NPC's name
    (about a hundred a pair): `re` keeps only 512 compiled patterns, so with a few players
    talking the guard compiled about six of them again for every reply (docs/benchmarks.md)."""
    return re.compile(pattern, flags)


def capped(text) -> str:
    return str(text or "")[:MAX_CHARS]


def content_stems(text: str) -> frozenset[str]:
    """The stems of `text`'s content words. The voice rules ask this of the same few texts (the
    line, the reply, the NPC's facts) dozens of times a turn, so a text within MAX_CHARS is
    answered from a small cache (a third of the guard's time went here: docs/benchmarks.md)."""
    return _cached_stems(text) if len(text) <= MAX_CHARS else _stems_of(text)


@functools.lru_cache(maxsize=2048)
def _cached_stems(text: str) -> frozenset[str]:
    return _stems_of(text)


def _stems_of(text: str) -> frozenset[str]:
    return frozenset(_stem(w) for w in _WORD.findall(text.lower()) if w not in STOP_WORDS)


_WORD = re.compile(r"[a-z']{3,}")
_ENDING = re.compile(r"(?:ing|ed|es|ly|s)$")


@functools.lru_cache(maxsize=8192)
def _stem(word: str) -> str:
    """A word's first five letters after a common ending: "slipped" and "slip" meet ("You did
    slip on the cobbles" to "I nearly slipped on the cobbles": seed 62903, busy)."""
    base = _ENDING.sub("", word)
    base = base if len(base) >= 3 else word
    return (base[:-1] if len(base) > 3 and base[-1] == base[-2] else base)[:5]


def sentence_list(text: str) -> list[str]:
    return [s.strip() for s in re.findall(r"[^.!?]+[.!?]*", text) if s.strip()]


def ends_asking(line: str) -> bool:
    """The line ends on a question ("See this? It's an iron key." tells; it does not ask)."""
    sentences = sentence_list(line)
    return bool(sentences) and is_question(sentences[-1])


def is_question(text: str) -> bool:
    return "?" in text or bool(
        re.match(
            r"^\W*(?:do|does|did|are|is|have|has|can|could|will|would|what|who|how|where|"
            r"when|why|which)\b",
            text,
            re.IGNORECASE,
        )
    )


# The beasts a player keeps, as the voice rules name them (a "he" or "she" after one may be it).
ANIMALS = (
    "goat|cat|dog|horse|pony|mare|donkey|mule|ferret|parrot|raven|crow|hen|pig|cow|sheep|ox|"
    "rabbit|hound|falcon|hawk|owl|tortoise|toad|mouse|rat|bird|beast"
)


# What an NPC says of what it was never told (voice.py re-exports it).
_ADMITS = re.compile(
    r"\b(?:never (?:told|said|mentioned)|(?:don'?t|do not|didn'?t|did not) (?:know|recall|"
    r"remember|think you (?:told|said|mentioned))|no idea|can'?t (?:say|recall|remember)|"
    r"cannot (?:say|recall|remember)|not sure|haven'?t (?:told|said|mentioned)|"
    r"wouldn'?t know|not that i (?:know|recall)|news to me|first i'?ve heard|"
    # A shrug, not "You tell me that you breed goats on the ridge." to a newcomer (seed 63341).
    r"you tell me(?=\s*(?:[,.!?]|$))|couldn'?t (?:rightly )?(?:tell|say)|could not (?:tell|say))\b",
    re.IGNORECASE,
)


def admits_not_knowing(reply: str) -> bool:
    return bool(_ADMITS.search(capped(reply)))


# "I" and the three words after it: the same four words in a reply are the speaker's fact (or
# feeling) taken as the NPC's own (voice.py, trades.py).
_FIRST_PERSON_RUN = re.compile(r"\bi\s+([a-z']+)\s+([a-z']+)\s+([a-z']+)")
# Words anyone's "I ..." is made of: "I don't know what" is nobody's fact.
_ANYONES = set(
    "a an the to of in on at it is was am be been do don't did not no know what that this "
    "think mean see understand sure can can't cannot could will would have had just so very "
    "you your me my i i'm i'll i've i'd want like need".split()
)


def words_of(text) -> str:
    """`text`'s words, lowered, one space apart."""
    return " ".join(re.findall(r"[a-z']+", capped(text).lower()))


def first_person_runs(text) -> list[str]:
    """The "i w1 w2 w3" runs of `text`'s words that are more than anyone's words."""
    return [
        f"i {' '.join(run.groups())}"
        for run in _FIRST_PERSON_RUN.finditer(words_of(text))
        if not set(run.groups()) <= _ANYONES
    ]


# Kin, as words (their_doings.py, plain_lines.py).
KIN_WORDS = (
    "brother|sister|mother|father|son|daughter|wife|husband|cousin|aunt|uncle|grandmother|"
    "grandfather|niece|nephew"
)


# Two words and "me": "you serve me", "wheat makes me" are the speaker's, not the NPC's.
_ME_RUN = re.compile(r"\b([a-z']+)\s+([a-z']+)\s+me\b")


# "me" and two words after it: "see me go pale" is theirs (held-out seed 46271: "Oh no, you
# should not see me go pale, Rosalie.").
_ME_THEN_RUN = re.compile(r"\b([a-z']+)\s+me\s+([a-z']+)\s+([a-z']+)")


def me_runs(text) -> list[str]:
    """The "w1 me w2 w3" runs of `text`'s words that are more than anyone's words."""
    return [
        f"{a} me {b} {c}"
        for a, b, c in _ME_THEN_RUN.findall(words_of(text))
        if not {a, b, c} <= _ANYONES
    ]


def object_runs(text) -> list[str]:
    """The "w1 w2 me" runs of `text`'s words that are more than anyone's words: "Yes, I remember
    that you can't put eggs in anything you serve me." (held-out seed 69127) left the
    speaker's "me" in the NPC's mouth."""
    return [
        f"{' '.join(run.groups())} me"
        for run in _ME_RUN.finditer(words_of(text))
        if not set(run.groups()) <= _ANYONES
    ]
