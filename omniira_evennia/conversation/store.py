"""
A conversation's own rows: the conversations (their lines' times, their end, the review's
state and retries) and their lines, and the context a turn shows that stays the same from one
line of a conversation to the next (cached here until something it shows is written).

Every function touches the database and so, inside a running server, runs on the reactor
thread. Other capabilities reach these through `conversation.service`.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from datetime import timedelta

from django.db.models.signals import post_delete, post_save
from django.utils import timezone

from omniira_evennia.conf import get_settings
from omniira_evennia.conversation.prompts import Turn
from omniira_evennia.memory import service as memories
from omniira_evennia.memory.embeddings import from_blob, to_blob
from omniira_evennia.memory.service import (
    current_concerns,
    opinion_of,
    recent_diary,
    reflection_records,
    reputation_of,
    reputation_updated,
)
from omniira_evennia.memory.verbatim import SaidLine
from omniira_evennia.models import (
    Concern,
    Conversation,
    ConversationTurn,
    DiaryEntry,
    Opinion,
    Reflection,
    Relationship,
)
from omniira_evennia.runtime.backoff import retry_delay
from omniira_evennia.runtime.claims import claim_once

# ---------------------------------------------------------------- a conversation's context

# What a turn's prompt shows that does not change from one line of a conversation to the next
# unless something is written (issue #27, point 5: a turn read it all again on the reactor,
# eight queries a line): read on a conversation's first line, kept until any write to those
# tables (`_forget_context_on`, `update_relationship`). In process only, least recently used
# conversations dropped past CONTEXT_CONVERSATIONS.
CONTEXT_CONVERSATIONS = 256
_context: OrderedDict[tuple, dict] = OrderedDict()


def conversation_context(npc, speaker, conversation_id: str | None, conf) -> dict:
    """
    The stable parts of a turn's context for this conversation: opinion, reputation,
    concerns, diary, beliefs (records) and the speaker's lines from earlier conversations.
    Callers must not change what they are given.
    """
    key = (npc.id, speaker.id, conversation_id or "")
    found = _context.get(key)
    if found is not None:
        _context.move_to_end(key)
        return found
    found = {
        "opinion": opinion_of(npc, speaker),
        "reputation": reputation_of(npc, speaker),
        "concerns": current_concerns(npc, speaker),
        "diary": recent_diary(npc, conf.DIARY_SLOTS),
        "reflections": reflection_records(npc, speaker),
        "said_lines": (
            said_lines(npc, speaker, exclude_conversation=conversation_id)
            if conf.VERBATIM_SLOTS
            else []
        ),
    }
    _context[key] = found
    while len(_context) > CONTEXT_CONVERSATIONS:
        _context.popitem(last=False)
    return found


def forget_context(*args, **kwargs) -> None:
    """Drop every conversation's cached context (something it shows was written)."""
    _context.clear()


def _forget_context_on_change(sender, instance, created=False, **kwargs):
    # A new line of a conversation is not in its context (the history is read each turn);
    # an earlier line changed or deleted (erasure, retention) may be.
    if sender is ConversationTurn and created:
        return
    forget_context()


def _forget_context_on():
    for model in (Opinion, Concern, Reflection, DiaryEntry, Relationship, ConversationTurn):
        uid = f"omniira_context_{model.__name__}"
        post_save.connect(_forget_context_on_change, sender=model, dispatch_uid=uid + "_save")
        post_delete.connect(_forget_context_on_change, sender=model, dispatch_uid=uid + "_del")


def connect_signals() -> None:
    """Forget the cached contexts whenever something they show is written."""
    _forget_context_on()
    reputation_updated.connect(forget_context, dispatch_uid="omniira_context_reputation")


# ---------------------------------------------------------------- conversations


