"""
Questions for a thing's name, and texts that give one (issue #25): "what's the name of this
town?" asks for the town's name, and "The Lantern & Lane is the town's tavern" gives none, so a
fact about the town is no answer; "This is the town of Wickham Cross" is. The knowledge lanes
bring the facts that name what is asked (knowledge/selection.py), and a name no fact gives is an
unanswered question (knowledge/answers.py).

Plain Python (no Django, Evennia or Twisted).
"""

from __future__ import annotations

import re

from omniira_evennia.knowledge.contradiction import STOP_STEMS, stem, stems

MAX_CHARS = 1000
_NOT_THINGS = {"this", "that", "the", "these", "those", "a", "an", "here", "there", "our"}

# A question for a thing's name ("what's the name of this town?", "what is the river called?",
# "what's the smith's name?"): the thing is what it asks, though "town" alone asks nothing, and
# it is answered only by a text that gives the thing a name (`names_thing`): a fact about the
# town is no answer to what the town is called (seed 61961 met "The town is The Lantern & Lane.").
_NAME_OF = re.compile(
    r"\bname of (?P<of>[^?.!,;]{1,60})"
    r"|\b(?:what|how)(?:'s|\s+is|\s+are|\s+was)\s+(?P<called>[^?.!,;]{1,60}?)\s+(?:called|named)\b"
    r"|\bwhat do (?:\w+\s+){0,2}call\s+(?P<call>[^?.!,;]{1,60})"
    r"|\bwhat(?:'s|\s+is|\s+was)\s+(?P<own>[^?.!,;]{1,60}?)(?:'s|\u2019s)\s+name\b"
    r"|\bwhat (?!(?:day|time|week|year|month|season|hour)\b)(?P<which>[a-z]+) is this\b",
    re.IGNORECASE,
)
_NAME_WORD = re.compile(r"[A-Za-z][A-Za-z'\u2019-]*")
_LINKS = {"is", "was", "are"}
_ARTICLES = {"the", "a", "an", "old", "young"}


def name_asked(line: str, names=()) -> set[str]:
    """The stems of the thing whose name a question asks (see _NAME_OF), or an empty set."""
    found = _NAME_OF.search(str(line or "")[:MAX_CHARS])
    if not found:
        return set()
    thing = next(g for g in found.groups() if g)
    skip = {stem(w) for n in names for w in str(n).split()}
    return {w for w in stems(thing) if w not in skip} or {
        stem(w) for w in _NAME_WORD.findall(thing) if w.lower() not in _NOT_THINGS
    }


def names_in_any(texts, thing: set[str]) -> list[int]:
    """The indexes of `texts` that give `thing` a name (`names_thing`); a cheap look for the
    thing's words first, so a thousand facts cost little."""
    if not thing:
        return []
    near = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, thing))) + ")", re.IGNORECASE)
    return [i for i, text in enumerate(texts) if near.search(text) and names_thing(text, thing)]


def _is_name(token: str) -> bool:
    return token[:1].isupper() and token.lower() not in _ARTICLES and stem(token) not in STOP_STEMS


def names_thing(text: str, thing: set[str]) -> bool:
    """Whether a sentence of `text` gives one of `thing`'s words a name: "the town of Ashby",
    "Ashby town", "the river Wend", "the river called Wend", "Voss is the blacksmith", "Old Hob
    the baker", "the healer is Wren". A possessive ("the town's tavern") names nothing."""
    for sentence in re.findall(r"[^.!?;:]+", str(text or "")[:MAX_CHARS]):
        tokens = _NAME_WORD.findall(sentence)
        for i, token in enumerate(tokens):
            if token.lower().endswith(("'s", "\u2019s")) or stem(token) not in thing:
                continue
            after, before = tokens[i + 1 : i + 4], tokens[max(0, i - 2) : i]
            if after and _is_name(after[0]) and not after[0].lower().endswith("'s"):
                return True  # the river Wend
            if len(after) >= 2 and after[0].lower() in {"of", "called", "named", *_LINKS}:
                if _is_name(after[1]):
                    return True  # the town of Ashby, the river called Wend, the healer is Wren
            if before and _is_name(before[-1]) and not before[-1].lower().endswith("'s"):
                return True  # Ashby town
            if len(before) >= 2 and before[-1].lower() in _ARTICLES and _is_name(before[-2]):
                return True  # Hob the baker
            if _named_before_link(tokens[max(0, i - 4) : i]):
                return True  # Voss is the blacksmith, Ashby is a market town
    return False


def _named_before_link(before: list[str]) -> bool:
    """Whether the words before a thing read "<Name> is a/the [word]" ("Ashby is a market")."""
    for j, word in enumerate(before[1:], 1):
        if word.lower() in _LINKS and _is_name(before[j - 1]):
            between = before[j + 1 :]
            return bool(between) and between[0].lower() in _ARTICLES and len(between) <= 2
    return False
