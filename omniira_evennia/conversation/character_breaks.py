"""
Reply repair: what a model writes that is not the character speaking. A sentence in which it
talks like an assistant, a name prefix, stage directions, narration around the spoken words,
and the turn it goes on to invent for the other party are taken out (`strip_character_breaks`);
a reply that only describes the character is found (`is_narration`). Used on every voice
reply and on NPC-to-NPC talk (gossip).

Plain Python, no Django or Evennia.
"""

from __future__ import annotations

import re

from omniira_evennia.conversation.phrasing import sentences
from omniira_evennia.conversation.tags import clean_text
from omniira_evennia.conversation.words import SAID_VERBS, rx

# Sentences in which a small model drops the character and talks like an assistant.
_CHARACTER_BREAKS = re.compile(
    r"(as an ai\b|language model|i'?m (just )?an ai|i am (just )?an ai|"
    # "I am an assistant, not a religious expert." (held-out busy seed 44893, a second try)
    r"\bi'?m (just )?an? (\w+ )?assistant\b|\bi am (just )?an? (\w+ )?assistant\b|"
    r"i (cannot|can'?t|am unable to|'m unable to) (assist|help) with|"
    r"anything else i can (help|assist|do for you)|how (can|may) i (help|assist) you|"
    r"i'?m here to (help|assist)|i'?m sorry, but i (cannot|can'?t)|"
    r"(happy|glad) to (help|assist)|let me know (how|if) i can|"
    # A retry's reminder said back as the reply: "Ask about it." to news, "Sure, I'll ask about
    # it." to "Could I get a room?" (held-out seed 52391; reminders.asked_again).
    r"^\W*(?:(?:sure|yes|ok|okay|aye),?\s+)?(?:i'?ll\s+)?ask about it\W*$|"
    r"say what you think of it|in your own words|not a line of what you know)",
    re.IGNORECASE,
)

# An assistant's opener before the line it quotes: 'Certainly! "Yes, I remember your home
# town.' (held-out seed 91823, four replies in a row).
_QUOTING_OPENER = re.compile(
    r"^\s*(?:certainly|sure|of course|absolutely|here(?:'s| is) (?:my|the) (?:reply|answer))"
    r"\s*[!.,:]?\s*(?=[\"\u201c])",
    re.IGNORECASE,
)

# The player's question quoted back before the answer: 'You say to me: "Do you remember your
# home town?" I know nothing ...' (held-out seed 91823).
_QUOTED_BACK = re.compile(
    r"^\s*you(?:'re)? (?:say|said|ask|asked|asking)(?: (?:to )?me)?\s*[:,]?\s*"
    r"[\"\u201c][^\"\u201c\u201d]{1,400}[\"\u201d]\s*(?=\W*[A-Za-z])",
    re.IGNORECASE,
)

# The NPC's words wrapped in the game's echo of a player's say: 'You say, "Yes, I have a sister
# and a brother."' (held-out busy seed 66617: seven of Voss's replies to Quill in a row).
_SAID_AS_ECHO = re.compile(
    r"^\s*you (?:say|said|answer|answered|reply|replied|respond|responded)(?: to \w+)?\s*"
    r"(?:[:,]?\s*[\"\u201c]([^\"\u201c\u201d]{1,1000})[\"\u201d]?|:\s*([^\"\u201c\u201d]{1,1000}))"
    r"\s*$",
    re.IGNORECASE,
)

# Stage directions: "*wipes the bar*", "(laughs)".
_ACTION = re.compile(r"\*[^*\n]{1,160}\*|\((?:[^()\n]{1,80})\)")
# Words a spoken line almost always has and a narrated one does not.
_PERSONAL = re.compile(
    r"\b(i|i'm|i've|i'll|i'd|me|my|mine|myself|we|we're|us|our|you|you're|you've|you'll|you'd|"
    r"your|yours|yourself|love|aye|ah|oh|well|yes|no)\b",
    re.IGNORECASE,
)


def _narrated_sentence(sentence: str, name: str) -> bool:
    """ "Maren smiles, feeling grateful." : the character described, not speaking."""
    opener = rf"^\s*({re.escape(name)}\b|she\b|he\b|they\b)" if name else r"^\s*(she|he|they)\b"
    return bool(re.match(opener, sentence, re.IGNORECASE)) and not _PERSONAL.search(sentence)


def is_narration(text: str, name: str = "") -> bool:
    """True when a reply only describes the character instead of saying something."""
    said = sentences(text or "")
    return bool(said) and all(_narrated_sentence(s, name) for s in said)


