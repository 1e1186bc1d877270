"""
What the player tells of themselves, told back to them (issue #24, point 3): to "By trade I am
a chimney sweep", "And your family has been chimney sweeps for generations."; to "before I'm
old I mean to become the mayor", "You have always wanted to become the mayor of this town.";
to a rash from wheat, "I know you say wheat causes a rash and asks to avoid eating it."
(held-out seed 69127; 24 of 686 first replies of twelve earlier runs that the guard kept, every
one read). A small model with nothing to say narrates the listener's own life to them, often
with something added; a player hears an NPC that is not listening, or that makes things up.

A sentence that tells them of themselves, opened with "you" or "your ..." (after "Oh,", a name,
or "I know / see / understand that") and sharing a word of what they told, is the slip; one
that feels for them or advises ("You must miss her", "you should rest", "You're welcome to
sit"), or says what the NPC will do about it ("...; I'll keep them off your plate."), is not.
A bare "Yes, I do." to what they told of themselves answers nothing that was asked.

Plain Python; reads at most words.MAX_CHARS of each text.
"""

from __future__ import annotations

import re

from omniira_evennia.conversation.words import (
    FIRST_PERSON,
    capped,
    content_stems,
    ends_asking,
    is_question,
    sentence_list,
)

NARRATES = "tells_them_their_own"  # the slip's name (voice.slips via handback.telling_slips)

_TOLD_BACK = re.compile(
    r"^\W*(?:(?:oh|ah|well|yes|aye|so|and|but|hmm)[,!]?\s+)?(?:[A-Z][a-z]+[,!]\s+)?"
    r"(?:(?:i|we)\s+(?:know|see|remember|hear|understand|gather|recall|heard)(?:\s+that)?\s+"
    r"|it seems(?:\s+that)?\s+|so\s+)?"
    r"(?:you(?:'re|'ve|'d)?|your\s+[\w']+)\s+(?P<next>[\w']+)",
    re.IGNORECASE,
)
# What may follow "you" in a sentence that feels for them, advises or welcomes them.
_FEELS_OR_ADVISES = set(
    "must poor should can could might may will 'll would need ought sound sounds look looks "
    "seem seemed surely welcome kind brave lucky safe see".split()
)
# What the NPC will do about it, in the same sentence: "You cannot eat eggs; I'll keep them off
# your plate." answers them.
_ITS_OWN_ANSWER = re.compile(r"\bi(?:'ll| will| won't|'d| would)\b", re.IGNORECASE)
_BARE_YES = re.compile(
    r"^\W*(?:yes|no|aye|nay|i know|(?:it'?s|that'?s) true|true)"
    r"(?:,?\s+(?:i|we)\s+(?:do|did|am|was|can|have|don't|didn't|can't|haven't))?"
    r"(?:,?\s+[A-Z][a-z]+)?\W*$",
    re.IGNORECASE,
)


# Words that tell nothing of them by themselves: "You came a long way, then." to "I came here
# from Cairnby" feels for them.
_ANYONES_WORDS = content_stems(
    "came come comes went go goes get got make made take took have like love want need keep know "
    "think feel seem look long way good great lot time day thing things"
)


def tells_them_their_own(reply: str, line: str) -> bool:
    """`line` is the player telling of themselves, and a sentence of `reply` tells it back to
    them ("You are afraid of wolves.", "I know your raven's name is Crumpet."), or the reply is
    a bare yes or no ("Yes, I do.") or "I know." (held-out seed 50993, to a brother
    who never wrote back)."""
    line, reply = capped(line), capped(reply)
    if ends_asking(line) or not FIRST_PERSON.search(line):
        return False
    if _BARE_YES.match(reply):
        return True
    told = content_stems(line) - _ANYONES_WORDS
    for sentence in sentence_list(reply):
        if is_question(sentence) or _ITS_OWN_ANSWER.search(sentence):
            continue
        back = _TOLD_BACK.match(sentence)
        if (
            back
            and back.group("next").lower() not in _FEELS_OR_ADVISES
            and content_stems(sentence) & told
        ):
            return True
    return False
