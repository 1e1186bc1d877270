"""
A reply that says again what the NPC already said in this conversation (issue #24, point 3).

A small model latches onto one of its own lines and gives it to every line after it ("Oh no,
Jory, I'm sorry to hear that. It must have been scary for you." to a son on the barges, to the
weather and to the town: held-out seed 15511, busy). `repeats_earlier` finds it: the whole
reply word for word, or one of its sentences of REPEAT_MIN_WORDS words or more, said before in
the conversation ("I can't let anyone see it." after "That's a sad thing." and after "That's so
sad."). Short habits ("Aye, love.", "I'm sorry to hear that.") are a voice, not a repeat.

Plain Python; reads at most MAX_CHARS of each text.
"""

from __future__ import annotations

import re

MAX_CHARS = 2000
REPEAT_MIN_WORDS = 6

_WORDS = re.compile(r"[a-z']+")
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")


def _words(text: str) -> tuple[str, ...]:
    return tuple(_WORDS.findall(str(text or "")[:MAX_CHARS].lower()))


def _long_sentences(text: str) -> set[tuple[str, ...]]:
    pieces = (_words(s) for s in _SENTENCE.findall(str(text or "")[:MAX_CHARS]))
    return {words for words in pieces if len(words) >= REPEAT_MIN_WORDS}


def repeats_earlier(reply: str, earlier: list[str]) -> str | None:
    """The words of `reply` the NPC already said in one of its `earlier` lines (the whole reply
    or a long sentence of it), or None."""
    whole = _words(reply)
    mine = _long_sentences(reply)
    for line in earlier:
        if len(whole) >= REPEAT_MIN_WORDS and whole == _words(line):
            return " ".join(whole)
        again = mine & _long_sentences(line)
        if again:
            return " ".join(sorted(again)[0])
    return None
