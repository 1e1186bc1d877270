"""
The one text policy: every text the contrib stores or shows passes `police` first.

Memories, beliefs, diary entries, opinions, concerns, plans, knowledge, the NPC's spoken lines
and a player's lines all take the same steps, in this order, each linear in its input:

1. cap: the raw text is cut to a few times its kind's limit before anything reads it, so no
   later step ever runs on more than a bounded input (a 256 KiB reply costs what 4 KB does);
2. control characters and bidi overrides removed (`safety.strip_controls`);
3. tag syntax defanged (`vocabulary.defang_tags`): replies and player lines have had their tags
   read and removed by `conversation.tags` already; whatever text arrives by another path can
   still never be read as a tag once kept;
4. Evennia markup neutralised (links and MXP always, colour codes as LLM_MARKUP says);
5. personal data redacted (not for a builder's own words: `redact=False`), counted in the
   health counter `pii_redacted`;
6. whitespace collapsed and the text cut to its kind's limit (a spoken line at its last whole
   sentence that fits).

Flagging instruction-like text, capping importance and auditing are the write path's
(`memory/write.py`), which calls this for every row it writes.

Plain Python (no Django, Evennia or Twisted): turn replies are policed in the worker thread,
so nothing heavy runs on the reactor.
"""

from __future__ import annotations

import re

from omniira_evennia.memory.safety import neutralize_markup, redact_pii, strip_controls
from omniira_evennia.runtime import health
from omniira_evennia.vocabulary import defang_tags

# The longest text of each kind that is kept (the columns' lengths, or the prompt's budget).
LIMITS = {
    "memory": 500,
    "belief": 500,
    "opinion": 500,
    "concern": 200,
    "plan": 500,
    "plan_field": 100,
    "diary": 600,
    "knowledge": 500,
    "line": 800,  # an NPC's spoken line (said in the room, kept, and carried into prompts)
    "player_line": 1000,  # a player's line (MAX_MESSAGE_CHARS replaces it when set)
    "excerpt": 500,
}
# How much raw text is read before the steps above, as a multiple of the limit: enough that
# markup, tags and placeholders never cut words off a text that fits.
RAW_FACTOR = 4

_SENTENCE_END = re.compile(r"[.!?…](?=\s|$)")


def limit_of(kind: str, limit: int | None = None) -> int:
    return limit if limit is not None else LIMITS[kind]


def cut_at_sentence(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, at its last whole sentence if one ends in the second half."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    ends = [m.end() for m in _SENTENCE_END.finditer(head)]
    if ends and ends[-1] >= limit // 2:
        return head[: ends[-1]]
    return head.rstrip() + "…" if limit > 1 else head


def police(
    text, kind: str, *, redact: bool = True, markup: str = "strip", limit: int | None = None
) -> str:
    """
    `text` made fit to store and show as a `kind` (a key of LIMITS): capped, controls removed,
    tags stripped, markup neutralised (`markup`: "strip" or "colour"), personal data redacted
    unless `redact` is False, whitespace collapsed, cut to the kind's limit.
    """
    if text is None:
        return ""
    cap = limit_of(kind, limit)
    text = str(text)[: cap * RAW_FACTOR]
    text = strip_controls(text)
    text = defang_tags(text)
    text = neutralize_markup(text, markup)
    if redact:
        text, redacted = redact_pii(text)
        if redacted:
            health.incr("pii_redacted", redacted)
    text = " ".join(text.split())
    if kind == "line":
        return cut_at_sentence(text, cap)
    return text[:cap]
