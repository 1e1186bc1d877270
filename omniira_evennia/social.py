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

import random
import time
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from evennia.scripts.scripts import DefaultScript
from evennia.utils import logger

from . import clock, fulltext, health, store
from .conf import get_settings
from .conversation import TurnInput
from .embeddings import get_embedder
from .extraction import ExtractionInput, run_extraction
from .gossip import ExchangeInput, Participant, held_facts, news_lines, run_npc_exchange
from .llm import get_client
from .models import Conversation, ConversationTurn, Memory, Source
from .runner import defer_to_worker
from .service import apply_tags, build_context

TICKER_KEY = "omniira_ticker"


# ---------------------------------------------------------------- lifecycle


def end_conversation(conversation_id: str, reason: str):
    """End a conversation now (if still open) and extract it. Returns the extraction Deferred."""
    if store.end_conversation(conversation_id, reason):
        health.incr(f"conversations_ended_{reason}")
    return extract(conversation_id)


def end_conversation_with(npc, speaker, reason: str = "ended"):
    """End whatever conversation `npc` has open with `speaker` (public API)."""
    deferreds = []
    for conv in Conversation.objects.filter(npc=npc, speaker=speaker, ended_at__isnull=True):
        deferreds.append(end_conversation(conv.conversation_id, reason))
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
        if store.end_conversation(conv.conversation_id, reason):
            health.incr(f"conversations_ended_{reason}")
            ended += 1
    return ended


def at_server_start():
    """
    Call from the game's `at_server_start`: conversations open at shutdown end ("restart"),
    half-done extractions are retried, the ticker scripts exist (conversations and gossip;
    NPC decisions), the embedder warms up.
    """
    from .daily import reset_unfinished_claims
    from .service import warm_up

    reset_unfinished_claims()
    for conv in Conversation.objects.filter(ended_at__isnull=True):
        if store.end_conversation(conv.conversation_id, "restart"):
            health.incr("conversations_ended_restart")
    # "running" after a restart means the worker died before writing: nothing was stored.
    Conversation.objects.filter(extraction=Conversation.Extraction.RUNNING).update(
        extraction=Conversation.Extraction.PENDING
    )
    from .llm import get_client

    store.seed_budget(get_client().budget)
    ensure_ticker()
    from .movement import ensure_decision_ticker

    ensure_decision_ticker()  # NPC schedules and commitments
    process_ended()
    warm_up()


# ---------------------------------------------------------------- extraction


def process_ended(limit: int | None = None) -> list:
    """Start extraction for up to `limit` ended, pending conversations (bounded per tick)."""
    limit = get_settings().EXTRACTIONS_PER_TICK if limit is None else limit
    pending = Conversation.objects.filter(
        ended_at__isnull=False, extraction=Conversation.Extraction.PENDING
    ).values_list("conversation_id", flat=True)[:limit]
    return [extract(cid) for cid in list(pending)]


