"""
The Evennia side of a conversation turn (a thin adapter around `conversation.run_turn`).

On the reactor: keep the speaker's words, gather the prompt context and the NPC's memory
matrix, and schedule a "thinking" line. In the worker pool: `run_turn`. Back on the reactor:
write what the tags asked for, store the cleaned reply, and say it in the room. If the LLM
fails, the NPC says an in-character fallback line and nothing but the speaker's words is kept.
"""

from __future__ import annotations

import logging
import random
import time
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime
from functools import partial

from django.db import transaction
from django.utils import timezone
from twisted.internet import defer, reactor

from omniira_evennia.conf import get_settings
from omniira_evennia.conversation import focus, lifecycle
from omniira_evennia.conversation import store as conversations
from omniira_evennia.conversation.addressing import is_goodbye
from omniira_evennia.conversation.lifecycle import close_conversation
from omniira_evennia.conversation.pinning import unpin  # noqa: F401 (apps.py: service.unpin)
from omniira_evennia.conversation.pinning import keep_pinned, pinned_for
from omniira_evennia.conversation.prompts import Identity, PromptContext
from omniira_evennia.conversation.tags import clean_text
from omniira_evennia.conversation.turn import TurnResult, run_turn
from omniira_evennia.conversation.turn_context import TurnInput
from omniira_evennia.knowledge import service as knowledge
from omniira_evennia.llm import guards
from omniira_evennia.llm.client import get_client
from omniira_evennia.llm.service import record_usage
from omniira_evennia.memory import service as memories
from omniira_evennia.memory.embeddings import embedder_name, get_embedder
from omniira_evennia.memory.safety import detect_manipulation
from omniira_evennia.memory.selection import line_vectors, line_vectors_soon
from omniira_evennia.memory.service import (
    embed_later,
    job_started,
    late_write,
    player_line,
    said_text,
    write_reply,
)
from omniira_evennia.models import ConversationTurn
from omniira_evennia.runtime import clock, health, runner
from omniira_evennia.runtime.retry import retry_if_locked
from omniira_evennia.runtime.runner import defer_interactive

# A conversation's rows as other capabilities and the shell use them (conversation/store.py).
add_turn = conversations.add_turn
conversation_id_for = conversations.conversation_id_for
mark_conversation_ended = conversations.mark_conversation_ended
requeue_reviews = conversations.requeue_reviews
touch_conversation = conversations.touch_conversation
connect_signals = conversations.connect_signals  # apps.ready
# Ending conversations (conversation/lifecycle.py): the ticker's reaper, a builder's `@memory
# end`, erasure, and the testbed close conversations through these.
close_conversations_with = lifecycle.close_conversations_with
process_ended = lifecycle.process_ended
reap_conversations = lifecycle.reap_conversations
# Who a player's `say` line is for (conversation/focus.py), read by the say command.
focus_on = focus.current
turn_focus_to = focus.turn_to
end_focus = focus.end

log = logging.getLogger(__name__)

# (npc id, speaker id) pairs with a reply on its way, so one speaker cannot stack up calls.
_in_flight: set[tuple[int, int]] = set()


def is_answering(npc_id: int) -> bool:
    """True while a reply of this NPC to anyone is on its way (it should not walk off)."""
    return any(pair[0] == npc_id for pair in _in_flight)


def turns_in_flight() -> int:
    """How many replies to players (or NPCs) are on their way now."""
    return len(_in_flight)


def still_thinking_over(npc, speaker) -> bool:
    """The NPC has yet to go over a finished conversation with `speaker` (its review): `recall`
    says so rather than that it remembers nothing."""
    return conversations.review_waiting(npc, speaker)


def identity_of(npc) -> Identity:
    return Identity(
        name=npc.key,
        role=npc.attributes.get("npc_role", default="") or "",
        personality=npc.attributes.get("npc_personality", default="") or "",
        duty=npc.attributes.get("npc_duty", default="") or "",
    )


