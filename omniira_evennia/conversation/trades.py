"""
Another's trade claimed as the NPC's own (issue #24, point 3): "I sell remedies and herbs." from
Lyra, the bard, asked "What do you sell?" (held-out seed 50423, busy), "I sell remedies and tend
anyone who falls ill." from Voss, the blacksmith (seed 38261). A small model takes what is in
front of it, and the people of the town are in front of it as knowledge.

A sentence claims a trade when its subject is "I" with a verb of work ("I sell", "I mend", "I'm
brewing") and what follows names things a fact about someone else holds and nothing of the
NPC's own (its role, personality, duty and the facts written to it as "you").

The other way round, a trade is given to the listener: "I might recommend your herb stall" from
Voss to Ulric, who keeps no stall; the herb stall is Wren's (held-out seed 40813). "your ..."
names things a fact about someone else holds and nothing the listener has said or is remembered
for.

Plain Python; every function reads at most the first MAX_CHARS of its text.
"""

from __future__ import annotations

import re

from omniira_evennia.conversation.words import capped, content_stems, sentence_list

ANOTHERS_TRADE = "claims_anothers_trade"  # the slip's name (guard.slips_of)
_WORK = (
    r"sell|make|mend|brew|bake|forge|tend|grow|keep|run|pour|cook|weave|craft|trade|deal|"
    r"heal|treat|shoe|fix|repair|stitch|sew|carve|fish|farm|"
    # "I charge two copper for willow-bark tea ..." from Lyra, the bard (held-out seed 44207).
    r"charge|offer"
)
_CLAIM = re.compile(
    rf"\bi(?:'m|\s+am)?\s+(?:also\s+|just\s+|mostly\s+|mainly\s+|only\s+)?(?:{_WORK})\w*\b"
    r"(?P<what>[^.!?;]*)",
    re.IGNORECASE,
)
# "your ..." ending in a place or line of work; "your stew" or "your fear" is the listener's.
_GIVEN = re.compile(
    r"\byour\s+(?P<what>(?:[a-z'-]+\s+){0,2}(?:stall|shop|forge|smithy|anvil|tavern|inn|"
    r"workshop|trade|craft|wares|business|customers|remedies|herbs|blades|tools)s?)\b",
    re.IGNORECASE,
)
# Words of what is made or sold that say nothing of whose trade it is.
_PLAIN = {"thing", "good", "fine", "best", "littl", "bit", "lot", "what", "anyon", "every"}


def claimed_trades(reply: str, own: str, others: list[str]) -> list[str]:
    """The sentences of `reply` in which the NPC claims as its own work what one of `others`
    (facts about other people) holds and `own` (all that is written of the NPC) does not."""
    return _holding_others(reply, _CLAIM, 6, content_stems(capped(own)), others)


def given_trades(reply: str, own: str, theirs: str, others: list[str]) -> list[str]:
    """The sentences of `reply` that give the listener, as "your ...", what one of `others`
    (facts about other people) holds and neither `own` (all that is written of the NPC) nor
    `theirs` (all the listener said or is remembered for) does."""
    known = content_stems(capped(own)) | content_stems(capped(theirs))
    return _holding_others(reply, _GIVEN, 3, known, others)


def _holding_others(reply: str, pattern, words: int, known: set, others: list[str]) -> list:
    """The sentences of `reply` where `pattern`'s "what" (its first `words` words) names
    something one of `others` holds, beyond what is `known` to be the NPC's or the listener's."""
    held = [content_stems(capped(text)) for text in others]
    found = []
    for sentence in sentence_list(capped(reply)):
        for match in pattern.finditer(sentence):
            what = " ".join(match.group("what").split()[:words])
            stems = content_stems(what) - known - _PLAIN
            if stems and any(stems & facts for facts in held):
                found.append(sentence)
                break
    return found
