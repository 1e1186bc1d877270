"""
When two notes about a person say one thing (the write path's restating, issue #24).

`gist` is what a note says without its framing ("Ada told me: I live in Brackwater" and "Ada
lives in Brackwater" have one gist); `may_restate` whether one note may replace another (the
same sentence with its words said otherwise, not one thing swapped for another: "my dog is
called Rex" is no restatement of "my cat is called Rex"); `one_at_a_time` the kind of fact a
person holds one of (a trade, a home); `given_up` the things a note says were given up ("I
sold the mule").

Plain Python, linear in its input: each note is cut to grounding.LINE_CHARS first.
"""

from __future__ import annotations

import re
from functools import lru_cache

from omniira_evennia.memory.grounding import KIN, LINE_CHARS, STOPWORDS, _names, _stem, _words

# Words that frame a note without saying anything of the fact ("Ada told me that ...",
# "Ada mentioned ..."); the long-run benchmark met the review's "Ada mentioned that I live in
# Brackwater" beside the tag's "Ada told me: I live in Brackwater".
_FRAMING = frozenset(
    _stem(w)
    for w in "told tells said says mentioned mentions mention shared explained claims claimed "
    "admitted confided noted remarked me that".split()
)


def _framed_words(value: str, subject: str) -> list[str]:
    skip = _names(subject)
    return [
        w.lower()
        for w in _words(str(value or "")[:LINE_CHARS])
        if w.lower() not in skip and _stem(w) not in _FRAMING
    ]


@lru_cache(maxsize=8192)  # a turn compares its note with up to a subject's cap of the same rows
def gist(value: str, subject: str = "") -> frozenset:
    """What a note says, as word stems without its framing, its subject's name and small words:
    two notes with one gist say one thing ("Ada told me: I live in Brackwater", "Ada lives in
    Brackwater"). Empty for a note of nothing but such words."""
    return frozenset(_root(w) for w in _framed_words(value, subject) if w not in STOPWORDS)


# At most this many substantive words on each side of what two notes do not share, for them
# to be one sentence with one thing swapped ("my dog is called Rex" / "my cat is called Rex").
SWAP_WORDS = 2


def _proper_names(value: str, subject: str) -> set[str]:
    """The capitalised words of a note that do not open a sentence or a clause (its subject's
    name aside): the names and places it speaks of."""
    skip = _names(subject)
    found = set()
    for sentence in re.split(r"[.!?:;]\s*", str(value or "")[:LINE_CHARS]):
        for word in _words(sentence)[1:]:
            low = word.lower()
            if word[:1].isupper() and low not in skip and low not in STOPWORDS:
                found.add(low)
    return found


# Words of time and degree that a retelling adds or drops ("Eudo still has nine of my coins").
FILLER = frozenset(
    "still always usually often sometimes really once ago now today currently recently ever "
    "again these days years year".split()
)
_NEGATION = frozenset("not no never nor cannot none".split())


def _negated(words: list[str]) -> bool:
    return any(w in _NEGATION or w.endswith("n't") for w in words)


def may_restate(value: str, other: str, subject: str = "") -> bool:
    """
    Whether two notes about `subject` could say one fact in other words, as far as their words
    tell; a meaning check (the embedder's cosine) decides the rest. Not when one names someone
    or somewhere the other does not ("Ada found a coin" / "Dunstan found a coin"), nor when
    they are one sentence with one thing swapped: "my dog is called Rex" and "my cat is called
    Rex", "I love the cold" and "I hate the cold", "my sister lives in Ashby" and "my brother
    lives in Ashby" sit as near as any paraphrase to an embedder and are different facts.
    """
    a, b = _framed_words(value, subject), _framed_words(other, subject)
    if not a or not b:
        return False
    words_a, words_b = {w.replace("'", "") for w in a}, {w.replace("'", "") for w in b}
    for name in _proper_names(value, subject) | _proper_names(other, subject):
        if name.replace("'", "") not in words_a or name.replace("'", "") not in words_b:
            return False
    start = 0
    while start < min(len(a), len(b)) and _root(a[start]) == _root(b[start]):
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and _root(a[-1 - end]) == _root(b[-1 - end]):
        end += 1
    # What each says in the stretch where they part that the other does not: both something,
    # and little, in one frame, is a swap ("dog" / "cat"); one side nothing is the same fact
    # told with more ("I play the hurdy-gurdy", "in the evenings I play my hurdy-gurdy").
    left = {_sense(w) for w in a[start : len(a) - end] if w not in STOPWORDS | FILLER}
    right = {_sense(w) for w in b[start : len(b) - end] if w not in STOPWORDS | FILLER}
    only_left, only_right = left - right, right - left
    # ... in one frame: what they share around it is at least half the shorter sentence.
    framed = 2 * (start + end) >= min(len(a), len(b))
    if framed and _negated(a) != _negated(b):
        return False  # "I'm afraid of the dark" / "I'm not afraid of the dark"
    small = 0 < len(only_left) <= SWAP_WORDS and 0 < len(only_right) <= SWAP_WORDS
    return not (framed and small)