_QUOTES = '"\u201c\u201d'
_RUN_ON = re.compile(r"(?<![@.])\b([A-Z][a-z]+)\.([a-z])(?=[a-z]{2,}\b)")


def _unquoted(text: str) -> str:
    """A reply wrapped in quotes without them, and a stray mark at either end gone; a quote
    inside keeps both marks ('I remember: you said: "Nothing frightens me like rats."' lost its
    last one: held-out seed 19447)."""
    marks = sum(text.count(q) for q in _QUOTES)
    if marks == 2 and text[:1] in _QUOTES and text[-1:] in _QUOTES:
        return text[1:-1].strip()
    if marks % 2:
        if text[:1] in _QUOTES:
            return text[1:].strip()
        if text[-1:] in _QUOTES:
            return text[:-1].strip()
    return text


def strip_character_breaks(text: str, name: str = "", speaker: str = "") -> tuple[str, bool]:
    """
    Remove sentences where the model talks like an assistant, a leading "Name:" or "You:"
    prefix, stage directions, narration around spoken words ("Maren smiles. Cider, love?" keeps
    the question; a reply that is only narration is left for the caller, see `is_narration`),
    and whatever the model goes on to write for the other party ('... Tobiah: I also make
    candles'). Returns (text, broke): `broke` is True if anything was removed.
    """
    broke = False
    stripped = re.sub(r"^\s*(you|me)\s*:\s*", "", text.strip(), flags=re.IGNORECASE)
    if _QUOTING_OPENER.match(stripped):
        stripped, broke = _QUOTING_OPENER.sub("", stripped, count=1), True
    if _QUOTED_BACK.match(stripped):
        stripped, broke = _QUOTED_BACK.sub("", stripped, count=1), True
    elif wrapped := _SAID_AS_ECHO.match(stripped):
        # 'You answer: "your donkey is named Jasper."' (held-out seed 83417, four in a row).
        inner = (wrapped.group(1) or wrapped.group(2)).strip()
        stripped, broke = inner[:1].upper() + inner[1:], True
    others = [re.escape(who) for who in (speaker, "You") if who]
    # '... Rosalie responds, "Garlic makes me break out ..."' (held-out seed 44207) as much as
    # "Tobiah: I also make candles".
    # Not their name said to them: 'You told me so yourself, Elowen: "..."' (our own plain
    # line, copied by the model: held-out seed 31079) is no turn of theirs.
    turn = rx(
        rf"(^|(?<!,)[\s\"\u201d.!?])({'|'.join(others)})\s*(:|says\b[^:]{{0,20}}:"
        rf"|{SAID_VERBS}\s*,?\s*[\"\u201c])"
    ).search(stripped[1:])
    if turn:
        stripped = stripped[: turn.start() + 1].strip()  # the rest is a turn it invented
    if name:
        # 'Maren smiles and says, "Cider or ale?"': keep only the spoken words.
        narrated = re.match(
            rf'^\s*{re.escape(name)}\b[^"\u201c]{{0,80}}?[,:]?\s*["\u201c](.+?)["\u201d]?\s*$',
            stripped,
            re.IGNORECASE | re.DOTALL,
        )
        if narrated:
            stripped = narrated.group(1)
        elif re.match(rf"^{re.escape(name)}\s*(says)?\s*:", stripped, re.IGNORECASE):
            stripped = stripped.split(":", 1)[1]
        # "I'm sorry, but as Wren, I don't know your cousin's name." (held-out seed 38917, twice
        # on a second try): an assistant's "as an AI" with its own name in it.
        as_itself = rx(rf"\bas {re.escape(name)},\s+(?=I\b)", re.IGNORECASE)
        if as_itself.search(stripped):
            stripped, broke = as_itself.sub("", stripped), True
    without_actions = _ACTION.sub(" ", stripped)
    if without_actions.strip():
        stripped = without_actions
    stripped = _unquoted(" ".join(stripped.split()).strip())
    # "You're right, Leander.rats can be a real threat." (held-out seed 19447): two sentences.
    stripped = _RUN_ON.sub(lambda m: f"{m.group(1)}. {m.group(2).upper()}", stripped)
    kept = []
    for sentence in sentences(stripped):
        if _CHARACTER_BREAKS.search(sentence):
            broke = True
            continue
        kept.append(sentence.strip())
    spoken = [s for s in kept if s and not _narrated_sentence(s, name)]
    if spoken and len(spoken) < len([s for s in kept if s]):
        kept = spoken  # narration around speech: keep the speech
    # Joining sentences must not rebuild a tag.
    return clean_text(" ".join(s for s in kept if s)), broke
