"""
What the player named, described by an NPC that knows nothing of it (issue #24, point 3): told
"before I'm old I mean to find the lost mine of Carrow", a small model went on "The lost mine
of Carrow is near the well, where Old Hob the baker keeps the bread stall." (held-out busy seed
90271); told "I'm from Brackenridge", "Brackenridge is a town located on the north side of the
market square" (busy seed 15511), or "I've been there several times." (90271). A player takes
such a line as the world's truth. The NPC may ask about the place, or say it does not know it;
it does not describe it or claim to have been there.

Plain Python; reads at most words.MAX_CHARS of each text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from omniira_evennia.conversation.words import (
    FRAMING_WORDS,
    KIN_WORDS,
    OWN_TELLING,
    STOP_WORDS,
    capped,
    content_stems,
    is_question,
    rx,
    sentence_list,
)

INVENTS_WHAT_THEY_NAMED = "describes_what_it_never_heard_of"  # the slip's name (guard.slips_of)

_WORD = re.compile(r"[A-Za-z][A-Za-z']*")
_NOT_NAMES = {"I", "I'm", "I've", "I'll", "I'd"}
_SECOND_PERSON = re.compile(r"\b(?:you|your|you're|yours)\b", re.IGNORECASE)
# Said of the place itself: "Carrow is near ...", "Sedgewick was a beautiful place".
_DESCRIBED = r"(?:\s+(?:is|was|lies|lay|sits|stands|has|had|used to be))\b"
# Having been there: "I've been there several times.", "I visited Redfern once."
_BEEN_THERE = re.compile(r"\bi(?:'ve| have)\s+(?:been there|seen it|seen the place)\b", re.I)
_BEEN_TO = r"\b(?:been to|been in|visited|passed through|seen)\s+(?:the\s+)?(?:\w+\s+)?(?:of\s+)?"
# A sentence that goes on about it: "It is a secret mine that was found by the villagers ...".
# "I have not seen Odile", "I've never been to Carrow": no claim of having been there.
_NEGATED = re.compile(r"(?:\bnot|\bnever|n't)\s+(?:\w+\s+)?$", re.IGNORECASE)
_TAG_QUESTION = re.compile(
    r",?\s*\b(?:is|was|does|do|are|did|has|have)n't (?:it|they|she|he|there)\s*\?\s*$", re.I
)
_GOES_ON = re.compile(r"^\W*(?:it|it's|its|there|they|the (?:place|town|village|mine))\b", re.I)


def unknown_names(line: str, known: str, skip=()) -> list[str]:
    """The names inside the speaker's line (not a sentence's first word) that `known`, what the
    NPC knows, never mentions, and that are not in `skip` (the two of them)."""
    known_words = {w.lower() for w in _WORD.findall(capped(known))}
    skipped = {s.lower() for s in skip}
    found = []
    for sentence in sentence_list(capped(line)):
        for i, word in enumerate(_WORD.findall(sentence)):
            bare = word.removesuffix("'s")
            lower = bare.lower()
            if (
                i
                and bare[:1].isupper()
                and len(bare) > 2
                and bare not in _NOT_NAMES
                and lower not in STOP_WORDS | known_words | skipped
                and lower not in found
            ):
                found.append(lower)
    return found


def invented_about(reply: str, line: str, known: str, theirs: str, skip=()) -> list[str]:
    """
    The sentences of `reply` that describe a name the speaker's `line` brought up and the NPC
    does not know (`unknown_names`), with words neither the speaker (`theirs`: all they said)
    nor what it knows (`known`) gave it, or that claim it has been there; and the sentences
    that go straight on about it ("It is a secret mine ..."). Questions, and what is said to
    the listener that does not describe it ("You must miss Brackenridge"), stay.
    """
    names = unknown_names(line, known, skip)
    if not names:
        return []
    given = content_stems(capped(theirs)) | content_stems(capped(known))
    given |= content_stems(" ".join(FRAMING_WORDS))
    # "Tarnow, Calla, is a beautiful town, isn't it?" (held-out seed 31079): said to them.
    pattern = rx(
        r"\b(?:" + "|".join(re.escape(n) for n in names) + r")(?:,\s*[A-Z][a-z]+,)?" + _DESCRIBED,
        re.IGNORECASE,
    )
    been = rx(_BEEN_TO + r"(?:" + "|".join(re.escape(n) for n in names) + r")\b", re.I)
    found: list[str] = []
    going_on = False
    for said in sentence_list(capped(reply)):
        sentence = _TAG_QUESTION.sub(".", said)  # "..., isn't it?" says it
        if is_question(sentence):
            going_on = False
            continue
        # "Briarholt is a beautiful village in the hill country, and you grew up there." (held-
        # out seed 44207) describes it, "you" or not; "You've been there?" is theirs.
        described = pattern.search(sentence) and content_stems(sentence) - given
        yours = _SECOND_PERSON.search(sentence)
        visit = been.search(sentence)
        visit = visit and not _NEGATED.search(sentence[: visit.start()])
        been_there = not yours and (_BEEN_THERE.search(sentence) or visit)
        going_on = bool(described or been_there or (going_on and _GOES_ON.match(sentence)))
        if going_on:
            found.append(said)
    return found


KNEW_IT_ALREADY = "claims_to_know_it_already"  # the slip's name (guard.slips_of)
# "Oh, yes, I remember." to "You should know about my father, Tiberius: ..." (held-out seed
# 35089), "Yes, I've heard that." to "I grew up in Brackenridge" (busy seed 90271): what the
# player tells for the first time, met as old news.
_KNEW_IT = re.compile(
    r"^\W*(?:(?:oh|ah|yes|aye|well|indeed),?\s+)*i(?:'ve| have)?\s+(?:do\s+)?"
    r"(?:(?:remember|recall|heard)(?:\s+(?:that|it|so|of it|about it))?|already know(?: that| it)?"
    # A bare "I know, Dara." is sympathy ("I nearly slipped on the cobbles outside").
    r"|know (?:that|it))\s*[.!,]"
    # "I was just telling you that." to "My cloak is soaked through." (held-out seed 86753)
    r"|^\W*i (?:was just|just) (?:telling|told|said) (?:you )?(?:that|so|it)\b"
    # "So I hear, Oriel." to "I mend fishing nets down at the docks." (telnet, 2026-12-08)
    r"|^\W*(?:(?:oh|ah|yes|aye|well),?\s+)*so i(?:'ve| have)?\s+hear(?:d)?\b",
    re.IGNORECASE,
)
# A memory of them it has not, and what follows rests on it: "I remember your mother Agatha, who
# went east ... I always assumed she was dead, but then I realized ...", "I remember you being
# afraid of the dark since you were a child.", "I know you were afraid of snakes." (held-out
# seed 63341); "I remember it as a small village" of where they grew up (busy seed 57287), "Ah,
# yes, I remember how you came here from Wyndale." (seed 70919).
_RECALLS_THEM = re.compile(
    r"^\W*(?:(?:oh|ah|yes|aye|well),?\s+)*"
    r"(?:i (?:remember|recall) (?:(?:how|that|when) )?(?:you|your|it as)\b"
    r"|i know (?:that )?you(?:'ve| have)? (?:were|was|been)\b)",
    re.IGNORECASE,
)


def knew_it_already(reply: str, line: str, remembered: str) -> list[str]:
    """The sentence of `reply` that meets the speaker's telling of their own (a statement in
    the first person) as something it knew, when nothing it remembers of them (`remembered`)
    holds two of the line's content words."""
    line = capped(line)
    if is_question(line) or not OWN_TELLING.search(line):
        return []
    if len(content_stems(line) & content_stems(capped(remembered))) >= 2:
        return []
    said = sentence_list(capped(reply))
    if said and _RECALLS_THEM.match(said[0]):
        return said
    # "I remember Briarholt beyond the marshes, where you live." to a home told for the first
    # time, "Oh, I remember that key, Odette." (held-out busy seed 42139).
    recalled = _REMEMBERS.match(said[0]) if said else None
    if recalled and content_stems(recalled.group("what")) & content_stems(line):
        return said[:1]
    found = said[:1] if said and _KNEW_IT.match(said[0]) else []
    return found + [s for s in said if _SHARED_PAST.search(s) and s not in found]