# Words one feeling is said with: "I have always feared deep water" and "I am afraid of deep
# water" part on "feared" / "afraid", which is no swap (long run, seed 5: two memories of one
# fear). Only same-meaning words; "love" and "hate" stay apart.
_SENSES = {
    # By root (`_root`: "scares" is "scar", "loves" "lov", "hates" "hat").
    **dict.fromkeys(("fear", "afrai", "scar", "dread", "terri", "frigh"), "fear"),
    **dict.fromkeys(("lov", "lik", "enjoy", "fond", "ador"), "like"),
    **dict.fromkeys(("hat", "loath", "detes", "despi"), "hate"),
}


def _sense(word: str) -> str:
    """A word's root, or the feeling it names (`_SENSES`)."""
    root = _root(word)
    return _SENSES.get(root, root)


# Facts a person has one of at a time: where they live, their trade. A note of a new one
# supersedes the old ("Ada moved to Ashby" after "Ada lives in Brackwater": one memory, the
# old value its history), and a possession given up ends the note of having it.
_ONE_AT_A_TIME = {
    "home": re.compile(
        r"\b(?:lives?|living|lived|moved|moving|settled|resides?|home is|home's)\b"
        r"(?:\s+\w+){0,2}\s+(?:in|to|at|near|by)\b"
        r"|\b(?:cottage|house|roof|farm|croft)\s+(?:in|at|near|by)\b",
        re.IGNORECASE,
    ),
    "trade": re.compile(
        r"\b(?:works? as|working as|by trade|trade is|(?:my|his|her|their) (?:old |new )?trade|"
        r"(?:makes?|earns?|made|earned) (?:a|my|his|her|their) living)\b",
        re.IGNORECASE,
    ),
}
_GIVEN_UP = re.compile(
    r"\b(?:sold|lost|gave away|gave up|no longer ha(?:s|ve)|got rid of)\s+(?:(?:my|his|her|"
    r"their|the|a|an|our)\s+)?(?:(?:old|little|dear|poor|new|last|only)\s+)?(?P<thing>[a-z]+)"
    # Said the other way round: "Thistle is sold", "the mule is gone".
    r"|\b(?P<passive>[a-z]+)\s+(?:is|was|has been)\s+(?:sold|gone|given away|lost)\b",
    re.IGNORECASE,
)


# Whose home or trade a note is about: a kin word (KIN) or another of the people near them.
_SOMEONE_ELSE = KIN | {"da", "family", "parents", "kin", "neighbour"}


def one_at_a_time(value: str) -> str | None:
    """The topic of a note a person has one of at a time (home, trade), or None; a note about
    their kin ("Ada's sister lives in Brackwater") is none of theirs."""
    value = str(value or "")[:LINE_CHARS]
    if any(w.lower().split("'")[0] in _SOMEONE_ELSE for w in _words(value)):
        return None
    return next((name for name, rule in _ONE_AT_A_TIME.items() if rule.search(value)), None)


def given_up(value: str) -> frozenset:
    """The stems of what a note says its subject gave up ("Ada sold the mule": {"mul"};
    "Thistle is sold, the mule is gone": {"thist", "mul"}); a trade given up is a change of
    trade (`one_at_a_time`), not a thing."""
    value = str(value or "")[:LINE_CHARS]
    things = (found["thing"] or found["passive"] for found in _GIVEN_UP.finditer(value))
    return frozenset(
        _root(thing)
        for thing in things
        if thing.lower() not in _NOT_THINGS and thing.lower() not in STOPWORDS
    )


_NOT_THINGS = {"trade", "work", "job", "craft"}


def _root(word: str) -> str:
    """A word without its ending ("lives", "lived", "living": "liv"), five letters at most."""
    word = word.lower().replace("’", "'").strip("'")
    for ending in ("ing", "ed", "es", "s", "e"):
        if word.endswith(ending) and len(word) - len(ending) >= 3 and not word.endswith("ss"):
            word = word[: -len(ending)]
            break
    return word[:5]
