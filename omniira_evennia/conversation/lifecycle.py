"""
Conversation lifecycle: a conversation ends when the speaker leaves the NPC's room, says
goodbye, idles past CONVERSATION_IDLE_SECONDS, or the server restarts; an ended conversation is
reviewed (extraction) exactly once: the claim is a conditional update, the writes and the "done"
mark share one transaction, and a claim left "running" by a crash is reset at the next start.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from functools import partial

from django.db.models import Q
from django.utils import timezone

from omniira_evennia.conf import get_settings
from omniira_evennia.conversation import store as conversations
from omniira_evennia.conversation.extraction import (
    ExtractionInput,
    run_extraction,
    speaker_lines,
    unnoted_statements,
)
from omniira_evennia.knowledge.service import doubt_for
from omniira_evennia.llm.client import get_client
from omniira_evennia.llm.service import Job, run_job
from omniira_evennia.memory.embeddings import get_embedder
from omniira_evennia.memory.grounding import evidence
from omniira_evennia.memory.quoting import said_quote
from omniira_evennia.memory.service import Note, embed_later, is_player, write_note
from omniira_evennia.models import Conversation, ConversationTurn, Memory, Source
from omniira_evennia.runtime import clock, health

log = logging.getLogger(__name__)


def close_conversation(conversation_id: str, reason: str):
    """End a conversation now (if still open) and extract it. Returns the extraction Deferred."""
    if conversations.mark_conversation_ended(conversation_id, reason):
        health.incr(f"conversations_ended_{reason}")
    return extract(conversation_id)


def close_conversations_with(npc, speaker, reason: str = "ended"):
    """End whatever conversation `npc` has open with `speaker` (public API)."""
    deferreds = []
    for conv in Conversation.objects.filter(npc=npc, speaker=speaker, ended_at__isnull=True):
        deferreds.append(close_conversation(conv.conversation_id, reason))
    return deferreds


def reap_conversations(now=None) -> int:
    """End open conversations whose speaker left or went quiet. Returns how many ended."""
    now = now or timezone.now()
    idle = timedelta(seconds=get_settings().CONVERSATION_IDLE_SECONDS)
    ended = 0
    open_convs = Conversation.objects.filter(ended_at__isnull=True).select_related("npc", "speaker")
    for conv in open_convs:
        speaker, npc = conv.speaker, conv.npc
        if speaker is None or npc is None or speaker.location != npc.location:
            reason = "left"
        elif now - conv.last_turn_at > idle:
            reason = "timeout"
        else:
            continue
        if conversations.mark_conversation_ended(conv.conversation_id, reason):
            health.incr(f"conversations_ended_{reason}")
            ended += 1
    return ended


def process_ended(limit: int | None = None) -> list:
    """Start extraction for up to `limit` ended, pending conversations (bounded per tick)."""
    limit = get_settings().EXTRACTIONS_PER_TICK if limit is None else limit
    due = Q(retry_at__isnull=True) | Q(retry_at__lte=timezone.now())
    pending = (
        Conversation.objects.filter(due, ended_at__isnull=False)
        .filter(extraction=Conversation.Extraction.PENDING)
        .order_by("attempts", "ended_at")
        .values_list("conversation_id", flat=True)[:limit]
    )
    return [extract(cid) for cid in list(pending)]


def review_cue(npc, speaker) -> bool:
    """
    Tell the player, in-world, that the NPC has thought over their talk (REVIEW_CUE; "" is
    off), if they are a player still in the NPC's room. True if the cue was sent.
    """
    cue = get_settings().REVIEW_CUE
    if not cue or not is_player(speaker) or speaker.location is None:
        return False
    if speaker.location != npc.location:
        return False
    speaker.msg(cue.format(npc=npc.key))
    return True


def extract(conversation_id: str):
    """Extract an ended conversation once; a no-op (None) if someone else already claimed it."""
    if not conversations.claim_extraction(conversation_id):
        return None
    conv = Conversation.objects.select_related("npc", "speaker").get(
        conversation_id=conversation_id
    )
    npc, speaker = conv.npc, conv.speaker
    turns = conversations.transcript(conversation_id)
    if speaker is None or not any(t.role == ConversationTurn.Role.SPEAKER for t in turns):
        conversations.finish_extraction(conversation_id, Conversation.Extraction.SKIPPED)
        return None
    known = list(
        Memory.objects.filter(npc=npc, subject=speaker)
        .order_by("-learned_at")
        .values_list("value", flat=True)[:20]
    )
    lines = _transcript_lines(turns, npc, speaker)
    inp = ExtractionInput(conversation_id, npc.key, speaker.key, lines, known, npc_id=npc.id)
    client, embedder = get_client(), get_embedder()
    return run_job(
        Job(
            kind="extraction",
            label=conversation_id,
            work=lambda: run_extraction(inp, client, embedder),
            apply=partial(_apply_extraction, inp=inp, npc=npc, speaker=speaker),
            npc=npc,
            on_failure=lambda: conversations.extraction_failed(conversation_id, "the job crashed"),
        )
    )


def _transcript_lines(turns, npc, speaker) -> list[tuple[str, str]]:
    """(who, what) for each line of the conversation, as the review reads it."""
    return [
        (
            npc.key if t.role == ConversationTurn.Role.NPC else (speaker.key if speaker else "?"),
            t.text,
        )
        for t in turns
    ]


def _apply_extraction(result, *, inp: ExtractionInput, npc, speaker) -> int:
    """The review's facts written on the reactor, if the review is still ours and it worked;
    the conversation marked done. Returns how many facts were written."""
    conversation_id = inp.conversation_id
    still_ours = Conversation.objects.filter(
        conversation_id=conversation_id, extraction=Conversation.Extraction.RUNNING
    ).exists()
    if not still_ours:  # e.g. the player's data was erased meanwhile
        health.incr("extractions_abandoned")
        return 0
    if result.error is not None:
        health.incr("extraction_failures")
        state = conversations.extraction_failed(conversation_id, result.error)
        log.warning(f"omniira: extraction of {conversation_id} failed ({state}): {result.error}")
        return 0
    rejected = []
    written = _write_extracted(result, inp, npc, speaker, rejected)
    conversations.finish_extraction(
        conversation_id, Conversation.Extraction.DONE, written, rejected=rejected
    )
    health.incr("extractions")
    review_cue(npc, speaker)
    return written


def _write_extracted(result, inp: ExtractionInput, npc, speaker, rejected: list) -> int:
    """Each fact the review found that the NPC has no note of under its key, and what the
    speaker said of themselves that it left out, through the write policy (what it refuses goes
    to `rejected`). Returns how many were written."""
    existing = set(Memory.objects.filter(npc=npc, subject=speaker).values_list("key", flat=True))
    # Every fact must rest on the speaker's own statements (memory/grounding.py): those
    # of the window it was read from, each window read once.
    windows = result.windows or [speaker_lines(inp)] * len(result.memories)
    read: dict[int, object] = {}
    # A fact against what the NPC knows is kept, as uncertain (knowledge/contradiction.py).
    doubt = doubt_for(npc, speaker)
    kept = []
    for tag, vector, window in zip(result.memories, result.vectors, windows):
        if tag.key in existing:
            continue  # the NPC's own tag (or an earlier fact) wins
        if id(window) not in read:
            read[id(window)] = evidence(window, subject=speaker.key)
        grounds = read[id(window)]
        note = Note(
            speaker,
            tag.value,
            key=tag.key,
            importance=tag.importance,
            feeling=tag.feeling,
            source=Source.EXTRACTED,
            embedding=vector,
            game_day=clock.current_game_day(),
            speaker=speaker,
            from_player=is_player(speaker),
            grounds=grounds,
            doubt=doubt(tag.value) if doubt is not None else None,
        )
        memory = write_note(npc, note, rejected)
        if memory is not None:
            kept.append(memory)
    kept.extend(_write_unnoted(inp, npc, speaker, [m.value for m in kept], doubt, rejected))
    # Kept as the speaker's words (memory/write.py, below): their vectors are made later.
    embed_later([m for m in kept if m.embedding is None])
    return len(kept)


def _write_unnoted(inp: ExtractionInput, npc, speaker, written: list[str], doubt, rejected):
    """What the speaker said of themselves that the review left out (extraction.
    unnoted_statements), kept in their words: 'Nerys said: "I have a son called Casimir..."'."""
    lines = speaker_lines(inp)
    remembered = list(inp.known) + written
    kept = []
    grounds = None
    for statement in unnoted_statements(lines, npc.key, remembered):
        grounds = grounds or evidence(lines, subject=speaker.key)
        value = said_quote(speaker.key, statement)
        note = Note(
            speaker,
            value,
            key="said_" + "_".join(statement.lower().split()[:4]),
            importance=5,
            source=Source.EXTRACTED,
            game_day=clock.current_game_day(),
            speaker=speaker,
            from_player=is_player(speaker),
            grounds=grounds,
            doubt=doubt(value) if doubt is not None else None,
        )
        if memory := write_note(npc, note, rejected):
            health.incr("statements_kept_as_said")
            kept.append(memory)
    return kept
