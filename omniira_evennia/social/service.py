"""
The Evennia side of social memory: conversation lifecycle, extraction, NPC-to-NPC talk, gossip.

- A conversation ends when the speaker leaves the NPC's room, says goodbye, idles past
  CONVERSATION_IDLE_SECONDS, or the server restarts (`at_server_start` ends what was open).
- An ended conversation is extracted once (`process_ended`): the claim is a conditional
  update, the writes and the "done" mark share one transaction, and a claim left "running" by
  a crash is reset at the next start, so nothing is extracted twice or lost.
- `gossip_round` pairs NPCs that share a room with no player present, within a per-round
  budget, and lets them talk (`gossip.run_npc_exchange` in the worker pool).
- `OmniiraTicker`, one global script, drives all of this periodically.
"""

from __future__ import annotations

import logging
import random
import re
import time
from datetime import timedelta

from django.utils import timezone

from omniira_evennia.conf import get_settings
from omniira_evennia.conversation import service as conversations
from omniira_evennia.conversation.service import build_context
from omniira_evennia.conversation.turn_context import TurnInput
from omniira_evennia.knowledge import service as knowledge
from omniira_evennia.llm.client import get_client
from omniira_evennia.llm.service import Job, run_job
from omniira_evennia.memory import service as memory_service
from omniira_evennia.memory.embeddings import get_embedder
from omniira_evennia.memory.service import Note, said_text, write_note, write_reply
from omniira_evennia.models import Conversation, ConversationTurn, Source
from omniira_evennia.runtime import clock, health
from omniira_evennia.social.gossip import (
    ExchangeInput,
    Participant,
    held_facts,
    news_lines,
    news_topic,
    opener_first,
    run_npc_exchange,
)

log = logging.getLogger(__name__)

# ---------------------------------------------------------------- lifecycle


# ---------------------------------------------------------------- extraction


# ---------------------------------------------------------------- NPC-to-NPC talk and gossip


def _is_memory_npc(obj) -> bool:
    return getattr(obj, "is_omniira_npc", False)


def known_subjects(days: int = 7) -> tuple[dict[int, str], frozenset[int]]:
    """The closed list for gossip (every memory NPC and recently active players, id -> name)
    and which of them are players."""
    from evennia.objects.models import ObjectDB

    known = {}
    since = timezone.now() - timedelta(days=days)
    speaker_ids = set(
        ConversationTurn.objects.filter(created_at__gte=since, speaker__isnull=False).values_list(
            "speaker_id", flat=True
        )
    )
    for obj in ObjectDB.objects.filter(id__in=speaker_ids):
        known[obj.id] = obj.key
    npcs = memory_service.memory_npcs()
    for obj in npcs:
        known[obj.id] = obj.key
    for session_character in _connected_characters():
        known[session_character.id] = session_character.key
    return known, frozenset(known) - {npc.id for npc in npcs}


def candidate_pairs(rooms=None) -> list[tuple]:
    """Pairs of memory NPCs sharing a room that holds no connected player."""
    if rooms is None:
        rooms = {npc.location for npc in memory_service.memory_npcs()}
    pairs = []
    for room in rooms:
        contents = room.contents
        if any(obj.has_account for obj in contents):
            continue
        npcs = [obj for obj in contents if _is_memory_npc(obj)]
        random.shuffle(npcs)
        pairs += [(npcs[i], npcs[i + 1]) for i in range(0, len(npcs) - 1, 2)]
    return pairs


def _connected_characters() -> list:
    """Characters of connected players (the living players gossip may name)."""
    from evennia.objects.models import ObjectDB

    owned = ObjectDB.objects.filter(db_account__isnull=False, db_location__isnull=False)
    return [obj for obj in owned if obj.has_account]


def gossip_round(room=None, budget: int | None = None) -> list:
    """
    Let up to `budget` pairs of NPCs talk now (in `room`, or anywhere). Returns the Deferreds,
    each firing with the `ExchangeResult` after its writes are done.
    """
    budget = get_settings().GOSSIP_PAIRS_PER_ROUND if budget is None else budget
    pairs = candidate_pairs([room] if room is not None else None)[:budget]
    return [talk_between(a, b) for a, b in pairs]


def _participant(npc, other, exclude):
    index = memory_service.load_index(npc.id)  # cached by talk_between's load_index_later
    ctx = build_context(npc, other, "", None)
    records = index.live_records()
    ctx.news = news_lines(records, exclude)
    vectors = {
        index.records[row].id: index.matrix[row]
        for row in index.live_rows()
        if index.has_vector[row]
    }
    turn = TurnInput(
        npc_id=npc.id,
        speaker_id=other.id,
        context=ctx,
        index=index,
        reflections=memory_service.reflection_records(npc, other),
        now=time.time(),
        # The exchange's query is the other's name (gossip.run_npc_exchange).
        lexical=memory_service.lexical_hits(npc.id, other.id, other.key),
        knowledge=knowledge.view_for(npc, other, other.key),
    )
    # Every memory may be a told fact's source, those about the listener too: news Maren told
    # Lyra, filed under Maren, names Maren as its teller if Lyra tries to tell it back to her.
    held = held_facts(records, vectors, exclude={npc.id})
    topic = news_topic(held, {npc.id, other.id})
    return Participant(npc.id, npc.key, ctx, held, topic), turn


