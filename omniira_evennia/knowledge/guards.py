"""
Guarded knowledge, enforced without asking the model (issue #25).

- A **secret** the speaker may not be told never reaches the prompt: the turn's view leaves
  it out (knowledge/service.view_for), so no model can leak what it was never given. When the
  line probes it and the builder wrote a line for it, the NPC says that line.
- A **won't-discuss** topic is met with the builder's line, and no LLM call is made.

A line is about a guarded topic when it holds one of the topic's words or aliases (a phrase,
any case, plurals and possessives too: "debt" finds "debts" and "Tomas's") or, with the
embedder, when its meaning is within KNOWLEDGE_GUARD_COSINE of the topics' (measured on the
demo's probes and benign questions: docs/benchmarks.md, "What NPCs know").

Plain Python and numpy (no Django, Evennia or Twisted).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from omniira_evennia.knowledge.facts import Guard

MAX_CHARS = 2000


@dataclass(frozen=True)
class GuardHit:
    """A guard the line met, and how: by which word, or at which cosine."""

    guard: Guard
    how: str

    @property
    def reply(self) -> str:
        return self.guard.reply


def phrase_pattern(phrase: str) -> re.Pattern | None:
    """A topic phrase as a whole-word pattern: its words in order, each with a plural or "'s"."""
    words = re.findall(r"[^\W_]+", str(phrase).lower())
    if not words:
        return None
    body = r"\W+".join(re.escape(w) + r"(?:s|es|'s|\u2019s)?" for w in words)
    return re.compile(rf"\b{body}\b", re.IGNORECASE)


# "my brother Tomas", "our wife's": the speaker's own, whatever the NPC's topic is called.
_THEIR_OWN = re.compile(
    r"\b(?:my|our)\s+(?:[\w'-]+\s+){0,2}$"
    # What they do themselves: "I write letters for folk who cannot." to Voss, whose secret is
    # his letters (held-out seed 35089); "I heard Tomas drowned" still asks of the NPC's topic.
    r"|\b(?:i|we)\s+(?:(?:can't|cannot|don't|do|also|still|often|always)\s+)?"
    r"(?:(?!(?:heard|hear|know|knew|met|saw|see|asked|wonder|think|love|loved|miss|missed|"
    r"remember|liked)\b)[a-z]+\s+)?$",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|my|mine|me|our)\b", re.IGNORECASE)
_SECOND_PERSON = re.compile(r"\b(?:you|your|yours|yourself)\b", re.IGNORECASE)


def word_hit(line: str, guard: Guard) -> str | None:
    """The topic word or alias of `guard` that `line` holds, or None. A word that names the
    speaker's own ("My brother Tomas went missing" to Maren, whose late husband was Tomas:
    telnet trial, 2026-12-04) is not the NPC's topic."""
    text = str(line or "")[:MAX_CHARS]
    for phrase in guard.words:
        pattern = phrase_pattern(phrase)
        if pattern is None:
            continue
        for found in pattern.finditer(text):
            if _THEIR_OWN.search(text[max(0, found.start() - 60) : found.start()]):
                continue
            if not found.group()[:1].isupper() and _tells_of_their_own(text, found.start()):
                continue
            return phrase
    return None


# A sentence told of the speaker's own life: "My dream is to learn to read and write." (Voss,
# whose secret is his letters, said "What's it to you? Mind the sparks": held-out seed 58447).
# Not what they heard or know ("I heard you cannot read" speaks of "you" anyway).
_OWN_TELLING = re.compile(
    r"^\W*(?:[A-Z][a-z]+,\s*)?(?:my|i|i'm|i've|i'd|i'll)\b"
    r"(?!\s+(?:heard|hear|know|knew|saw|see|wonder|think)\b)",
    re.IGNORECASE,
)


def _tells_of_their_own(text: str, at: int) -> bool:
    """The sentence of `text` around `at` tells of the speaker's own life, asks nothing and
    says nothing of "you": a topic's common word in it is theirs (a name still is the NPC's)."""
    start = max(text.rfind(mark, 0, at) for mark in ".!?;") + 1
    ends = [i for i in (text.find(mark, at) for mark in ".!?;") if i != -1]
    sentence = text[start : min(ends) + 1 if ends else len(text)]
    return (
        bool(_OWN_TELLING.match(sentence))
        and "?" not in sentence
        and not _SECOND_PERSON.search(sentence)
    )


def about_their_own(line: str) -> bool:
    """A line only about the speaker's own life ("What's my wife's name?"): in the first
    person, with no "you" in it. Its meaning is no reason to meet it with the NPC's guard."""
    text = str(line or "")[:MAX_CHARS]
    return bool(_FIRST_PERSON.search(text)) and not _SECOND_PERSON.search(text)


_ASKING = re.compile(r"\?|^\W*(?:tell|say|show|explain|describe|talk)\b", re.IGNORECASE)


def tells_of_others(line: str) -> bool:
    """A line that tells, asks nothing and is not said of "you": news of someone else ("Harlan
    the miller lost his purse at the ferry crossing, they say.": held-out seed 83417, met with
    Maren's line for her hidden purse). Its meaning probes no secret of the NPC's."""
    text = str(line or "")[:MAX_CHARS]
    return not _ASKING.search(text) and not _SECOND_PERSON.search(text)


def meaning_hit(vector, guard: Guard, threshold: float) -> float | None:
    """The cosine of the line and the guard's topics when at least `threshold`, else None."""
    if vector is None or guard.vector is None or threshold <= 0:
        return None
    cosine = float(np.dot(np.asarray(vector, dtype=np.float32), guard.vector))
    return cosine if cosine >= threshold else None


def match(line: str, guards, vector=None, threshold: float = 0.0) -> GuardHit | None:
    """
    The guard `line` is about (by its words first, then by meaning, the closest), or None.
    Won't-discuss topics and secrets alike; a guard without a reply line is matched too (the
    caller decides: a secret without a line is simply not in the prompt).
    """
    for guard in guards:
        found = word_hit(line, guard)
        if found:
            return GuardHit(guard, f"the word {found!r}")
    if about_their_own(line) or tells_of_others(line):
        return None
    best = None
    for guard in guards:
        cosine = meaning_hit(vector, guard, threshold)
        if cosine is not None and (best is None or cosine > best[0]):
            best = (cosine, guard)
    if best is not None:
        return GuardHit(best[1], f"meaning (cosine {best[0]:.2f} >= {threshold:g})")
    return None


def spoken(reply: str, npc: str, speaker: str) -> str:
    """A builder's line with {name} (the NPC) and {speaker} filled in; unknown fields stay."""
    text = str(reply or "")
    for field_name, value in (("name", npc), ("npc", npc), ("speaker", speaker)):
        text = text.replace("{" + field_name + "}", value)
    return text
