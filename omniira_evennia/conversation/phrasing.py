"""
The shared text library of the conversation and of those who write with its prompts (gossip,
the diary, reflection, the review): stored text quoted as data, a line's sentences, a verb
after a name ("I mend" -> "Tobiah mends"), who "I" is in a player's line (`gloss`), and an
NPC's own fact said by it (`in_own_voice`).

Plain Python, no Django or Evennia.
"""

from __future__ import annotations

import re


def quote(text: str) -> str:
    """Render stored text as quoted data: double quotes inside become single quotes."""
    return '"' + " ".join(str(text).split()).replace('"', "'") + '"'


# A sentence ends at . ! or ? (and any closing quote) before a space or the end: "2.5 silver"
# and "maren.k@example.org" are not split (they came out as "2. 5 silver"). Leading spaces stay
# with each sentence, so joining the pieces gives the text back.
# Found as ends, not as wholes: a pattern that matched whole sentences rescanned a run of
# spaces or of "!" from every position in it (6 ms on 800 spaces, quadratic). An end is the
# first of its run (the lookbehind), so each run is read once.
_SENTENCE_END = re.compile(r"(?<![.!?])[.!?]++[\"'\u201d\u2019)]*+(?=\s|$)")


def sentences(text: str) -> list[str]:
    """The sentences of `text`, each with its leading spaces; blank pieces are dropped."""
    pieces, start = [], 0
    for end in _SENTENCE_END.finditer(text):
        if text[start : end.start()].strip():  # "!" alone is no sentence: it ends the last
            pieces.append(text[start : end.end()])
            start = end.end()
    pieces.append(text[start:])
    return [piece for piece in pieces if piece.strip()]


_NOT_A_PRESENT_VERB = set(
    "can cannot can't could will won't would should must may might did didn't had never always "
    "also just still really once often sometimes used told said was were had went came saw made "
    "lost found left took got gave knew thought ran grew stole sold bought brought kept met sent "
    "spent felt heard held led paid put read set sat stood won wrote ate drank broke chose fell "
    "forgot hid rode sang spoke threw wore".split()
)


def third_person_verb(word: str) -> str:
    """'mend' -> 'mends' after a name ('I mend clocks' -> 'Tobiah mends clocks')."""
    lower = word.lower()
    if lower in ("do", "don't"):
        return {"do": "does", "don't": "doesn't"}[lower]
    if lower in _NOT_A_PRESENT_VERB or lower.endswith(("ed", "s")) or not lower.isalpha():
        return word
    if lower.endswith(("ch", "sh", "x", "o", "z")):
        return word + "es"
    if lower.endswith("y") and lower[-2:-1] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


# Who "I" and "you" are in a line, for small models that answer "who am I looking for?" with
# "I am looking for my sister". (pattern, replacement with {s} = speaker, {n} = the NPC)
_GLOSS_FIXED = [
    (r"\b(am|was) i\b", lambda m, s: f"{'is' if m.group(1).lower() == 'am' else 'was'} {s}"),
    (
        r"\b(do|did|have|can|could|will|would|should|must|may) i\b",
        lambda m, s: f"{_agree(m.group(1))} {s}",
    ),
    (r"\b(i am|i'm)\b", lambda m, s: f"{s} is"),
    (r"\b(i have|i've)\b", lambda m, s: f"{s} has"),
    (r"\bi was\b", lambda m, s: f"{s} was"),
    (r"\b(my|mine)\b", lambda m, s: f"{s}'s"),
    (r"\b(me|myself)\b", lambda m, s: s),
]
_CLAUSE_START = re.compile(
    r"(^|[,.;:!?]\s*|\b(and|but|so|that|what|who|whom|where|when|why|how|if|because|or)\s+)$",
    re.IGNORECASE,
)


def _agree(aux: str) -> str:
    return {"do": "does", "have": "has"}.get(aux.lower(), aux.lower())


def gloss(line: str, speaker: str, npc: str) -> str:
    """
    `line` with "I" and "my" replaced by the speaker's name: "Who am I searching for, do you
    recall?" -> "Who is Tobiah searching for, do you recall?". "You" stays "you": spelled out as
    the NPC's name, a small model answered in the third person ("No, Maren does not remember
    what Tobiah does for a living"). Empty when the line has no first-person pronoun. (`npc` is
    kept for callers; the gloss no longer needs it.)
    """
    if not re.search(r"\b(i|i'm|i've|my|mine|me|myself)\b", line, re.IGNORECASE):
        return ""
    text = line
    for pattern, replace in _GLOSS_FIXED:
        text = re.sub(pattern, lambda m, r=replace: r(m, speaker), text, flags=re.IGNORECASE)

    def subject(match):
        before = text[: match.start()]
        if _CLAUSE_START.search(before):
            return f"{speaker}{match.group(1)}{third_person_verb(match.group(2))}"
        return f"{speaker}{match.group(1)}{match.group(2)}"

    text = re.sub(r"\bi(\s+)([\w']+)", subject, text, flags=re.IGNORECASE)
    text = re.sub(r"\bi\b", speaker, text, flags=re.IGNORECASE)
    return text[:1].upper() + text[1:]


# An NPC's own fact, written to it, in its own voice (the prompt, and its plain lines).
_YOU_AS_OBJECT = re.compile(r"\b(taught|told|gave|showed|sent|brought|chose) you\b", re.I)


def in_own_voice(fact: str) -> str:
    """An NPC's own fact written to it ("You keep the Lantern & Lane: you pour ...", "where
    your grandmother taught you") said by it ("I keep ...: I pour ...", "where my grandmother
    taught me")."""
    text = _YOU_AS_OBJECT.sub(r"\1 me", fact[:4000])
    text = re.sub(r"\byou are\b", "I am", text, flags=re.IGNORECASE)
    text = re.sub(r"\byou\b", "I", text, flags=re.IGNORECASE)
    text = re.sub(r"\byour\b", "my", text, flags=re.IGNORECASE)
    return re.sub(r"^(\W*)(i|my)\b", lambda m: m.group(1) + m.group(2).capitalize(), text)