def build_context(npc, speaker, message: str, conversation_id: str | None) -> PromptContext:
    conf = get_settings()
    location = npc.location
    history, earlier = conversations.history_and_earlier(
        npc, speaker, conversation_id, conf.HISTORY_TURNS
    )
    others = []
    if location:
        others = [
            obj.key
            for obj in location.contents
            if obj not in (npc, speaker)
            and (obj.has_account or getattr(obj, "is_omniira_npc", False))
        ]
    stable = conversations.conversation_context(npc, speaker, conversation_id, conf)
    return PromptContext(
        identity=identity_of(npc),
        speaker_name=speaker.key,
        message=message,
        place=location.key if location else "",
        place_description=(location.db.desc or "") if location else "",
        game_time=clock.game_time_phrase(),
        others_present=others[:8],
        opinion=stable["opinion"],
        reputation=stable["reputation"],
        concerns=list(stable["concerns"]),
        diary=list(stable["diary"]),
        history=history,
        earlier=earlier,
        speaker_is_npc=not speaker.has_account,
    )


def fallback_line(npc) -> str:
    lines = get_settings().FALLBACK_LINES or ["{name} says nothing."]
    return random.choice(lines).format(name=npc.key)


def turn_input_for(npc, speaker, message: str, conversation_id: str, game_day: int) -> TurnInput:
    """
    Everything a turn needs, gathered on the reactor in one call: the prompt context, the
    cached matrix (None: read in the worker), beliefs, full-text hits, the verbatim lane's
    candidates, what the NPC knows and may tell this speaker. Used by `start_turn` and by
    `@memory why` (what the next turn would see).
    """
    conf = get_settings()
    return TurnInput(
        npc_id=npc.id,
        speaker_id=speaker.id,
        context=build_context(npc, speaker, message, conversation_id),
        index=memories.cached_index(npc.id),
        reflections=conversations.conversation_context(npc, speaker, conversation_id, conf)[
            "reflections"
        ],
        now=time.time(),
        lexical=memories.lexical_hits(npc.id, speaker.id, message, conf),
        said_lines=conversations.conversation_context(npc, speaker, conversation_id, conf)[
            "said_lines"
        ],
        today=game_day,
        pinned=pinned_for(conversation_id, conf),
        knowledge=knowledge.view_for(npc, speaker, message, conf),
    )


def turn_refusal(npc, speaker, conf) -> str | None:
    """
    Why a turn may not start now, as an in-character line for the speaker alone, or None: the
    NPC already has NPC_QUEUE_LIMIT replies on their way, this player has spent their share of
    the NPC's day (PLAYER_SHARE_OF_NPC_BUDGET), or started PLAYER_TURNS_PER_MINUTE turns in the
    last minute (so one player cannot spend the tiers' requests or the NPC's tokens for
    everyone). Game-driven speakers (no account) are not limited.
    """
    busy = sum(1 for pair in _in_flight if pair[0] == npc.id)
    if conf.NPC_QUEUE_LIMIT and busy >= conf.NPC_QUEUE_LIMIT:
        health.incr("npc_queue_refused")
        return conf.NPC_BUSY_MESSAGE.format(npc=npc.key)
    player = getattr(speaker, "has_account", False)
    # TurnInput.tier: the tier a turn speaks on (a share is per tier, as the NPC's budget is).
    if player and get_client().budget.share_spent(TurnInput.tier, npc.id, speaker.id):
        health.incr("player_share_refused")
        return conf.PLAYER_SHARE_MESSAGE.format(npc=npc.key)
    if player and not guards.limiter("player_turns").allow(
        speaker.id, conf.PLAYER_TURNS_PER_MINUTE
    ):
        health.incr("player_rate_refused")
        return conf.PLAYER_RATE_MESSAGE.format(npc=npc.key)
    return None


