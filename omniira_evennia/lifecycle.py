"""
Server start-up: what a game calls from `at_server_start` (conversations interrupted by the
restart are ended and reviewed, half-done claims reset, budgets seeded from today's usage,
tickers ensured) and the warm-up of the embedder and memory matrices off the reactor.
"""

from __future__ import annotations

import logging
from types import SimpleNamespace

from django.conf import settings
from twisted.internet import defer, reactor

from omniira_evennia import notices
from omniira_evennia.conf import get_settings
from omniira_evennia.conversation import service as conversations
from omniira_evennia.conversation.prompts import PromptContext, stable_prefix
from omniira_evennia.conversation.turn import turn_format_of
from omniira_evennia.llm.client import get_client
from omniira_evennia.llm.service import Job, run_job, seed_budget
from omniira_evennia.memory import service as memories
from omniira_evennia.memory.embeddings import embed_or_none
from omniira_evennia.models import Conversation, Memory
from omniira_evennia.rollover.service import reset_unfinished_claims
from omniira_evennia.runtime import files, health
from omniira_evennia.runtime.runner import defer_background
from omniira_evennia.scripts import ensure_decision_ticker, ensure_ticker

log = logging.getLogger(__name__)


def at_server_start():
    """
    Call from the game's `at_server_start`: conversations open at shutdown end ("restart"),
    half-done extractions are retried, the ticker scripts exist (conversations and gossip;
    NPC decisions), the embedder warms up. NPCs from before 0.2 get their tag (once).
    """
    files.make_private(**files.settings_paths(settings))  # database and logs: owner only

    tagged = memories.tag_untagged_npcs()  # once per database (NPCs made before 0.2)
    if tagged:
        log.info(f"omniira: tagged {tagged} memory NPCs made by an older version")

    reset_unfinished_claims()
    for conv in Conversation.objects.filter(ended_at__isnull=True):
        if conversations.mark_conversation_ended(conv.conversation_id, "restart"):
            health.incr("conversations_ended_restart")
    # "running" after a restart means the worker died before writing: nothing was stored.
    Conversation.objects.filter(extraction=Conversation.Extraction.RUNNING).update(
        extraction=Conversation.Extraction.PENDING
    )

    seed_budget(get_client().budget)
    ensure_ticker()
    ensure_decision_ticker()  # NPC schedules and commitments
    conversations.process_ended()
    warm_up()
    notices.report_at_start()  # the checks' warnings in the server log: `start` runs no checks


def warm_up(delay: float = 10.0):
    """
    Soon after start, in the worker pool: load the embedding model, then read the memory
    matrices of every NPC that has memories, then (WARM_PROMPT_NPCS) fill the model server's
    prompt cache with the NPCs' fixed prompt blocks, so neither the first conversation nor the
    first gossip round pays for them. Call from `at_server_start`. The delay keeps the work out of
    Evennia's first-start restart (a busy worker holds up a shutdown). Failures are logged and
    counted; retrieval then relies on recency until the model loads.
    """

    def _report(vectors):
        if vectors and vectors[0] is not None:
            log.info("omniira: embedding model ready")
        else:
            log.error("omniira: embedding model failed to load; memories rely on recency")

    def _read_matrices(_):
        npc_ids = list(Memory.objects.order_by().values_list("npc_id", flat=True).distinct())
        return memories.load_index_later(npc_ids).addCallback(
            lambda _: log.info(f"omniira: memory matrices of {len(npc_ids)} NPCs ready")
        )

    def _load():
        deferred = defer_background(embed_or_none, ["warming up"]).addCallback(_report)
        deferred.addCallback(_read_matrices)
        deferred.addCallback(lambda _: warm_prompts())
        deferred.addErrback(lambda f: log.error(f"omniira: warm-up failed: {f.value}"))

    return reactor.callLater(delay, _load)


#: How often a warm-up waiting for a player's reply looks again, and how long it waits at most.
WARM_UP_YIELD_SECONDS = 1.0
WARM_UP_MAX_WAIT_SECONDS = 300.0


def warm_prompts(npcs=None):
    """
    The fixed prompt blocks of at most WARM_PROMPT_NPCS memory NPCs (`npcs`, or those in a
    room) sent to the model server (`warm_prompt`), one at a time, each only once no reply is
    on its way: a warm-up competes with a reply for the model server's cores (a telnet trial's
    first replies took 32 and 69 s beside four warm-ups at once), and a player who talks first
    fills the cache for that NPC anyway. A Deferred fired with the number warmed.
    """
    limit = get_settings().WARM_PROMPT_NPCS
    queue = (memories.memory_npcs() if npcs is None else list(npcs))[:limit]
    if not queue:
        return defer.succeed(0)
    done, count, waited = defer.Deferred(), len(queue), [0.0]

    def _next(_=None):
        if not queue:
            log.info(f"omniira: prompts of {count} NPCs warm")
            done.callback(count)
        elif conversations.turns_in_flight() and waited[0] < WARM_UP_MAX_WAIT_SECONDS:
            health.incr("warm_up_yields")
            waited[0] += WARM_UP_YIELD_SECONDS
            reactor.callLater(WARM_UP_YIELD_SECONDS, _next)
        else:
            # A failed warm-up is logged and counted by its job; the next one goes on.
            warm_prompt(queue.pop(0)).addBoth(_next)

    _next()
    return done


def warm_prompt(npc):
    """
    Send the NPC's `prompts.stable_prefix` once, for a one-token reply, in the background pool,
    so a prompt-caching server (llama.cpp) holds it before the first player speaks: the first
    reply then reads only what is new in its prompt (issue #24, point 6). Returns the job's
    Deferred; a failure is logged and counted (`warm_up_failures`), and costs nothing else.
    """
    conf = get_settings()
    ctx = PromptContext(identity=conversations.identity_of(npc), speaker_name="", message="")
    prefix = stable_prefix(ctx, turn_format_of(conf, "voice"))

    def _work():
        messages = [{"role": "system", "content": prefix}]
        reply = get_client().chat("voice", messages, feature="warm_up", max_tokens=1)
        return SimpleNamespace(usages=[reply.usage])

    return run_job(Job("warm_up", npc.key, _work, lambda _: 0, npc=npc))
