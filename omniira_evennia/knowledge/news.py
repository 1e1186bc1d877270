"""
News a player tells an NPC about someone else (issue #24, point 2: gossip carries news).

"Have you heard? Harlan the miller fell off his roof and broke his leg." is no fact about the
player (the write policy keeps only what they say of themselves), yet it is what an NPC would
pass on. `news_in` finds such sentences in a player's line, deterministically: a statement
(not a question, not about the speaker or the listener in the first or second person) that
names a third party: someone the world knows (an NPC, a player) anywhere in it, or a
stranger named as people name one in news ("Harlan the miller ...", "... said Tobin"). Talk
about who knows what ("Maren doesn't know anything about me"), greetings and lines with no
one named are not news. The NPC keeps each as knowledge it was told (knowledge/service.py
`hear_news`): "Ada says Harlan the miller fell off his roof ...", with its teller, a
confidence of one telling and an expiry, which gossip may pass on like any open fact.

Plain Python, linear in its input: the first MAX_CHARS of a line, at most MAX_ITEMS items.
"""

from __future__ import annotations

import re

MAX_CHARS = 600
MAX_ITEMS = 2
MIN_WORDS = 4  # "Voss is ill." is news; "Voss!" is not

_SENTENCE = re.compile(r"[^.!?]+[.!?]*")
# A lead-in before a colon or a dash ("Terrible news, Wren: ...") and a tail that only says
# it is talked of (", they say.") are not the news itself.
_LEAD = re.compile(r"^[^:;]{0,40}[:;]\s*|^[^—–]{0,40}[—–]\s*")
_TAIL = re.compile(
    r",?\s*(?:they say|so they say|people say|i hear|i heard|i'm told|folk say)\W*$", re.I
)
_SELF_OR_LISTENER = re.compile(
    r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|our|us|you|your|you're|yours)\b", re.I
)
# Talk about who knows or said what is not news ("Maren doesn't know anything about Corvina").
_TALK = re.compile(
    r"\b(?:know|knows|knew|remember|remembers|told|tells|asked|asks|said hello|greet|greets|"
    r"greeted|thinks|think|likes|like)\b",
    re.I,
)
_CAPITAL = re.compile(r"\b[A-Z][a-z']+\b")
_APPOSITION = re.compile(r"^([A-Z][a-z']+)\s+the\s+[a-z]+")
_NOT_NAMES = frozenset(
    "The A An And But So Then There This That These Those It He She They His Her Their "
    "Yesterday Today Tonight Last Everyone Nobody Somebody Someone Old Young".split()
)


def _strip(sentence: str) -> str:
    text = _LEAD.sub("", sentence.strip(), count=1)
    return _TAIL.sub("", text).strip(" ,")


def third_parties(sentence: str, known: set[str], speaker: str, listener: str) -> list[str]:
    """The people a sentence names other than the two talking: names the world knows, any
    capitalised word past the first, and a first word in apposition ("Harlan the miller")."""
    out = []
    lowered = {n.lower() for n in known}
    skip = {speaker.lower(), listener.lower()}
    named_first = bool(_APPOSITION.match(sentence))
    for match in _CAPITAL.finditer(sentence):
        word = match.group(0).split("'")[0]
        if word.lower() in skip or word in _NOT_NAMES:
            continue
        if word.lower() in lowered or match.start() > 0 or named_first:
            out.append(word)
    return list(dict.fromkeys(out))


def news_in(line: str, speaker: str, listener: str, known: set[str]) -> list[str]:
    """The sentences of `line` that are news about a third party, each as said (see the
    module), at most MAX_ITEMS."""
    found = []
    for raw in _SENTENCE.findall(str(line or "")[:MAX_CHARS]):
        if raw.strip().endswith("?"):
            continue
        sentence = _strip(raw)
        if not sentence or len(sentence.split()) < MIN_WORDS:
            continue
        if _SELF_OR_LISTENER.search(sentence) or _TALK.search(sentence):
            continue
        if not third_parties(sentence, known, speaker, listener):
            continue
        if sentence[-1] not in ".!":
            sentence += "."
        found.append(sentence[0].upper() + sentence[1:])
        if len(found) == MAX_ITEMS:
            break
    return found


def told_text(speaker: str, sentence: str) -> str:
    """How the NPC keeps it: the news in the teller's name ("Ada says Harlan fell ...")."""
    first, _, rest = sentence.partition(" ")
    if first in _NOT_NAMES:
        first = first.lower()
    return f"{speaker} says {first} {rest}".strip()
