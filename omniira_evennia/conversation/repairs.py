"""
What a reply that slipped becomes (turn._repaired): a question about the NPC answered as the
player's said as its own (`turned_round`), its own doubt said as its own (`own_doubt_turned`),
or the reply without its sentences that slip (`without_slips`). The slips are voice.py's.

Plain Python; reads at most voice.MAX_CHARS of a reply.
"""

from __future__ import annotations

import re

from omniira_evennia.conversation.voice import (
    DOUBT_LEAD,
    DOUBTING,
    answered_as_player,
    capped,
    sentence_list,
    slips,
)

_YOU_SUBJECT = re.compile(
    r"^(?P<lead>\W*(?:(?:yes|no|oh|well|ah|aye|hm+)[,!.]?\s+)?)(?P<you>you(?:'re|'ve|'ll|'d)?)"
    r"(?P<verb>\s+(?:are|were)\b)?",
    re.IGNORECASE,
)
_AS_MINE = {"you": "I", "you're": "I'm", "you've": "I've", "you'll": "I'll", "you'd": "I'd"}


def turned_round(reply: str, line: str) -> str:
    """
    A question about the NPC answered as the player's ("What do you charge?" -> "You charge two
    copper for a cider."): each such sentence said as the NPC's own ("I charge two copper for a
    cider."). Only the subject that opens the sentence turns round; the rest stays.
    """
    out = []
    for sentence in sentence_list(capped(reply)):
        match = _YOU_SUBJECT.match(sentence)
        if match and answered_as_player(sentence, line):
            verb = (match.group("verb") or "").strip().lower()
            mine = _AS_MINE[match.group("you").lower()]
            verb = {"are": " am", "were": " was"}.get(verb, "")
            sentence = match.group("lead") + mine + verb + sentence[match.end() :]
        out.append(sentence)
    return " ".join(out)


_DOUBT_AS_YOURS_TURN = re.compile(
    rf"(?P<lead>{DOUBT_LEAD})(?P<you>you(?:'re| are)?)(?=\s+{DOUBTING})", re.IGNORECASE
)
_DOUBT_AS_MINE = {"you": "I", "you're": "I'm", "you are": "I am"}


def own_doubt_turned(reply: str) -> str:
    """The NPC's own not knowing said back as its own ("You do not know." -> "I do not know.",
    "You're not sure where the shrine is." -> "I'm not sure where the shrine is.")."""
    return _DOUBT_AS_YOURS_TURN.sub(
        lambda m: m.group("lead") + _DOUBT_AS_MINE[" ".join(m.group("you").lower().split())],
        capped(reply),
    )


# A spoken line is weighed a sentence at a time, at most this many (each costs a few patterns).
MAX_SENTENCES = 6


def without_slips(reply: str, line: str, npc: str, speaker: str) -> str:
    """`reply` without its sentences that slip (the rest stays); "" if nothing is left."""
    pieces = sentence_list(capped(reply))
    if len(pieces) > MAX_SENTENCES:  # "a.a.a..." is 400 sentences: the rest is read as one
        pieces = pieces[: MAX_SENTENCES - 1] + [" ".join(pieces[MAX_SENTENCES - 1 :])]
    kept = [s for s in pieces if not slips(s, line, npc, speaker)]
    return " ".join(kept)