def conversation_id_for(npc, speaker, idle_seconds: float) -> str:
    """The open conversation between these two, or a new id if it ended or went quiet."""
    since = timezone.now() - timedelta(seconds=idle_seconds)
    open_id = (
        Conversation.objects.filter(
            npc=npc, speaker=speaker, ended_at__isnull=True, last_turn_at__gte=since
        )
        .order_by("-last_turn_at")
        .values_list("conversation_id", flat=True)
        .first()
    )
    return open_id or uuid.uuid4().hex


def has_open_conversation(npc, speaker, idle_seconds: float) -> bool:
    """An open conversation between these two, with a line within `idle_seconds`."""
    since = timezone.now() - timedelta(seconds=idle_seconds)
    return Conversation.objects.filter(
        npc=npc, speaker=speaker, ended_at__isnull=True, last_turn_at__gte=since
    ).exists()


def add_turn(npc, speaker, conversation_id: str, role: str, text: str, game_day: int = 0):
    if role == ConversationTurn.Role.NPC or getattr(speaker, "is_omniira_npc", False):
        # An NPC's line from work that began before a player's erasure loses the sentences
        # naming them (memories.scrub_late); a player's own line is new by definition.
        text = memories.scrub_late(text) or "..."
    return ConversationTurn.objects.create(
        npc=npc,
        speaker=speaker,
        conversation_id=conversation_id,
        role=role,
        text=text,
        game_day=game_day,
    )


def turn_started(conversation_id: str):
    """When the conversation's latest turn began (its speaker's line was taken), or None."""
    return (
        Conversation.objects.filter(conversation_id=conversation_id)
        .values_list("last_turn_at", flat=True)
        .first()
    )


SAID_LINES_READ = 400  # the newest lines of one speaker to one NPC the verbatim lane ranks


def said_lines(npc, speaker, exclude_conversation: str | None = None) -> list[SaidLine]:
    """What `speaker` said to `npc` in earlier conversations (newest SAID_LINES_READ), with
    the vectors their turns computed: the verbatim lane's candidates (one indexed query)."""
    rows = (
        ConversationTurn.objects.filter(
            npc=npc, speaker=speaker, role=ConversationTurn.Role.SPEAKER
        )
        .exclude(conversation_id=exclude_conversation or "")
        .order_by("-created_at", "-id")
        .values_list("id", "text", "created_at", "game_day", "embedding", "suspect")[
            :SAID_LINES_READ
        ]
    )
    return [
        SaidLine(
            id=row_id,
            text=text,
            created_at=created.timestamp(),
            game_day=game_day,
            vector=from_blob(blob) if blob is not None else None,
            suspect=suspect,
        )
        for row_id, text, created, game_day, blob, suspect in rows
    ]


def keep_line_vector(turn_id: int, vector, embedder_name: str) -> None:
    """Store the vector a turn computed for the speaker's line (the verbatim lane)."""
    if vector is not None:
        ConversationTurn.objects.filter(id=turn_id).update(
            embedding=to_blob(vector), embedder=embedder_name
        )


EARLIER_LINES = 12  # the speaker's lines of this conversation before the history, kept in view


def history_and_earlier(npc, speaker, conversation_id: str | None, window: int):
    """This conversation's last `window` turns as a prompt's history, and the speaker's own lines
    before them (at most EARLIER_LINES): what they told ten lines ago is still told to the NPC
    (telnet trial, 2026-12-07: "You never told me what frightens you, Corwen." three lines after
    "I'm terribly afraid of deep water.", past the history's eight turns)."""
    if not conversation_id:
        return [], []
    turns = recent_turns(npc, conversation_id, window + 2 * EARLIER_LINES)
    cut = max(len(turns) - window, 0)
    history = [
        (
            Turn("assistant", t.text)
            if t.role == ConversationTurn.Role.NPC
            # A player's words as they are (prompts.render_line): small models echo a frame.
            else Turn("user", t.text if speaker.has_account else f"{speaker.key} says: {t.text}")
        )
        for t in turns[cut:]
    ]
    earlier = [t.text for t in turns[:cut] if t.role != ConversationTurn.Role.NPC]
    return history, earlier[-EARLIER_LINES:]