def npc_talk_format(conf, tier: str = "voice") -> str:
    """How NPCs talk to each other on `tier`: its lean "speech" prompt if it has one, else tags
    (a "json" turn is a player's, with its notes as fields)."""
    settings = conf.TIERS.get(tier)
    return "speech" if settings is not None and settings.turn_format == "speech" else "tags"


def talk_between(a, b):
    """Two NPCs talk a few lines off the reactor; gossip is written on the listeners."""
    # Matrices not in the cache are read in the worker pool first, not on the reactor.
    return memory_service.load_index_later([a.id, b.id]).addCallback(lambda _: _talk_between(a, b))


def _talk_between(a, b):
    conf = get_settings()
    exclude = {a.id, b.id}
    part_a, turn_a = _participant(a, b, exclude)
    part_b, turn_b = _participant(b, a, exclude)
    if opener_first(part_a, part_b)[0] is part_b:  # the one with the weightier news opens
        a, b, part_a, part_b, turn_a, turn_b = b, a, part_b, part_a, turn_b, turn_a
    known, players = known_subjects()
    inp = ExchangeInput(
        part_a,
        part_b,
        known,
        lines=conf.NPC_CONVERSATION_LINES,
        max_hops=conf.GOSSIP_MAX_HOPS,
        player_cap=conf.PLAYER_IMPORTANCE_CAP,
        turn_format=npc_talk_format(conf),
        players=players,
    )
    health.incr("npc_conversations")
    client, embedder = get_client(), get_embedder()
    return run_job(
        Job(
            kind="npc_conversation",
            label=f"{a.key} and {b.key}",
            work=lambda: run_npc_exchange(turn_a, turn_b, inp, conf, client, embedder),
            apply=lambda result: apply_exchange(result, a, b),
            npc=a,
            failed_result=None,
        )
    )


def apply_exchange(result, a, b):
    """Write an NPC-to-NPC exchange (in the job's transaction): turns, tags and gossip."""
    from evennia.objects.models import ObjectDB

    game_day = clock.current_game_day()
    people = {a.id: a, b.id: b}
    if result.lines:
        conversation_id = conversations.conversation_id_for(a, b, 0)
        conversations.touch_conversation(
            a, b, conversation_id, extraction=Conversation.Extraction.NONE
        )
        for speaker_id, text in result.lines:
            npc, other = people[speaker_id], people[b.id if speaker_id == a.id else a.id]
            role = ConversationTurn.Role.NPC if npc is a else ConversationTurn.Role.SPEAKER
            conversations.add_turn(a, b, conversation_id, role, said_text(text), game_day)
        conversations.mark_conversation_ended(conversation_id, "finished")
    for speaker_id, parsed, vectors in result.parsed:
        npc = people[speaker_id]
        other = b if npc is a else a
        # What the other said in this talk: the notes about them must rest on it.
        their_lines = [text for who, text in result.lines if who == other.id]
        write_reply(
            npc,
            other,
            parsed,
            vectors,
            [None] * len(parsed.commitments),
            game_day,
            grounds=their_lines,
            doubt=knowledge.doubt_for(npc, other),
        )
    if result.lines:  # they talked: each passes on what it knows that the other does not
        knowledge.share(a, b)
        knowledge.share(b, a)
    subjects = ObjectDB.objects.in_bulk(
        [item.subject_id for item in result.accepted]
        + [item.origin_id for item in result.accepted if item.origin_id]
    )
    for item in result.accepted:
        subject = subjects.get(item.subject_id)
        if subject is None:
            continue
        # News rests on what its teller said in so many words, or on the memory it told from;
        # a player's fact on that memory alone (a teller's line embellishes it).
        told = (
            ()
            if item.about_player
            else tuple(t for who, t in result.lines if who == item.speaker_id)
        )
        told += (item.held,) if item.held else ()
        write_note(
            people[item.listener_id],
            Note(
                subject,
                item.fact,
                key=item.key,
                importance=item.importance,
                feeling=item.feeling,
                source=Source.GOSSIP,
                teller=people[item.speaker_id],
                embedding=item.vector,
                game_day=game_day,
                chain=tuple(item.chain),
                from_player=item.origin_id is not None,
                origin=subjects.get(item.origin_id) if item.origin_id else None,
                grounds=told,
                told=True,
            ),
        )
        health.incr("gossip_items_written")
    for _, reason in result.rejected:
        health.incr("gossip_rejected_" + re.sub(r"[^a-z]+", "_", reason.lower()).strip("_")[:40])
    health.incr("gossip_items_rejected", len(result.rejected))
    if result.error:
        log.warning(f"omniira: conversation {a.key}/{b.key} cut short: {result.error}")
    return result


# ---------------------------------------------------------------- the ticker