_REMEMBERS = re.compile(
    r"^\W*(?:(?:oh|ah|yes|aye|well),?\s+)*i (?:remember|recall)\b(?P<what>[^.!?]*)", re.I
)


# News of someone else met as known, with nothing it holds of it: "Yes, Desmond, I heard that.",
# "I know about that, Yestin.", "I heard Brisa the old schoolmistress come down with the barge
# fever." (held-out busy seed 42139).
_KNEW_THE_NEWS = re.compile(
    r"^\W*(?:(?:oh|ah|yes|aye|well|indeed),?\s+)*(?:[A-Z][a-z]+,\s+)?"
    # "Yes, I did hear that." (held-out seed 17389); "I hear you" is no claim.
    r"i(?:'ve| have| had| did| do)?\s+(?:already\s+)?(?:heard|hear|know|knew)\b"
    r"(?!\s+(?:nothing|not|no|you)\b)",
    re.IGNORECASE,
)


_NEWS_OPENERS = set("the a an terrible sad good bad news they this that word everyone".split())


def _unheard_of(told: str, held: str, skip) -> list[str]:
    """Who the news names (its first word too: "Petra the gravedigger found ...") that `held`
    never names."""
    known = {w.lower() for w in _WORD.findall(capped(held))} | {n.lower() for n in skip if n}
    named = {w.removesuffix("'s") for w in _WORD.findall(told) if w[:1].isupper() and len(w) > 2}
    return sorted(
        n
        for n in named
        if n.lower() not in known | _NEWS_OPENERS | STOP_WORDS and n not in _NOT_NAMES
    )