def recent_turns(npc, conversation_id: str, limit: int) -> list[ConversationTurn]:
    if limit <= 0:
        return []
    rows = ConversationTurn.objects.filter(npc=npc, conversation_id=conversation_id).order_by(
        "-created_at", "-id"
    )[:limit]
    return list(reversed(list(rows)))


# ---------------------------------------------------------------- conversation lifecycle


def touch_conversation(
    npc, speaker, conversation_id: str, extraction: str = "pending", at=None
) -> None:
    """A line of the conversation `at` (now): its last_turn_at moves, or its row is made. One
    UPDATE a line (this runs on the reactor every turn); the row is read only for a new one."""
    at = at or timezone.now()
    if Conversation.objects.filter(conversation_id=conversation_id).update(last_turn_at=at):
        return
    Conversation.objects.get_or_create(
        conversation_id=conversation_id,
        defaults={"npc": npc, "speaker": speaker, "extraction": extraction, "last_turn_at": at},
    )


def mark_conversation_ended(conversation_id: str, reason: str) -> bool:
    """Mark a conversation ended. True only for the call that actually ended it."""
    return bool(
        Conversation.objects.filter(conversation_id=conversation_id, ended_at__isnull=True).update(
            ended_at=timezone.now(), end_reason=reason
        )
    )


def claim_extraction(conversation_id: str) -> bool:
    """Move an ended conversation from pending to running; True for the one caller that did."""
    ended = Conversation.objects.filter(conversation_id=conversation_id, ended_at__isnull=False)
    return claim_once(
        ended, "extraction", [Conversation.Extraction.PENDING], Conversation.Extraction.RUNNING
    )


def extraction_failed(conversation_id: str, error: str) -> str:
    """
    A review that failed is queued again (pending, after `retry_delay`) until it has been
    tried RETRY_ATTEMPTS times, then left failed (`requeue_reviews` runs it again). Returns
    the state it is left in.
    """
    conf = get_settings()
    attempts = (
        Conversation.objects.filter(conversation_id=conversation_id)
        .values_list("attempts", flat=True)
        .first()
    )
    tried = (attempts or 0) + 1
    again = tried < conf.RETRY_ATTEMPTS
    state = Conversation.Extraction.PENDING if again else Conversation.Extraction.FAILED
    retry_at = timezone.now() + timedelta(seconds=retry_delay(tried, conf)) if again else None
    Conversation.objects.filter(conversation_id=conversation_id).update(
        extraction=state, attempts=tried, retry_at=retry_at, last_error=str(error)[:200]
    )
    return state


def review_waiting(npc, speaker) -> bool:
    """A conversation of these two has ended and its review has not yet run (or is running,
    or waits to be tried again): what was said may not be remembered yet."""
    return Conversation.objects.filter(
        npc=npc,
        speaker=speaker,
        ended_at__isnull=False,
        extraction__in=[Conversation.Extraction.PENDING, Conversation.Extraction.RUNNING],
    ).exists()


def requeue_reviews(npc) -> int:
    """Queue `npc`'s failed reviews (and those waiting to be retried) to run now, afresh."""
    return Conversation.objects.filter(
        npc=npc,
        extraction__in=[Conversation.Extraction.FAILED, Conversation.Extraction.PENDING],
        ended_at__isnull=False,
    ).update(extraction=Conversation.Extraction.PENDING, attempts=0, retry_at=None)


def finish_extraction(
    conversation_id: str, state: str, count: int = 0, rejected: list | None = None
) -> None:
    Conversation.objects.filter(conversation_id=conversation_id).update(
        extraction=state, extracted_count=count, rejected=(rejected or [])[:24]
    )


def transcript(conversation_id: str) -> list[ConversationTurn]:
    return list(
        ConversationTurn.objects.filter(conversation_id=conversation_id)
        .select_related("npc", "speaker")
        .order_by("created_at", "id")
    )
