"""
A fear, loss, hurt or illness the player tells (issue #24, point 3), and what an NPC must not
meet it with: cheer or a tale (`cheers_a_hardship`: "That's a good thing, Bartholomew." to
"I'm terribly afraid of deep water."), or sorrow and dismay where there is no trouble at all
(`sorry_for_no_hardship`: "Oh no, Calla! That must be terrible." to a pot of silver found).

Plain Python; every function reads at most the first MAX_CHARS of its text.
"""

from __future__ import annotations

import re

from omniira_evennia.conversation.words import capped

CHEERS = "cheers_a_hardship"  # the slip's name (voice.slips)
# A "not" of the line's own: "I haven't eaten since sunrise." tells of a want, not a hardship.
NEGATES = re.compile(r"n't\b|\b(?:not|never|cannot|no)\b", re.IGNORECASE)


# A hardship told met with cheer: "That's a good thing, Bartholomew." to "I'm terribly afraid of
# deep water." (telnet trial, 2026-12-06). Their hardship is a fear, a loss, a hurt or an
# illness, not denied within a few words ("I'm not afraid of anything" may be cheered).
_HARDSHIP = re.compile(
    r"\b(?:afraid|fear\w*|scared|frighten\w*|terrif\w*|dread\w*|died|dead|lost|broke|broken|"
    r"hurt|ill|sick|fell|robbed|lonely|miss(?:es|ed)?|grie\w+|mourn\w*|drown\w*|burn(?:ed|t)|"
    r"vanished|disappeared|never (?:came back|wrote back|returned))\b",
    re.IGNORECASE,
)
_DENIED_HARDSHIP = re.compile(
    r"\b(?:not|never|no|n't|nothing)\b(?:\W+[\w']+){0,2}?\W+" + _HARDSHIP.pattern[2:],
    re.IGNORECASE,
)
# The cheer alone, not "That's a good rule" (to "I can't touch mushrooms, it makes me sick.").
# "Yes, Berwyn, it's a wonderful find." to the key of a house that burned (held-out seed 39119).
_CHEER = re.compile(
    r"^\W*(?:(?:yes|aye|oh|ah|well)[,!]?\s+(?:[A-Z][a-z]+[,!]?\s+)?)?"
    r"(?:(?:(?:that's|that is|it's|it is|what|how)\s+(?:a\s+|such\s+a\s+)?(?:very\s+|so\s+)?)?"
    r"(?:good|great|wonderful|lovely|nice|fantastic|excellent|splendid|marvellous|exciting)"
    r"(?:\s+(?:thing|news|find|sign|to hear(?: that| it)?))?|good for you|(?:i'm\s+)?glad to hear"
    r"(?: that| it)?)(?=\s*(?:[,.!;]|$))",
    re.IGNORECASE,
)


# Their loss made a tale: "Oh, that's a sad story, isn't it?" to "My father died last winter."
# (telnet trial, 2026-12-06, with a busy machine).
_A_TALE = re.compile(
    r"^\W*(?:oh,?\s+)?(?:that's|that is|what)\s+(?:a|such a)\s+(?:\w+\s+)?(?:story|tale)\b",
    re.IGNORECASE,
)


# The one lost, met as someone to meet: "Oh, that's a shame. Maybe one day we can meet her." to
# a grandmother who vanished near the old mill (held-out busy seed 57287).
_TO_MEET_THE_LOST = re.compile(
    r"\b(?:we|i) (?:can|could|will|might|shall|would love to|'d love to|hope to) meet (?:her|him|"
    r"them)\b|\bcan'?t wait to meet\b",
    re.IGNORECASE,
)
_GONE = re.compile(r"\b(?:vanished|disappeared|died|dead|drowned|lost|never came back)\b", re.I)


def cheers_a_hardship(reply: str, line: str) -> bool:
    """The player's fear, loss or hurt (or want of the moment: hunger, a soaking) answered, first
    thing, with cheer, or as a tale; or one they lost met as someone to meet."""
    line, reply = capped(line), capped(reply)
    if _GONE.search(line) and _TO_MEET_THE_LOST.search(reply):
        return True
    hard = bool(_HARDSHIP.search(line)) and not _DENIED_HARDSHIP.search(line)
    return bool(_CHEER.match(reply) or _A_TALE.match(reply)) and (hard or bool(_WANT.search(line)))