def extract(conversation_id: str):
    """Extract an ended conversation once; a no-op (None) if someone else already claimed it."""
    if not store.claim_extraction(conversation_id):
        return None
    conv = Conversation.objects.select_related("npc", "speaker").get(
        conversation_id=conversation_id
    )
    npc, speaker = conv.npc, conv.speaker
    turns = store.transcript(conversation_id)
    lines = [
        (
            npc.key if t.role == ConversationTurn.Role.NPC else (speaker.key if speaker else "?"),
            t.text,
        )
        for t in turns
    ]
    if speaker is None or not any(t.role == ConversationTurn.Role.SPEAKER for t in turns):
        store.finish_extraction(conversation_id, Conversation.Extraction.SKIPPED)
        return None
    known = list(
        Memory.objects.filter(npc=npc, subject=speaker)
        .order_by("-learned_at")
        .values_list("value", flat=True)[:20]
    )
    inp = ExtractionInput(conversation_id, npc.key, speaker.key, lines, known, npc_id=npc.id)
    deferred = defer_to_worker(run_extraction, inp, get_client(), get_embedder())

    def _apply(result):
        with transaction.atomic():
            for usage in result.usages:
                store.record_usage(usage, npc=npc)
            written = 0
            still_ours = Conversation.objects.filter(
                conversation_id=conversation_id, extraction=Conversation.Extraction.RUNNING
            ).exists()
            if not still_ours:  # e.g. the player's data was erased meanwhile
                health.incr("extractions_abandoned")
                return 0
            if result.error is None:
                existing = set(
                    Memory.objects.filter(npc=npc, subject=speaker).values_list("key", flat=True)
                )
                for tag, vector in zip(result.memories, result.vectors):
                    if tag.key in existing:
                        continue  # the NPC's own tag (or an earlier fact) wins
                    if store.upsert_memory(
                        npc,
                        speaker,
                        tag.key,
                        tag.value,
                        importance=tag.importance,
                        feeling=tag.feeling,
                        source=Source.EXTRACTED,
                        embedding=vector,
                        game_day=clock.current_game_day(),
                        speaker=speaker,
                        player_sourced=not getattr(speaker, "is_omniira_npc", False),
                    ):
                        written += 1
                state = Conversation.Extraction.DONE
            else:
                health.incr("extraction_failures")
                logger.log_warn(
                    f"omniira: extraction of {conversation_id} failed: " f"{result.error}"
                )
                state = Conversation.Extraction.FAILED
            store.finish_extraction(conversation_id, state, written)
        health.incr("extractions")
        return written

    def _crash(failure):
        logger.log_trace(f"omniira: extraction of {conversation_id} crashed")
        store.finish_extraction(conversation_id, Conversation.Extraction.FAILED)
        health.incr("extraction_failures")

    return deferred.addCallback(_apply).addErrback(_crash)


# ---------------------------------------------------------------- NPC-to-NPC talk and gossip


def _is_memory_npc(obj) -> bool:
    return getattr(obj, "is_omniira_npc", False)


def known_subjects(days: int = 7) -> dict[int, str]:
    """The closed list for gossip: every memory NPC and recently active players."""
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
    for obj in ObjectDB.objects.filter(db_typeclass_path__isnull=False).exclude(
        db_location__isnull=True
    ):
        if obj.has_account or _is_memory_npc(obj):
            known[obj.id] = obj.key
    return known


def candidate_pairs(rooms=None) -> list[tuple]:
    """Pairs of memory NPCs sharing a room that holds no connected player."""
    from evennia.objects.models import ObjectDB

    if rooms is None:
        npcs = [o for o in ObjectDB.objects.exclude(db_location__isnull=True) if _is_memory_npc(o)]
        rooms = {npc.location for npc in npcs}
    pairs = []
    for room in rooms:
        contents = room.contents
        if any(obj.has_account for obj in contents):
            continue
        npcs = [obj for obj in contents if _is_memory_npc(obj)]
        random.shuffle(npcs)
        pairs += [(npcs[i], npcs[i + 1]) for i in range(0, len(npcs) - 1, 2)]
    return pairs


def gossip_round(room=None, budget: int | None = None) -> list:
    """
    Let up to `budget` pairs of NPCs talk now (in `room`, or anywhere). Returns the Deferreds,
    each firing with the `ExchangeResult` after its writes are done.
    """
    budget = get_settings().GOSSIP_PAIRS_PER_ROUND if budget is None else budget
    pairs = candidate_pairs([room] if room is not None else None)[:budget]
    return [talk_between(a, b) for a, b in pairs]


def _participant(npc, other, exclude):
    index = store.load_index(npc.id)  # cached by talk_between's load_index_later
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
        reflections=store.reflection_records(npc, other),
        now=time.time(),
        # The exchange's query is the other's name (gossip.run_npc_exchange).
        lexical=fulltext.lexical_hits(npc.id, other.id, other.key),
    )
    return Participant(npc.id, npc.key, ctx, held_facts(records, vectors, exclude)), turn


def talk_between(a, b):
    """Two NPCs talk a few lines off the reactor; gossip is written on the listeners."""
    # Matrices not in the cache are read in the worker pool first, not on the reactor.
    return store.load_index_later([a.id, b.id]).addCallback(lambda _: _talk_between(a, b))


