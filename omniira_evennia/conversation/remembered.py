"""
What an NPC says from what it remembers of the one it talks to (issue #24, point 3): the
memory said to them ("I remember: your brother is Aldric."), or their own words quoted ('You
told me so yourself, Xander: "I came here from Wyndale."'), and a reply of its model that
copied that frame said the same way.

Plain Python; every function reads at most the first MAX_CHARS of its text.
"""

from __future__ import annotations

import re

from omniira_evennia.conversation.repairs import named_as_you, to_the_listener
from omniira_evennia.conversation.words import ANIMALS, FIRST_PERSON, KIN_WORDS, MAX_CHARS
from omniira_evennia.memory.quoting import quoted_words

# The frame of their own words said back to them (remembered_line); the guard and the repeat
# check know it by this.
TOLD_ME_SO = "You told me so yourself"
ANIMAL_WORD = rf"\b(?:{ANIMALS})\b"  # "Zinnia has a raven; she is a clever bird."


def names_after_the_first(text: str) -> set[str]:
    """The capitalised words after the first, lowered: who a line calls by name."""
    return {w.lower() for w in re.findall(r"(?<=\W)[A-Z][a-z']+", text[:MAX_CHARS])}


_MINE = re.compile(r"\b(?:me|my|myself)\b", re.IGNORECASE)
_YOURS = {"me": "you", "my": "your", "myself": "yourself"}


# Their words as they said them, but not to whom: 'You told me so yourself, Quentin: "Lyra, I
# always carry a book of old sea charts."' said by Lyra (held-out seed 69127).
# After a greeting, their "my" too: '"Good evening, Wren, my most precious possession is ..."'
# (held-out seed 73811).
_UNADDRESSED = re.compile(
    r"^\W*(?:(?:good (?:morning|evening|day)|hello|hi|hey|well|listen),?\s+)?[A-Z][a-z]+,\s+"
    r"(?=i\b|i'm\b|i've\b|i'd\b)"
    r"|^\W*(?:good (?:morning|evening|day)|hello|hi|hey),?\s+[A-Z][a-z]+,\s+(?=my\b)",
    re.IGNORECASE,
)


# The model copying remembered_line's frame, with a note in it rather than their words:
# 'You told me so yourself, Yara: "Yara has a little ferret named Quince."' (held-out replays).
# 'Gwendolyn told me so, you: "Nothing frightens me like heights."' (held-out busy seed 44893),
# its name turned to "You" on the way.
_FRAME = re.compile(
    rf'^\W*(?:{TOLD_ME_SO}|(?:you|[A-Z][a-z]+) told me so),\s*(\w+)\s*:\s*"?(.+?)"?\s*$',
    re.I | re.S,
)


def frame_said_plainly(reply: str, speaker: str) -> str:
    """A reply in remembered_line's frame said as remembered_line says that memory."""
    found = _FRAME.match(reply[:MAX_CHARS])
    if not found or found.group(1).lower() not in (speaker.lower(), "you"):
        return reply
    return remembered_line(found.group(2), speaker)


def remembered_line(answer: str, speaker: str) -> str:
    """The NPC's plain answer from what it remembers (`answer_from`), for a question about the
    speaker's own life its model could only give back: "I remember: your brother is Aldric."
    (the speaker named at the start of a memory becomes "you"); their own words are quoted."""
    text = answer[:MAX_CHARS].strip()
    if speaker:
        # A memory kept in their words ('Xander said: "I fear spiders."', memory/write.py).
        text = quoted_words(text, speaker) or text
    text = _UNADDRESSED.sub("", text).rstrip('.!"') + "."
    text = text[:1].upper() + text[1:]
    named = bool(speaker) and bool(re.match(rf"\W*{re.escape(speaker)}\b", text, re.IGNORECASE))
    if FIRST_PERSON.search(text) and not named:  # their own words
        return f'{TOLD_ME_SO}, {speaker or "friend"}: "{text}"'
    if named:
        # Half theirs: "Prudence has a donkey; she follows me everywhere." (held-out seed
        # 28751): their "me" and "my" are "you" and "your" too.
        text = _MINE.sub(lambda m: _YOURS[m.group(0).lower()], text)
    if speaker:
        # "Zinnia's brother is Aldric" -> "your brother is Aldric", "Niall came here from
        # Tarnow" -> "you came here from Tarnow" (held-out seed 84211).
        of_them = re.search(rf"\b{re.escape(speaker)}\b", text, re.IGNORECASE)
        text = named_as_you(to_the_listener(text, speaker, of_them=True), speaker)
        if of_them:
            # The note's "their" after their name is theirs too: "Eggs makes Finnegan break out
            # in a rash, so keep it off their plate." (held-out seed 97301) -> "your plate".
            text = re.sub(r"\btheir\b", "your", text)
            if not names_after_the_first(text) - {speaker.lower()} and not re.search(
                ANIMAL_WORD, text, re.I
            ):
                # With nobody else named, "she" is them: "...; she is a scribe." (held-out busy
                # seed 18443) -> "you are a scribe".
                text = re.sub(r"\b(?:she|he) is\b", "you are", text)
                # "it is all they have left of home" (held-out busy seed 18443)
                text = re.sub(r"\ball they (have|had)\b", r"all you \1", text)
                text = re.sub(r"\b(?:she|he) has\b", "you have", text)
                # "... before she's old." (held-out seed 46271) -> "before you're old"
                text = re.sub(r"\b(?:she|he)'s\b", "you're", text)
                # "a portrait of her wife" is theirs (busy seed 52967)
                text = re.sub(rf"\b(?:her|his) (?=(?:{KIN_WORDS})\b)", "your ", text)
                # "...; they would run into a burning house for it." (busy seed 52967)
                text = re.sub(r"\bthey (would|will|could|never|always)\b", r"you \1", text)
                # "... so she keeps it off your plate." (held-out seed 73811)
                text = re.sub(r"\b(?:she|he) ([a-z]{3,}?)s\b", r"you \1", text)
        text = re.sub(r"^(\W*)You(r?)\b", r"\1you\2", text)
    return f"I remember: {text}"


# A question that asks for a name: "Who is my grandmother?", "What is my cat called?"
_ASKS_A_NAME = re.compile(r"\bwho (?:is|was|are|were)\b|\bcalled\b|\bnamed?\b|\bname\b", re.I)
_NOT_A_NAME = set("I I'm A An The He She It They We You Her His Their Our My Your".split())


def name_left_out(reply: str, answer: str, line: str, speaker: str) -> bool:
    """Asked for a name, with a memory (`answer`) that holds one, the reply does not say it:
    "Yes, Emrys, I remember your grandmother." (held-out seed 29881), "Grandma, your
    grandmother. You said she went east ..." (33457) with her name Cordelia remembered."""
    if not _ASKS_A_NAME.search(line[:MAX_CHARS]):
        return False
    skip = {w.lower() for w in re.findall(r"[A-Za-z]+", f"{line[:MAX_CHARS]} {speaker}")}
    names = {
        w.removesuffix("'s")
        for w in re.findall(r"\b[A-Z][a-z']{2,}", answer[:MAX_CHARS])
        if w.removesuffix("'s") not in _NOT_A_NAME
    }
    names = {n for n in names if n.lower() not in skip}
    said = reply[:MAX_CHARS].lower()
    return bool(names) and not any(re.search(rf"\b{n.lower()}\b", said) for n in names)