def start_turn(npc, speaker, message: str):
    """
    Begin a turn: `speaker` said `message` to `npc`. Returns the Deferred of the reply (fired
    with the text said in the room), or None if the turn was refused (empty, already waiting,
    the NPC's queue full or the player over their rate: `turn_refusal`).
    """
    conf = get_settings()
    admitted = _admitted_line(npc, speaker, message, conf)
    if admitted is None:
        return None
    message, labels = admitted
    # The line is embedded while the reactor gathers the context below: on the embedder's own
    # thread, started here (`line_vectors_soon`), or else by the turn's worker job, started
    # now, which then takes what was gathered. (Inline, as in tests, it runs once gathered.)
    embedder, client, names = get_embedder(), get_client(), {npc.key, speaker.key}
    soon = line_vectors_soon(message, names, conf, embedder)
    gathered: Future = Future()
    work = partial(_turn_in_worker, gathered, conf, client, embedder, names, soon)
    deferred = None if runner.inline() or soon else defer_interactive(work, message)
    game_day = clock.current_game_day()
    conversation_id = conversations.conversation_id_for(
        npc, speaker, conf.CONVERSATION_IDLE_SECONDS
    )
    turn = _Turn(npc, speaker, conf, message, bool(labels), conversation_id, game_day)
    try:
        # Gathered before the line is stored, so the history holds only the earlier lines.
        turn.input = turn_input_for(npc, speaker, message, conversation_id, game_day)
        _keep_the_line(turn)
    except BaseException as err:
        gathered.set_exception(err)  # the worker waiting for it gives up too
        raise
    # Handed over once the reactor is done: the turn then has the GIL to itself (no switching).
    gathered.set_result(turn.input)

    pair = (npc.id, speaker.id)
    _in_flight.add(pair)
    if conf.THINKING_DELAY > 0 and npc.location and not runner.inline():
        turn.thinking = reactor.callLater(
            conf.THINKING_DELAY, _say_thinking, npc, conf.THINKING_MESSAGE.format(name=npc.key)
        )
    if deferred is None:
        deferred = defer_interactive(work, message)
    deferred.addCallback(_finish_turn, turn)
    deferred.addErrback(_crashed_turn, turn)
    deferred.addBoth(_release, pair)
    if is_goodbye(message):
        # A farewell ends the conversation once the reply has been said.
        deferred.addBoth(_then, close_conversation, conversation_id, "goodbye")
    return deferred


def _keep_the_line(turn: "_Turn") -> None:
    """The speaker's words, kept whatever happens to the reply."""
    npc, speaker = turn.npc, turn.speaker
    role, conversation_id = ConversationTurn.Role.SPEAKER, turn.conversation_id
    turn.started = timezone.now()  # the turn began when its line was taken
    conversations.touch_conversation(npc, speaker, conversation_id, at=turn.started)
    said = conversations.add_turn(npc, speaker, conversation_id, role, turn.message, turn.game_day)
    if turn.suspect:
        ConversationTurn.objects.filter(id=said.id).update(suspect=True)
    turn.said_id = said.id
    turn.index_token = memories.generation(npc.id) if turn.input.index is None else None


def _admitted_line(npc, speaker, message: str, conf):
    """The line as a turn may take it, and its manipulation labels; None if no turn starts
    (an empty line, a reply to this speaker on its way, or `turn_refusal`)."""
    # The line is cut to MAX_MESSAGE_CHARS before anything reads it, and a refused turn costs
    # nothing more: whatever a player types, one line costs bounded time on the reactor.
    message = str(message or "")[: conf.MAX_MESSAGE_CHARS]
    if not message.strip():
        return None
    if (npc.id, speaker.id) in _in_flight:
        speaker.msg(f"{npc.key} is still answering you.")
        return None
    refusal = turn_refusal(npc, speaker, conf)
    if refusal:
        speaker.msg(refusal)  # to that player only, before any LLM call or stored row
        return None
    # Safety first: flag instruction-like text (tags typed by a player included), then strip
    # tags, controls and personal data (the text policy), so nothing downstream sees them.
    labels = detect_manipulation(message)
    message = player_line(clean_text(message), conf.MAX_MESSAGE_CHARS)
    if labels:
        memories.audit("player_text", labels, npc=npc, speaker=speaker, excerpt=message)
        health.incr("manipulation_flagged")
    return (message, labels) if message else None


