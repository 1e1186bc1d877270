"""
A fact from the NPC's notes recited to a line it does not answer (issue #24, point 3): told "I
always carry a book of old sea charts", Lyra said "Old Hob the baker keeps the bread stall by
the well and sells a loaf for one copper."; told "My dream is to build a windmill on the hill",
"Two roads leave the square: ..."; to "It has not stopped raining", Wren said "Lyra, a
travelling bard, is staying at the tavern this season." (held-out seed 35089, five replies of
108). A small model copies a line of its prompt when it has nothing to say; a player hears an
NPC that is not listening.

A question may be answered by a fact whose words it does not share ("What is there to see in
this town?" "Two roads leave the square ..."; "What do you do here?" and the NPC's own trade),
unless it asks of the speaker's own life; a line that tells something must share two content
words with the fact.

Plain Python; reads at most words.MAX_CHARS of each text.
"""

from __future__ import annotations

import re

from omniira_evennia.conversation.words import (
    capped,
    content_stems,
    is_question,
    sentence_list,
)

RECITES = "recites_what_it_knows"  # the slip's name (guard.slips_of)
# Share of a fact's content words a sentence must hold to be that fact said again.
RECITED_SHARE = 0.7
MIN_FACT_WORDS = 4


# A question of the speaker's own life ("What do I dream of?"), not "Where can I buy bread?".
_OF_THEMSELVES = re.compile(r"\b(?:my|mine|me|myself)\b|\b(?:am|do|did|was|have|had) i\b", re.I)
# A need said is a question: "I need my plough mended." may be met with the smith's forge.
_ASKS_FOR = re.compile(r"\bi(?:'m| am)? (?:need|want|looking for|would like|'d like)\b", re.I)


def _answers_by_any_fact(line: str, about_npc: bool) -> bool:
    # Asked of itself, its own facts and its town's answer: "What do you do here?" "I sell
    # remedies at a market stall ..." (replayed held-out replies: 25 of 29 flagged were so).
    if _ASKS_FOR.search(line) or about_npc:
        return True
    return is_question(line) and not _OF_THEMSELVES.search(line)


# A sentence of a fact about someone by name ("Wren is the herbalist: she sells ...").
# "Lyra, a travelling bard, is staying ..." too (held-out seed 69127).
_OF_SOMEONE = re.compile(r"^\W*(?:[Oo]ld\s+)?(?P<name>[A-Z][a-z]{2,})(?:'s)?,?\s+[a-z]")
_NOT_SOMEONE = {"the", "this", "that", "there", "two", "one", "for", "you", "your", "market"}
_FIRST = re.compile(r"\b(?:i|i'm|i've|i'll|my|me|mine)\b", re.IGNORECASE)


def _recited_from(reply: str, known: list[set], in_part: bool = False) -> list[str]:
    """The sentences of `reply` that say one of `known` again: most of its words, or, `in_part`,
    a sentence of MIN_FACT_WORDS - 1 words or more made (RECITED_SHARE) of its words ("Lyra is
    staying at the tavern this season." to "Is anyone waiting for you at home?", from Wren)."""
    found = []
    for sentence in sentence_list(capped(reply)):
        words = content_stems(sentence)
        for stems in known:
            shared = len(words & stems)
            if shared >= RECITED_SHARE * len(stems) or (
                in_part
                and len(words) >= MIN_FACT_WORDS - 1
                and shared >= RECITED_SHARE * len(words)
            ):
                found.append(sentence)
                break
    return found


def _of_another(sentence: str, npc: str) -> bool:
    opens = _OF_SOMEONE.match(sentence)
    name = opens.group("name").lower() if opens else ""
    return bool(name) and name not in _NOT_SOMEONE and name != npc.lower()


def recited(
    reply: str, line: str, facts: list[str], about_npc: bool = False, npc: str = ""
) -> list[str]:
    """The sentences of `reply` that are a sentence of one of `facts` said again (RECITED_SHARE
    of its content words or more) when `line` is no question that fact may answer: a telling that
    shares fewer than two content words with it, or a question of the speaker's own life that
    shares none. Asked about the NPC itself (`about_npc`) or for a need, any fact may answer,
    but one about someone else by name (not `npc`) answers nothing asked of the NPC: "What do
    you sell?" to Lyra, "Wren sells remedies at a market stall ..." (held-out seed 92821),
    unless the NPC speaks of itself in that sentence too ("I sell nothing, but Wren ...")."""
    if about_npc and npc:
        others = [
            stems
            for fact in facts
            for sentence in sentence_list(capped(fact))
            if _of_another(sentence, npc)
            for stems in [content_stems(sentence)]
            if len(stems) >= MIN_FACT_WORDS
        ]
        return [s for s in _recited_from(reply, others, in_part=True) if not _FIRST.search(s)]
    if _answers_by_any_fact(line, about_npc):
        return []
    said = content_stems(capped(line))
    needed = 1 if is_question(line) else 2
    known = [
        stems
        for fact in facts
        if len(content_stems(capped(fact)) & said) < needed
        for stems in map(content_stems, sentence_list(capped(fact)))
        if len(stems) >= MIN_FACT_WORDS
    ]
    return _recited_from(reply, known)