# A want of the moment is no hardship, but no good news either: "That's a good sign, Linnea.
# Let's get some food." to "I haven't eaten since sunrise." (held-out seed 33457).
_WANT = re.compile(
    r"\b(?:hungry|thirsty|starving|(?:haven'?t|have not|hasn'?t) eaten|soaked|drenched|"
    r"slipped|tripped|weary|exhausted|footsore|freezing)\b",
    re.IGNORECASE,
)


# "I'm sorry, Zoltan." and nothing else, to a bone-handled knife and to keeping bees (held-out
# seed 86753): sorrow for what is no hardship.
_BARE_SORRY = re.compile(
    r"^\W*(?:oh,?\s+)?i'?m (?:so |very )?sorry(?: to hear (?:that|it))?(?:,?\s+[A-Z][a-z]+)?\W*$",
    re.IGNORECASE,
)


def sorry_for_no_hardship(reply: str, line: str) -> bool:
    """A bare "I'm sorry." to a line that tells of no fear, loss, hurt or illness, nor of
    anything not had or done ("I haven't eaten since sunrise." is a want); or dismay, first
    thing, at a line that tells of no trouble at all."""
    line, reply = capped(line), capped(reply)
    if _DISMAY.match(reply) and not _TROUBLE.search(line) and not NEGATES.search(line):
        return True
    if _UNASKED_APOLOGY.search(reply) and not _OFFENCE.search(line):
        return True
    sorry = _BARE_SORRY.match(reply) or _SORRY_TO_KNOW.search(reply)
    return bool(sorry) and not _HARDSHIP.search(line) and not NEGATES.search(line)


# "Oh, sorry, Niall. I didn't mean to insult you." to "My cloak is soaked through." (held-out
# seed 38917): pardon asked for an offence nobody took.
_UNASKED_APOLOGY = re.compile(
    r"\b(?:didn't|did not|never) mean(?:t)? to (?:insult|offend|upset|hurt|anger|bother)\b",
    re.IGNORECASE,
)
_OFFENCE = re.compile(
    r"\b(?:insult\w*|offen\w+|rude|angry|anger\w*|upset\w*|hurt\w*|bother\w*|mean|laugh\w*)\b",
    re.IGNORECASE,
)


# "Oh no, Calla! That must be terrible." to a pot of silver found under the floor (held-out seed
# 62219): dismay at good news. Any trouble in the line may be met so, a long walk or a rash too.
_DISMAY = re.compile(
    r"^\W*(?:oh,?\s+)?(?:oh no|oh dear|dear me|how (?:awful|terrible|dreadful|horrible|sad)|"
    # "That's a very sad story." to a pot of old silver found (telnet trial, 2026-12-07).
    r"(?:that's|that is|that must be|that sounds|what) (?:(?:so|very|a|an|really|quite)\s+){0,2}"
    r"(?:terrible|awful|dreadful|horrible|sad|unfortunate|shame|pity))\b",
    re.IGNORECASE,
)
_TROUBLE = re.compile(
    _HARDSHIP.pattern
    + r"|\b(?:allerg\w*|rash|swell\w*|itch\w*|cough\w*|fever|ache\w*|pain\w*|wound\w*|scar\w*|"
    r"injur\w*|lame|blind|deaf|debt\w*|owe\w*|poor|hungry|tired|weary|exhausted|cold|soaked|wet|"
    r"storm\w*|rain\w*|flood\w*|fire|stolen|thie\w+|trouble\w*|worr\w+|sad|hard|heavy|bad|"
    r"awful|terrible|long|late|alone|sorry|nightmare\w*|stuck|fail\w*|hate\w*|starv\w*|"
    r"abandon\w*|beat(?:en)?|weak|limp\w*|(?:getting|too|grown|so) old|old and|slow|dying|dies|"
    # Not "a pot of old silver": "Oh, that's a sad story, Tilda." to it (held-out seed 73811).
    r"die|miss\w*|homeless|"
    # "Oh no, that's a terrible thing" to a cart overturned on the bridge (held-out seed 38917).
    r"overturn\w*|upset|crash\w*|wreck\w*|brawl\w*|collaps\w*|accident\w*)\b",
    re.IGNORECASE,
)


# "I'm sorry to know about Aldous's leadership." to "Who runs this town?" (held-out seed 57287).
_SORRY_TO_KNOW = re.compile(r"\bsorry to (?:know|learn) (?:about|of)\b", re.IGNORECASE)