@dataclass
class _Turn:
    """What a turn's reply is applied with on the reactor, once the worker is done."""

    npc: object
    speaker: object
    conf: object
    message: str
    suspect: bool  # the player's line was flagged (its notes are kept as suspect)
    conversation_id: str
    game_day: int
    input: TurnInput | None = None
    said_id: int | None = None  # the speaker's line, stored
    index_token: object = None  # set: the worker read the matrix, installed if still current
    started: datetime | None = None  # when its line was taken (the conversation's last_turn_at)
    thinking: object = None  # the pending "thinking" line


def _stop_thinking(turn: _Turn) -> None:
    if turn.thinking is not None and turn.thinking.active():
        turn.thinking.cancel()


def _finish_turn(result: TurnResult, turn: _Turn):
    """Back on the reactor: say the reply and write what it asked for (`apply_turn`); then
    the news the player told, and the line's vector (the verbatim lane)."""
    npc, speaker = turn.npc, turn.speaker
    _stop_thinking(turn)
    if turn.index_token is not None:
        memories.install_index(npc.id, turn.input.index, turn.index_token)
    keep_pinned(turn.conversation_id, turn.conf, result.pinned)
    # What the speaker said in this conversation: the notes about them must rest on it.
    context = turn.input.context
    their_lines = [context.message] + [t.text for t in context.history if t.role == "user"]
    said_back = apply_turn(
        npc,
        speaker,
        turn.conversation_id,
        turn.game_day,
        result,
        suspect=turn.suspect,
        grounds=their_lines,
        later=True,
        started=turn.started,
    )

    def _hear(outcome):
        # After the line has left for the room (apply_turn's writes wait for the reactor's
        # next turn, and so does this): the player does not wait for the news they told,
        # and it is kept whatever became of the turn's writes.
        if not turn.suspect:
            _hear_news(npc, speaker, turn.message, turn.conf)
        return outcome

    def _keep_vector(line):
        # The line's vector was computed as the retrieval query: kept (the verbatim lane).
        conversations.keep_line_vector(turn.said_id, result.query_vector, embedder_name())
        return line

    if isinstance(said_back, defer.Deferred):
        return said_back.addBoth(_hear).addCallback(_keep_vector)
    return _keep_vector(_hear(said_back))


def _crashed_turn(failure, turn: _Turn):
    """The turn crashed (not the LLM failing: that is a fallback in `apply_turn`): logged, and
    the NPC says a fallback line."""
    log.error(
        f"omniira: turn for {turn.npc.key} crashed: {failure.getErrorMessage()}",
        exc_info=(failure.type, failure.value, failure.getTracebackObject()),
    )
    health.incr("turn_crashes")
    _stop_thinking(turn)
    line = fallback_line(turn.npc)
    _emote(turn.npc, line)
    return line


def _hear_news(npc, speaker, message: str, conf) -> None:
    """A player's news about someone else, kept as what the NPC was told (knowledge.hear_news)
    once the reply is said; a failure there costs the news, never the reply."""
    if getattr(speaker, "is_omniira_npc", False):
        return
    try:
        pending = knowledge.hear_news(npc, speaker, message, conf)
    except Exception:
        log.exception(f"omniira: news told to {npc.key} was not kept")
        return
    for written in pending:
        written.addErrback(lambda failure: log.error(f"omniira: news not kept: {failure.value}"))


GATHER_SECONDS = 30.0  # the longest a turn's worker waits for the reactor's gathering


