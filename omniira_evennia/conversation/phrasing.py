"""
The shared text library of the conversation and of those who write with its prompts (gossip,
the diary, reflection, the review): stored text quoted as data, a line's sentences, a verb
after a name ("I mend" -> "Tobiah mends"), who "I" is in a player's line (`gloss`), and an
NPC's own fact said by it (`in_own_voice`).

Plain Python, no Django or Evennia.
"""

from __future__ import annotations

import re

from omniira_evennia.conversation.words import rx


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
        text = rx(pattern, re.IGNORECASE).sub(lambda m, r=replace: r(m, speaker), text)

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


_FIRST_PERSON_FORMS = {
    "is": "am",
    "has": "have",
    "does": "do",
    "doesn't": "don't",
    "isn't": "am not",
}
_NOT_A_VERB_IN_S = frozenset("was always perhaps sometimes yes as this thus less".split())
# A second verb of the same subject: "Voss teaches apprentices and carries iron."
_AND_VERB = re.compile(
    r"\band\s+((?:keep|run|sell|pour|work|live|play|sing|make|mend|tend|brew|serve|stay|sleep|"
    r"know|think|love|like|hope|want|need|help|cook|rent|sweep|shoe|forge|teach|carr|wash|fix|"
    r"go|do)(?:s|es|ies))\b",
    re.IGNORECASE,
)


def first_person_verb(word: str) -> str:
    """'mends' -> 'mend' with "I" ('Voss mends tools' -> 'I mend tools'); 'is' -> 'am'."""
    lower = word.lower()
    if lower in _FIRST_PERSON_FORMS:
        return _FIRST_PERSON_FORMS[lower]
    if lower in _NOT_A_VERB_IN_S or not lower.isalpha() or not lower.endswith("s"):
        return word  # was, can, will, never ...
    if lower.endswith("ies") and len(lower) > 4:
        return word[:-3] + "y"
    if lower.endswith(("ches", "shes", "xes", "zes", "sses", "oes")):
        return word[:-2]
    return word[:-1]


# An adverb between a subject and its verb ("Voss never goes", "she always wants").
ADVERB = r"(?:(?:never|always|often|also|still|usually|only|just)\s+)?"
_OTHER_PERSON = re.compile(r"\b(?:he|she|him|his|her|hers|himself|herself)\b", re.IGNORECASE)


def own_name_as_i(reply: str, npc: str, speaker: str = "") -> str:
    """`reply` with the NPC's own name, as the subject of a sentence or a clause after a comma,
    said as "I": "At my forge, Voss makes blades." from Voss (held-out seed 58447; asked again,
    he said "Now there's a question, Urien. I'm not sure.") -> "At my forge, I make blades."
    A sentence that goes on with "he", "his" or "her" stays as it is (whose would they be?),
    and so does all of it when the speaker has the NPC's name."""
    if not npc or npc.lower() == (speaker or "").lower():
        return reply
    pattern = re.compile(
        rf"(^|[.!?]\s+|,\s+){re.escape(npc)}\s+({ADVERB})([a-z']+)\b", re.IGNORECASE
    )

    def as_i(match: re.Match) -> str:
        rest = reply[match.end() : match.end() + 300]
        if _OTHER_PERSON.search(re.split(r"[.!?]", rest, maxsplit=1)[0]):
            return match.group(0)
        adverb, verb = match.group(2), match.group(3)
        return f"{match.group(1)}I {adverb}{first_person_verb(verb)}\0"

    said = pattern.sub(as_i, reply[:4000])
    # The same subject's next verb, in the sentence just turned ("\0" marks where it was).
    parts = said.split("\0")
    for i in range(1, len(parts)):
        end = re.search(r"[.!?]", parts[i])
        cut = end.start() if end else len(parts[i])
        head = _AND_VERB.sub(lambda m: "and " + first_person_verb(m.group(1)), parts[i][:cut])
        parts[i] = head + parts[i][cut:]
    return "".join(parts)
