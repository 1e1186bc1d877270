"""
What an NPC says when no reply of its model can stand (issue #24, point 3): the reply that said
again what it said before, without its repeated sentences (`without_repeats`); an assistant's
refusal cut to nothing (`nothing_left`); else its last line (`last_line`): its wares when asked
of them, its own work or life when asked of that, its plain line to what was told, or that it is
unsure. Every line here is built from the NPC's own facts or the player's own words, so nothing
said in it can be invented.

Plain Python: no database, no Evennia.
"""

from __future__ import annotations

import re

from omniira_evennia.conversation import plain_lines, repeats
from omniira_evennia.conversation.prompts import PromptContext
from omniira_evennia.conversation.wares import wares_line
from omniira_evennia.knowledge.facts import written_to_it
from omniira_evennia.runtime import health


def earlier_replies(ctx: PromptContext) -> list[str]:
    return [t.text for t in ctx.history if t.role == "assistant"]


def without_repeats(text: str, ctx: PromptContext, topic: str | None, answer: str | None) -> str:
    """A reply that says again what the NPC said before in this conversation (repeats.py):
    its repeated sentences go; if nothing of its own is left, the NPC's plain line."""
    earlier = earlier_replies(ctx)
    again = repeats.repeats_earlier(text, earlier)
    if again is None:
        return text
    health.incr("repeated_replies_replaced")
    kept = repeats.without_repeated(text, earlier)
    if kept != text.strip() and len(re.findall(r"[a-z']+", kept.lower())) >= 4:
        return kept
    # "Ah, I'll keep that in mind, Piers." again, to "What do you charge, Voss?" (held-out seed
    # 52391): its wares, not "I couldn't rightly say".
    return last_line(ctx, topic, answer)


def nothing_left(ctx: PromptContext) -> str:
    """What the NPC says when all its model gave was an assistant's refusal, cut ("I'm sorry,
    but as a traveler bard, I can't assist with that." to "One day I want to buy back my
    family's farm": held-out seed 62903, busy): its plain line, never the fallback emote."""
    health.incr("voice_slips_answered_plainly")
    return last_line(ctx, None, None)


def last_line(ctx: PromptContext, topic: str | None, answer: str | None) -> str:
    """What the NPC says when no reply of its model can stand: asked of its wares, them (held-
    out seed 83417: "I couldn't rightly say." to "What do you charge?"); else its plain line
    (plain_lines.plain_line: told something, that it heard it), else that it is unsure."""
    if wares := wares_line(ctx):
        return wares
    if work := own_work_line(ctx) or plain_lines.own_life_line(ctx.message, own_facts(ctx)):
        return work
    said = earlier_replies(ctx)
    plain = plain_lines.plain_line(ctx.message, ctx.speaker_name, topic, answer, said)
    return plain or plain_lines.unsure_line(ctx.message, ctx.speaker_name, said)


# "What do you do here?" answered "Hard to say, Merrick. I'd have to think on it." when no reply
# of Wren's could stand (held-out seed 71993): what it does is what it knows best.
_ASKS_OWN_WORK = re.compile(
    r"\bwhat (?:do|did) you (?:do|sell)\b|\byour (?:work|trade|job|craft|living)\b",
    re.IGNORECASE,
)


def own_facts(ctx: PromptContext) -> list[str]:
    """The NPC's own facts, written to it ("You keep the Lantern & Lane ..."): those in front of
    it first (best first), then the rest of its own life (`ctx.own_life`)."""
    shown = [k.text for k in ctx.knowledge if k.category == "people" and written_to_it(k.text)]
    return list(dict.fromkeys(shown + list(ctx.own_life)))


def own_work_line(ctx: PromptContext) -> str:
    """Asked what it does, the NPC's own fact of its work said in the first person ("You keep
    the Lantern & Lane: you pour ..." -> "I keep the Lantern & Lane: I pour ..."), else its
    role; "" when not asked."""
    if not _ASKS_OWN_WORK.search(ctx.message[:1000]):
        return ""
    # Its work, not how long it has kept it: the first own fact that says what it does.
    own = [f for f in own_facts(ctx) if not re.search(r"\b(?:years?|ago|kin|favourite)\b", f)]
    if own:
        return plain_lines.in_own_voice(own[0])
    role = ctx.identity.role
    return f"I'm the {role} here, {ctx.speaker_name}." if role else ""