def _event_unheard(told: str, heard: Sequence[str], standing: Sequence[str], skip) -> bool:
    """No item of `heard` (what the NPC remembers and was told) holds two words of what the
    news says happened: its words less the names in it and what the NPC's standing facts
    (`standing`) say of those named ("Aurick the town crier" is known; that he was robbed on
    the north road is the news)."""
    names = {n.lower() for n in _WORD.findall(told) if n[:1].isupper()} | {
        n.lower() for n in skip if n
    }
    of_them = [f for f in standing if names & {w.lower() for w in _WORD.findall(capped(f))}]
    event = (
        content_stems(told)
        - content_stems(" ".join(names))
        - content_stems(capped(" ".join(of_them)))
    )
    if len(event) < 2:
        return False
    return not any(len(event & content_stems(capped(h))) >= 2 for h in heard)


def claims_the_news(
    reply: str, line: str, heard: Sequence[str], skip=(), standing: Sequence[str] = ()
) -> list[str]:
    """The first sentence of `reply`, when it meets news of someone else (a line with no "I" of
    the speaker's) as heard or known, and someone the news names is never named in what the NPC
    holds, or what happened is in nothing it remembers or was told (`heard`: its memories and
    the news it heard; `standing`: what it knows of its world; `skip`: the two of them)."""
    line = capped(line)
    told = " ".join(s for s in sentence_list(line) if not is_question(s))
    if not told or OWN_TELLING.search(line):
        return []
    held = " ".join([*heard, *standing])
    if not _unheard_of(told, held, skip) and not _event_unheard(told, heard, standing, skip):
        return []
    said = sentence_list(capped(reply))
    return said[:1] if said and _KNEW_THE_NEWS.match(said[0]) else []


# A past together nobody told it of: "It reminds me of the days we spent singing together in
# the village." to "my most precious possession is a tin whistle" (held-out seed 52391).
_SHARED_PAST = re.compile(
    r"\b(?:the days|the time|the times|those days) we\b|\bwhen we (?:were|used to)\b"
    r"|\bwe (?:spent|used to|grew up|sang|played)\b[^.!?]*\btogether\b",
    re.IGNORECASE,
)


THEIR_KIN_UNTOLD = "names_their_kin_untold"  # the slip's name (guard.slips_of)
_KIN = re.compile(rf"\b(?:{KIN_WORDS})", re.IGNORECASE)  # "grandmother" is no "mother"
_THEIR_KIN = re.compile(rf"\byour\s+(?:[a-z]+\s+)?(?P<kin>{KIN_WORDS})s?\b", re.IGNORECASE)


def their_kin_untold(reply: str, known: Sequence[str]) -> list[str]:
    """The sentences of `reply` that bring up the listener's kin of a kind nothing they said nor
    anything the NPC holds (`known`) names: "What do you think about your grandmother?" to "I
    came here from Dunmore" (held-out seed 33457), before any grandmother was told of."""
    reply = capped(reply)
    if not _THEIR_KIN.search(reply):
        return []  # what it holds is read only for a reply that speaks of their kin
    held = {k.lower() for text in known[:200] for k in re.findall(_KIN, capped(text))}
    return [
        s
        for s in sentence_list(reply)
        if any(kin.group("kin").lower() not in held for kin in _THEIR_KIN.finditer(s))
    ]
