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
words with the fact. Its prompt read out instead of a reply ("Answer what the person talking
to you just said in one to three short sentences, ...") is `recites_the_prompt`.

Plain Python; reads at most words.MAX_CHARS of each text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from omniira_evennia.conversation.phrasing import in_own_voice
from omniira_evennia.conversation.prompts import PromptContext
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
# "Do you remember what I do for a living?" asks of them as much as "How do I earn my living?"
# ("... I don't remember what you do for a living. I'm not married and live alone above the
# forge.": Voss, held-out seed 33457).
_OF_THEMSELVES = re.compile(
    r"\b(?:my|mine|me|myself)\b|\b(?:am|do|did|was|have|had) i\b"
    r"|\b(?:what|where|who|which|how) (?:\w+ )?i (?:do|did|am|was|have|had|come|came|grew|live)\b",
    re.I,
)
# A need said is a question: "I need my plough mended." may be met with the smith's forge.
# So is asking what it would give them: "What would you give me for a cough, Wren?" may be met
# with her remedies (held-out seed 46271: they were taken for a recital).
_ASKS_FOR = re.compile(
    r"\bi(?:'m| am)? (?:need|want|looking for|would like|'d like)\b"
    r"|\bwhat (?:would|could|can|will|do) you (?:give|sell|offer|recommend)\b"
    r"|\b(?:anything|something) (?:good )?for (?:a|an|my|the)\b",
    re.I,
)


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


def _halves(fact: str) -> list[str]:
    """The halves of a fact's sentences at a semicolon: "You are not married and live alone
    above the forge; your brother builds boats on the coast." is two things to say."""
    return [h for s in sentence_list(capped(fact)) if ";" in s for h in re.split(r";\s+", s)]


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
    unasked = [fact for fact in facts if len(content_stems(capped(fact)) & said) < needed]
    known = [
        stems
        for fact in unasked
        for stems in map(content_stems, sentence_list(capped(fact)))
        if len(stems) >= MIN_FACT_WORDS
    ]
    # Half of one said almost word for word: "I'm not married and live alone above the forge."
    # to "Do you remember what I do for a living?" (Voss, held-out seed 33457); "Aye, the door
    # is barred at midnight, love." says the half in its own words.
    halves = [
        stems
        for stems in map(content_stems, (h for fact in unasked for h in _halves(fact)))
        if len(stems) >= MIN_FACT_WORDS
    ]
    found = _recited_from(reply, known)
    in_halves = set().union(*halves)
    return found + [
        s
        for s in _recited_from(reply, halves)
        if s not in found
        and len(content_stems(s) & in_halves) >= RECITED_SHARE * len(content_stems(s))
    ]


# The prompt read out (turn.ask_until_heard), and what it may say of it.
PROMPT_RUN = 6  # words in a row shared with the instructions that make a reply a recital


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def _runs(text: str, n: int = PROMPT_RUN) -> set[tuple[str, ...]]:
    words = _words(text)
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


@functools.lru_cache(maxsize=64)
def _spaced(text: str) -> str:
    """`text`'s words between single spaces: a run of words is in `text` when its own spaced
    form is a substring of this (a turn's instructions are read once, not as every run)."""
    return " " + " ".join(_words(text)) + " "


def _in(run: tuple[str, ...], text: str) -> bool:
    return " " + " ".join(run) + " " in _spaced(text)


def recites_the_prompt(text: str, messages: list[dict], sayable: Iterable[str] = ()) -> bool:
    """The reply says two runs of PROMPT_RUN words of the instructions the model was sent (its
    system messages), or five words in a row of a second try's reminder: a small model reading
    its prompt out instead of answering. The facts the prompt shows it (`sayable`: its own life,
    what it knows, remembers and has heard) are its to say in their own words."""
    if not text:
        return False
    said = _runs(capped(text))
    if len(said) < 2:
        return False
    prompt = " ".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")
    prompt = prompt[:20000]  # cut once: a new string for every run would be hashed again
    from_prompt = [run for run in said if _in(run, prompt)]
    if len(from_prompt) >= 2:
        own = [s[:2000] for s in sayable]
        if sum(1 for run in from_prompt if not any(_in(run, s) for s in own)) >= 2:
            return True
    # The reminder of a second try, read out: "You know nothing of what you called the old
    # mill." (held-out seed 70919, from "(You know nothing of what Gareth named ...)").
    last = str(messages[-1].get("content", "")) if messages else ""
    reminder = last[last.rfind("\n\n(") :] if "\n\n(" in last else ""
    return bool(reminder) and bool(_runs(capped(text), 5) & _runs(reminder[:2000], 5))


def sayable(ctx: PromptContext) -> list[str]:
    """What the prompt shows the NPC to say, not to obey: "I sing the old river ballads, 'The
    Miller's Daughter' and ..." is Lyra's own fact, not her instructions read out (held-out seed
    97301: taken for a recital, the second try said "I'm not sure" what her line of work is)."""
    known = [k.text for k in ctx.knowledge if not k.secret]
    own = [in_own_voice(t) for t in [*ctx.own_life, *known]]  # as the prompt has it
    return [*known, *own, *(m.text for m in ctx.memories), *ctx.beliefs, *ctx.news]