def _talk_between(a, b):
    conf = get_settings()
    exclude = {a.id, b.id}
    part_a, turn_a = _participant(a, b, exclude)
    part_b, turn_b = _participant(b, a, exclude)
    inp = ExchangeInput(
        part_a,
        part_b,
        known_subjects(),
        lines=conf.NPC_CONVERSATION_LINES,
        max_hops=conf.GOSSIP_MAX_HOPS,
    )
    health.incr("npc_conversations")
    deferred = defer_to_worker(
        run_npc_exchange, turn_a, turn_b, inp, conf, get_client(), get_embedder()
    )
    return deferred.addCallback(
        lambda result: store.retry_if_locked(apply_exchange, result, a, b)
    ).addErrback(_exchange_crash, a, b)


@transaction.atomic
def apply_exchange(result, a, b):
    """Write an NPC-to-NPC exchange all at once: turns, tags, gossip and usage."""
    from evennia.objects.models import ObjectDB

    game_day = clock.current_game_day()
    people = {a.id: a, b.id: b}
    for usage in result.usages:
        store.record_usage(usage, npc=a)
    if result.lines:
        conversation_id = store.conversation_id_for(a, b, 0)
        store.touch_conversation(a, b, conversation_id, extraction=Conversation.Extraction.NONE)
        for speaker_id, text in result.lines:
            npc, other = people[speaker_id], people[b.id if speaker_id == a.id else a.id]
            role = ConversationTurn.Role.NPC if npc is a else ConversationTurn.Role.SPEAKER
            store.add_turn(a, b, conversation_id, role, text, game_day)
        store.end_conversation(conversation_id, "finished")
    for speaker_id, parsed, vectors in result.parsed:
        npc = people[speaker_id]
        other = b if npc is a else a
        apply_tags(npc, other, parsed, vectors, [None] * len(parsed.commitments), game_day)
    subjects = ObjectDB.objects.in_bulk([item.subject_id for item in result.accepted])
    for item in result.accepted:
        subject = subjects.get(item.subject_id)
        if subject is None:
            continue
        store.upsert_memory(
            people[item.listener_id],
            subject,
            item.key,
            item.fact,
            importance=item.importance,
            feeling=item.feeling,
            source=Source.GOSSIP,
            provenance=people[item.speaker_id],
            embedding=item.vector,
            game_day=game_day,
            hops=len(item.chain),
            chain=item.chain,
        )
        health.incr("gossip_items_written")
    health.incr("gossip_items_rejected", len(result.rejected))
    if result.error:
        logger.log_warn(f"omniira: conversation {a.key}/{b.key} cut short: {result.error}")
    return result


def _exchange_crash(failure, a, b):
    logger.log_trace(f"omniira: conversation between {a.key} and {b.key} crashed")
    health.incr("npc_conversation_crashes")
    return None


# ---------------------------------------------------------------- the ticker


class OmniiraTicker(DefaultScript):
    """Ends idle or abandoned conversations, extracts them, and runs gossip rounds."""

    def at_script_creation(self):
        self.key = TICKER_KEY
        self.desc = "omniira-evennia: conversation lifecycle and gossip"
        self.interval = get_settings().TICK_SECONDS
        self.persistent = True
        self.start_delay = True
        # The first gossip round comes one interval after start, not at once: a fresh server
        # (and a slow local model) serves its players first.
        self.db.last_gossip = time.time()

    def at_start(self, **kwargs):
        self.db.last_gossip = time.time()

    def at_repeat(self, **kwargs):
        from .daily import check_rollover

        reap_conversations()
        process_ended()
        check_rollover()
        fulltext.maintain()  # a bounded merge step keeps full-text queries fast
        conf = get_settings()
        if conf.GOSSIP_INTERVAL_SECONDS and (
            time.time() - (self.db.last_gossip or 0) >= conf.GOSSIP_INTERVAL_SECONDS
        ):
            self.db.last_gossip = time.time()
            gossip_round()


def ensure_ticker():
    from evennia.scripts.models import ScriptDB
    from evennia.utils.create import create_script

    existing = ScriptDB.objects.filter(db_key=TICKER_KEY)
    if existing.exists():
        for extra in list(existing)[1:]:  # guard against duplicates from older starts
            extra.delete()
        return existing.first()
    return create_script(OmniiraTicker, key=TICKER_KEY, persistent=True, autostart=True)
