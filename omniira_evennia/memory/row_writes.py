"""Text kept through the policy: said lines, player lines, concerns, opinions, plans, diaries."""

from __future__ import annotations

from omniira_evennia.conf import get_settings
from omniira_evennia.memory import notes_store, store
from omniira_evennia.memory.lateness import late_write
from omniira_evennia.memory.policy import police
from omniira_evennia.memory.safety import detect_manipulation


def policed(text, kind: str, redact: bool = True) -> str:
    """`text` through the one text policy (memory/policy.police) as a `kind`, with the
    builder's markup mode; a builder's own words (`redact=False`) keep their personal data."""
    return police(text, kind, redact=redact, markup=get_settings().LLM_MARKUP)


def said_text(text: str) -> str:
    """
    An LLM-written line that is said in a room and kept as a conversation turn, through the
    same policy as everything else stored (`police(..., "line")`): capped, controls removed,
    markup neutralised, personal data redacted, cut at a sentence.
    """
    return policed(text, "line")


def manipulation_labels(raw, cleaned: str) -> list[str]:
    """Instruction-like text in what was written or in what is kept of it (markup can hide
    words from one and tag syntax is gone from the other)."""
    raw = str(raw or "")[: len(cleaned) * 4 + 200]
    return sorted(set(detect_manipulation(raw)) | set(detect_manipulation(cleaned)))


def write_concern(npc, topic: str, intensity, source, game_day: int, suspect=False):
    """
    Something on the NPC's mind, through the same policy as a memory: redact, flag (suspect
    concerns are kept for builders and never shown to the model), cut, audit, and keep at most
    CONCERNS_PER_NPC per NPC (the oldest go). A concern someone raised in talk (a player, or
    another NPC in NPC talk, which is built from players' claims) is private to conversations
    with them, decided here once: whether its source is logged in later changes nothing.
    Returns the row (None: a late result for an erased player, dropped).
    """
    if late_write((source,), str(topic)):
        return None
    raw, topic = topic, policed(topic, "concern")
    labels = manipulation_labels(raw, topic)
    private = source is not None and getattr(source, "id", None) != npc.id
    concern = notes_store.add_concern(
        npc,
        topic,
        intensity,
        source=source,
        suspect=bool(suspect or labels),
        game_day=game_day,
        private=private,
    )
    if concern.suspect:
        store.audit(
            "concern",
            labels or ["written during a flagged turn"],
            npc=npc,
            speaker=source,
            excerpt=concern.topic,
        )
    notes_store.cap_concerns(npc, get_settings().CONCERNS_PER_NPC)
    return concern


def write_opinion(npc, target, text: str):
    """The NPC's opinion of `target`, through the text policy. None: a late result, dropped."""
    if late_write((target,), str(text)):
        return None
    text = policed(text, "opinion")
    return notes_store.set_opinion(npc, target, text) if text else None


def write_plan(npc, speaker, tag, game_day: int, suspect=False):
    """
    A promise the NPC made to `speaker` (a COMMITMENT tag), through the text policy. It is
    recorded as made to the speaker whose turn it came from (`origin`), whatever the tag names:
    "to_kind" "player" means that speaker; "npc" names an NPC to go with, and only one of our
    NPCs is ever taken for it (life.service), never another player. Returns the Plan, or None
    (a late result for an erased player).
    """
    fields = {name: policed(getattr(tag, name), "plan_field") for name in ("to", "target", "by")}
    fields["summary"] = policed(tag.summary, "plan") or "a promise"
    if late_write((speaker,), f"{fields['summary']}. {fields['to']}. {fields['target']}"):
        return None
    labels = manipulation_labels(tag.summary, fields["summary"])
    return notes_store.add_plan(
        npc,
        tag.model_copy(update=fields),
        to_obj=speaker if tag.to_kind == "player" else None,
        game_day=game_day,
        origin=speaker,
        suspect=bool(suspect or labels),
    )


def write_diary(npc, game_day: int, text: str, **fields):
    """
    The NPC's diary entry for `game_day`, through the text policy (None: nothing left). A late
    one loses its sentences naming an erased player when saved (lateness.drop_late_rollover_rows).
    """
    text = policed(text, "diary")
    return notes_store.set_diary(npc, game_day, text, **fields) if text else None


def player_line(text: str, limit: int) -> str:
    """A player's line as it is kept and sent on (`police(..., "player_line")`): capped to
    `limit` (MAX_MESSAGE_CHARS), controls removed, markup neutralised, personal data redacted.
    Its tags have been taken out by `conversation.tags.clean_text` before this."""
    return police(text, "player_line", limit=limit, markup="strip")
