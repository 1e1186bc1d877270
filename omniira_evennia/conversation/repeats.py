"""
A reply that says again what the NPC already said in this conversation (issue #24, point 3).

A small model latches onto one of its own lines and gives it to every line after it ("Oh no,
Jory, I'm sorry to hear that. It must have been scary for you." to a son on the barges, to the
weather and to the town: held-out seed 15511, busy). `repeats_earlier` finds it: the whole
reply word for word, or one of its sentences of REPEAT_MIN_WORDS words or more, said before in
the conversation ("I can't let anyone see it." after "That's a sad thing." and after "That's so
sad."). Short habits ("Aye, love.", "I'm sorry to hear that.") are a voice, not a repeat.
`handed_back` finds a reply that gives back one of the speaker's earlier lines.

Plain Python; reads at most voice.MAX_CHARS of each text.
"""

from __future__ import annotations

import re

from omniira_evennia.conversation import topics, voice
from omniira_evennia.conversation.prompts import PromptContext

EARLIER_LINES = 3  # of the speaker's, before this one
REPEAT_MIN_WORDS = 6

_WORDS = re.compile(r"[a-z']+")


def _words(text: str) -> tuple[str, ...]:
    return tuple(_WORDS.findall(voice.capped(text).lower()))


def _long_sentences(text: str) -> set[tuple[str, ...]]:
    pieces = (_words(s) for s in voice.sentence_list(voice.capped(text)))
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


def handed_back(reply: str, ctx: PromptContext) -> list[str]:
    """
    [voice.RESTATED] when `reply` hands back one of the speaker's last EARLIER_LINES lines
    instead of answering this one ("Good evening, Ferris. You're a tanner by trade." to "What
    do you pour here?": a fresh clone's demo, 2026-12-03), else []. Not for a question about
    the speaker's own life: its answer may well be what they said before.
    """
    if topics.asked_topic(ctx.message) is not None:
        return []
    earlier = [t.text for t in ctx.history if t.role == "user"][-EARLIER_LINES:]
    name, speaker = ctx.identity.name, ctx.speaker_name
    said_again = any(voice.restates(reply, line, name, speaker) for line in earlier)
    return [voice.RESTATED] if said_again else []
