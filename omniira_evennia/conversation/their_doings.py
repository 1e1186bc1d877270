"""
What the player does, means to do or asks of their own life, said as the NPC's own (issue #24,
point 3; the swaps_i_and_you slip, read by swaps.py): "I'll rest a little bit." to "I think I'll
sit a while and rest my legs.", "I follow you, Talia." to a horse that follows them, "I grew up
in a fishing village on the coast." to "Which town did I grow up in?", "I don't remember
putting anything aside" to what they are putting money aside for.

Plain Python; every function reads at most the first 2,000 characters of its text.
"""

from __future__ import annotations

import re

from omniira_evennia.conversation.words import KIN_WORDS, content_stems

OWN_PLAN = re.compile(
    r"\bi(?:'ll| will|'m going to| am going to| mean to| plan to| want to| think i'll)\b", re.I
)


def plan_as_mine(reply: str, line: str) -> bool:
    """What they mean to do, said as what the NPC will do: "I agree, Wystan. I'll rest a little
    bit." to "I think I'll sit a while and rest my legs." (held-out seed 97301)."""
    plan = OWN_PLAN.search(line[:2000])
    if not plan:
        return False
    meant = content_stems(re.split(r"[.!?]", line[plan.end() : 2000])[0])
    for will in re.finditer(r"\bi(?:'ll| will)\s+([a-z]+)(?:\s+([a-z]+))?", reply[:2000], re.I):
        if content_stems(" ".join(w for w in will.groups() if w)) & meant:
            return True
    return False


def animal_doing_as_mine(reply: str, line: str) -> bool:
    """What their animal does to them, said as the NPC doing it to them: "I follow you, Talia."
    to "my horse is called Noodle, and he follows me everywhere" (held-out seed 97301)."""
    for verb in re.findall(r"\b(?:he|she|it)\s+([a-z]+?)e?s\s+me\b", line[:2000], re.I):
        if re.search(rf"\bi\s+{re.escape(verb)}e?\s+you\b", reply[:2000], re.IGNORECASE):
            return True
    return False


_NOT_KNOWING_WHAT_I = re.compile(
    r"\b(?:don'?t|do not|can'?t|cannot) (?:remember|recall|know|say|tell) (?:what|who|where|"
    r"which|how)\b[^.?!]{0,20}?\bi (?:cannot |can'?t |can not |can |could |will |would |am |do |"
    r"did |should |must )?(?!can\b|could\b|will\b|would\b|should\b|must\b)([a-z]{3,})",
    re.IGNORECASE,
)
_PAST = {
    "grow up": r"\bi (?:grew up|was raised|was born)\b",
    "come from": r"\bi (?:came|come|am) from\b|\bi'm from\b",
    "live": r"\bi (?:lived|live)\b",
    "come here from": r"\bi came here from\b",
}


def doing_as_mine(reply: str, line: str) -> bool:
    """ "I don't remember putting anything aside for anything." to "Voss, what am I putting money
    aside for, do you remember?" (held-out seed 92821): their doing, not remembered as the
    NPC's own."""
    # "I grew up in a fishing village on the coast." from Voss, to "Which town did I grow up
    # in?" (held-out seed 39119): their question answered with the NPC's own life.
    reply, line = reply[:2000], line[:2000]
    grew = re.search(r"\bdid i (grow up|come from|live|come here from)\b", line, re.IGNORECASE)
    if grew and re.search(_PAST[grew.group(1).lower()], reply, re.IGNORECASE):
        return True
    # "I don't know what I cannot eat." to "What can't I eat?" (telnet trial, 2026-12-07).
    for verb in _NOT_KNOWING_WHAT_I.findall(reply):
        if re.search(rf"\b{re.escape(verb)}\b", line, re.IGNORECASE):
            return True
    # "I do not recall a brother of mine." to "Who is my brother, do you recall?" (held-out
    # seed 73811): their kin asked of, the NPC's own answered.
    kin = re.search(rf"\bmy ({KIN_WORDS})\b", line, re.IGNORECASE)
    if kin and re.search(
        rf"\b{kin.group(1)}s? of mine\b|\bmy {kin.group(1)}\b", reply, re.IGNORECASE
    ):
        return True
    doing = re.search(r"\bam i (\w+ing)\b", line, re.IGNORECASE)
    return bool(doing) and bool(
        re.search(
            # "I remember putting money aside for reading and writing ..." too (held-out seed
            # 50993): the NPC remembers doing it.
            rf"\bi (?:(?:don'?t|do not|can'?t|cannot) )?(?:remember|recall) (?:ever )?"
            rf"{doing.group(1)}\b",
            reply,
            re.IGNORECASE,
        )
    )


_HOME_TOLD = re.compile(
    r"\b(?:i'?m from|i am from|i come from|i came (?:here )?from|home for me is|i grew up in|"
    r"i was born in)\s+(?P<place>[A-Z][a-z]+)",
    re.IGNORECASE,
)
_MY_HOME = re.compile(
    r"\bi(?:'m| am| was born| grew up| come| came)\b[^.!?]*\b(?:from|in|raised)\b", re.IGNORECASE
)


def home_as_mine(reply: str, line: str) -> bool:
    """Their home told, met with the NPC's own and nothing of theirs: "I'm from Wickham Cross,
    born and raised." to "I'm from Wyndale, far to the north" (held-out seed 50993). "Wyndale?
    I'm from Wickham Cross myself." speaks to theirs."""
    reply, line = reply[:2000], line[:2000]
    told = _HOME_TOLD.search(line)
    if not told or not _MY_HOME.search(reply):
        return False
    place = told.group("place").lower()
    return place not in reply.lower() and not re.search(r"\byou(?:r|'re)?\b", reply, re.I)