def _turn_in_worker(gathered: Future, conf, client, embedder, names, soon, message) -> TurnResult:
    """The turn's worker part: the line's vectors (embedded here at once unless started on the
    embedder's thread), what the reactor gathered, then retrieve, prompt, call, parse."""
    vectors = None if soon else line_vectors(message, names, conf, embedder)
    turn_input = gathered.result(timeout=GATHER_SECONDS)
    vectors = vectors or soon(conf.EMBEDDING_TIMEOUT)
    # A matrix that is not cached yet is read here, not on the reactor (0.1 s at 10k rows).
    if turn_input.index is None:
        turn_input.index = memories.read_index(turn_input.npc_id)
    # The notes' vectors are made after the reply is said (write.embed_later): a player does
    # not wait for them.
    result = run_turn(turn_input, conf, client, embedder, vectors=vectors, embed_notes=False)
    if result.ok:
        # The reply through the text policy here, off the reactor: links, MXP, colour codes
        # (as the builder chose), controls and personal data never reach the room or the
        # store, and the line is cut at a sentence (memory/policy.py, "line").
        result.parsed.text = said_text(result.parsed.text) or "..."
    return result


def _then(result, func, *args):
    func(*args)
    return result


def _release(result, pair):
    _in_flight.discard(pair)
    return result


def _emote(npc, text):
    if npc.location:
        npc.location.msg_contents(text, from_obj=npc)


_say_thinking = _emote  # the "thinking" line (its own name: bench/in_server.py times it)


def apply_turn(
    npc,
    speaker,
    conversation_id: str,
    game_day: int,
    result: TurnResult,
    suspect=False,
    grounds=None,
    later: bool = False,
    started: datetime | None = None,
):
    """
    Say the reply, then write the turn's effects on the reactor. Returns what the room saw
    (with `later`, a Deferred of it, fired once the writes are done on the reactor's next
    turn). The line is said first so the player does not wait for the writes; the writes are
    all or nothing and retried when SQLite is locked, the line never said twice. Memories
    written during a turn whose player text was flagged are marked suspect.
    """
    if not result.ok:
        record_usage(result.usage, npc=npc)
        health.incr("conversation_fallbacks")
        log.warning(f"omniira: {npc.key} could not answer {speaker.key}: {result.error}")
        line = fallback_line(npc)
        _emote(npc, line)
        return line

    parsed = result.parsed  # its text went through the text policy in the worker
    # A reply begun before the player's data was erased writes and says nothing of it: it
    # was made from what was erased (memory/write.py, late_write). The turn began when its
    # line was taken (the conversation's last_turn_at, read unless the caller knows it).
    started = started or conversations.turn_started(conversation_id)
    with job_started(started):
        late = late_write((speaker,))
    if late:
        if result.usage is not None:
            record_usage(result.usage, npc=npc)
        line = fallback_line(npc)
        _emote(npc, line)
        return line
    npc.at_say(parsed.text, msg_self=False)
    write = partial(
        retry_if_locked,
        _write_turn,
        npc,
        speaker,
        conversation_id,
        game_day,
        result,
        started,
        suspect=suspect,
        grounds=grounds,
    )
    if later and not runner.inline():
        # The writes wait until the line has left for the players (callLater(0) ran them first).
        return runner.after_the_next_poll(write).addCallback(lambda _: parsed.text)
    write()
    return parsed.text


def _write_turn(
    npc, speaker, conversation_id, game_day, result, started, suspect=False, grounds=None
):
    """The turn's writes, in one transaction (a retry after "database is locked" never writes
    a tag, or the usage record, twice); then the notes' vectors, made in the background."""
    parsed = result.parsed
    with job_started(started), transaction.atomic():
        if result.usage is not None:  # None: a guarded topic's line, no LLM call
            record_usage(result.usage, npc=npc)
        written = write_reply(
            npc,
            speaker,
            parsed,
            result.remember_vectors or [None] * len(parsed.remember),
            result.commitment_vectors or [None] * len(parsed.commitments),
            game_day,
            suspect=suspect,
            grounds=grounds,
            doubt=knowledge.doubt_for(npc, speaker),
        )
        # What the speaker claimed against the NPC's knowledge is kept, as uncertain.
        written += knowledge.note_claims(npc, speaker, result.doubts, game_day)
        conversations.add_turn(
            npc, speaker, conversation_id, ConversationTurn.Role.NPC, parsed.text, game_day
        )
    embed_later([m for m in written if m is not None and m.embedding is None])
