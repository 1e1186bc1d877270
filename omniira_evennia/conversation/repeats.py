"""
A reply that says again what the NPC already said in this conversation (issue #24, point 3).

A small model latches onto one of its own lines and gives it to every line after it ("Oh no,
Jory, I'm sorry to hear that. It must have been scary for you." to a son on the barges, to the
weather and to the town: held-out seed 15511, busy). `repeats_earlier` finds it: the whole
reply word for word, or a run of REPEAT_MIN_WORDS words or more, said before in the conversation
("I can't let anyone see it." after "That's a sad thing." and after "That's so sad."). Short habits ("Aye, love.", "I'm sorry to hear that.") are a voice, not a repeat.
`handed_back` finds a reply that gives back one of the speaker's earlier lines, or answers the
line before this one instead of this one.

Plain Python; reads at most voice.MAX_CHARS of each text.
"""

from __future__ import annotations

import re
from collections import Counter

from omniira_evennia.conversation import topics, voice
from omniira_evennia.conversation.prompts import PromptContext
from omniira_evennia.conversation.remembered import TOLD_ME_SO
from omniira_evennia.conversation.words import content_stems

EARLIER_LINES = 3  # of the speaker's, before this one
REPEAT_MIN_WORDS = 6

_WORDS = re.compile(r"[a-z']+")


# The frame of the NPC's own answer from memory (remembered.remembered_line), said again with
# each thing it remembers: 'You told me so yourself, Xander: "I came here from Wyndale."'
_OWN_FRAME = re.compile(rf"^\W*{TOLD_ME_SO},?\s*(?:[A-Z][a-z]+\s*)?:?\s*", re.I)


def _words(text: str) -> tuple[str, ...]:
    return tuple(_WORDS.findall(_OWN_FRAME.sub("", voice.capped(text)).lower()))


def _runs(words: tuple[str, ...]) -> set[tuple[str, ...]]:
    n = REPEAT_MIN_WORDS
    return {words[i : i + n] for i in range(len(words) - n + 1)}


def _said_before(words: tuple[str, ...], earlier: list[str]) -> list[bool]:
    """For each of `words`, whether it is inside a run of REPEAT_MIN_WORDS words running that
    one of the `earlier` lines has too. Runs cross sentences: "Oh, Fitzroy. That's quite a
    journey." opened three of Maren's replies running (held-out seed 38261), a sentence at a
    time too short to count."""
    n = REPEAT_MIN_WORDS
    seen = set().union(*(_runs(_words(line)) for line in earlier)) if earlier else set()
    covered = [False] * len(words)
    for i in range(len(words) - n + 1):
        if words[i : i + n] in seen:
            covered[i : i + n] = [True] * n
    return covered


def repeats_earlier(reply: str, earlier: list[str]) -> str | None:
    """The words of `reply` the NPC already said in one of its `earlier` lines (the whole reply,
    or its longest run of REPEAT_MIN_WORDS words or more), or None."""
    whole = _words(reply)
    same = sum(1 for line in earlier if whole == _words(line)) if whole else 0
    # A short habit said twice is a habit; a third time it is all the NPC says: "I'm sorry,
    # Yara." was Lyra's answer to all eight of Yara's lines (held-out seed 40813). "Aye." and
    # "Aye, love." stay habits, however often.
    # Said just before, word for word, it is no habit either: "Sure, I'll be right there." to a
    # broken hinge, then to news of a brawl (held-out seed 92821).
    running = bool(earlier) and whole == _words(earlier[-1]) and len(whole) >= 4
    if same and (len(whole) >= REPEAT_MIN_WORDS or (same >= 2 and len(whole) >= 3) or running):
        return " ".join(whole)
    if again := _said_twice_before(reply, earlier):
        return " ".join(again[0])
    covered = _said_before(whole, earlier)
    best, start = (0, 0), None
    for i, inside in enumerate(covered + [False]):
        if inside and start is None:
            start = i
        elif not inside and start is not None:
            best, start = max(best, (i - start, -start)), None
    length, first = best[0], -best[1]
    return " ".join(whole[first : first + length]) if length else None


def _said_twice_before(reply: str, earlier: list[str]) -> list[tuple[str, ...]]:
    """The sentences of three words or more of `reply` that two of the `earlier` lines say
    too: "I'm Voss, a blacksmith." added to three of Voss's replies running (held-out seed
    83417), too short for a run of REPEAT_MIN_WORDS."""
    before = [{_words(s) for s in voice.sentence_list(voice.capped(line))} for line in earlier]
    found = []
    for sentence in voice.sentence_list(voice.capped(reply)):
        words = _words(sentence)
        if len(words) >= 3 and sum(words in said for said in before) >= 2:
            found.append(words)
    return found


def without_repeated(reply: str, earlier: list[str]) -> str:
    """`reply` without its sentences most of whose words were said before (`_said_before`)."""
    pieces = voice.sentence_list(voice.capped(reply))
    counts = [len(_words(piece)) for piece in pieces]
    covered = _said_before(tuple(w for piece in pieces for w in _words(piece)), earlier)
    twice = set(_said_twice_before(reply, earlier))
    kept, at = [], 0
    for piece, count in zip(pieces, counts):
        if 2 * sum(covered[at : at + count]) <= count and _words(piece) not in twice:
            kept.append(piece)
        at += count
    return " ".join(kept)


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
    if said_again:
        return [voice.RESTATED]
    return [ANSWERS_EARLIER] if earlier and answers_the_line_before(reply, ctx, earlier[-1]) else []


ANSWERS_EARLIER = "answers_the_line_before"  # the slip's name


def answers_the_line_before(reply: str, ctx: PromptContext, before: str) -> bool:
    """`reply` speaks to the speaker's line before this one and not to this one: "I'm sorry to
    hear that you're allergic to onions." to "The thing I treasure most is a book of old sea
    charts" said after the onions (held-out busy seed 62477). Two content words of that line,
    none of this one's (names aside)."""
    names = content_stems(f"{ctx.identity.name} {ctx.speaker_name}")
    said = content_stems(voice.capped(reply)) - names
    now = content_stems(voice.capped(ctx.message)) - names
    then = content_stems(voice.capped(before)) - names - now
    return len(said & then) >= 2 and not said & now


LOOP_MIN_WORDS = 8
LOOP_SHARE = 0.4


def is_loop(text: str) -> bool:
    """The model caught in a loop: one word is two fifths or more of a reply of eight words or
    more ("Perrin, Perrin, Perrin, ..." to "I can't touch honey, it makes me sick.": held-out
    seed 83417, twice, each shown to the player as it was)."""
    words = _words(text)
    if len(words) < LOOP_MIN_WORDS:
        return False
    [(_, most)] = Counter(words).most_common(1)
    return most >= LOOP_SHARE * len(words)
