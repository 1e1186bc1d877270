"""
One conversation turn, as plain data in and plain data out (paper sections 4.1-4.4).

`run_turn` is the part of a turn that may take seconds: embed the player's line, retrieve
memories, render the prompt, call the voice tier, parse and validate the reply's tags, embed
what is to be remembered. It touches no database and no Evennia object, so it runs in a worker
thread while the reactor keeps serving players. The Evennia side gathers a `TurnInput` before
and applies the `TurnResult` after, on the reactor (see `service.py`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np

from omniira_evennia.conf import OmniiraSettings
from omniira_evennia.conversation.prompts import (
    MemoryLine,
    PromptContext,
    build_messages,
    strip_character_breaks,
)
from omniira_evennia.conversation.tags import ParsedReply, parse_reply
from omniira_evennia.llm.client import LLMBudgetExceeded, LLMClient, LLMError, Usage
from omniira_evennia.memory.embeddings import Embedder, embed_or_none
from omniira_evennia.memory.fusion import (
    LexicalHits,
    select_by_mode,
    select_newest_plus_fused,
)
from omniira_evennia.memory.retrieval import (
    MemoryMatrix,
    TextRecord,
    select_newest_plus_similar,
)
from omniira_evennia.runtime import health

log = logging.getLogger("omniira.conversation")


@dataclass
class TurnInput:
    npc_id: int
    speaker_id: int
    context: PromptContext  # everything but memories and beliefs, which are retrieved here
    index: MemoryMatrix | None  # None until read in the worker (service._turn_in_worker)
    reflections: list[TextRecord] = field(default_factory=list)
    now: float | None = None
    tier: str = "voice"
    # Full-text ranked ids for the line (read on the reactor, see `fulltext.lexical_hits`);
    # None (paper mode, or no full-text index) means the paper's scorer.
    lexical: LexicalHits | None = None


@dataclass
class TurnResult:
    parsed: ParsedReply | None
    usage: Usage
    messages: list[dict[str, str]]
    remember_vectors: list[np.ndarray | None] = field(default_factory=list)
    commitment_vectors: list[np.ndarray | None] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.parsed is not None


def memory_lines(records) -> list[MemoryLine]:
    return [
        MemoryLine(
            text=r.value,
            feeling=r.feeling,
            heard_from=r.provenance_name if r.is_hearsay else None,
            importance=r.importance,
            untrusted=r.suspect,
        )
        for r in records
    ]


def retrieve_context(inp: TurnInput, conf: OmniiraSettings, query_vector) -> PromptContext:
    """Fill the prompt context's memory block for this turn."""
    records = select_by_mode(
        inp.index,
        query_vector,
        inp.lexical,
        inp.speaker_id,
        conf,
        now=inp.now,
        include_suspect=conf.SUSPECT_MEMORIES != "exclude",
    )
    ctx = inp.context
    ctx.memories = memory_lines(records)
    if conf.RETRIEVAL_MODE == "fused" and inp.lexical is not None:
        beliefs = select_newest_plus_fused(
            inp.reflections,
            query_vector,
            inp.lexical.beliefs,
            conf.REFLECTION_SLOTS,
            conf.SIMILARITY_FLOOR,
            conf.RRF_K,
        )
    else:
        beliefs = select_newest_plus_similar(
            inp.reflections, query_vector, conf.REFLECTION_SLOTS, conf.SIMILARITY_FLOOR
        )
    ctx.beliefs = [r.text for r in beliefs]
    return ctx


def run_turn(
    inp: TurnInput, conf: OmniiraSettings, client: LLMClient, embedder: Embedder | None = None
) -> TurnResult:
    """Retrieve, prompt, call the LLM, parse. Never raises for an LLM failure."""
    [query_vector] = embed_or_none([inp.context.message], embedder)
    ctx = retrieve_context(inp, conf, query_vector)
    messages = build_messages(ctx)
    try:
        reply = client.chat(inp.tier, messages, feature="conversation", npc_id=inp.npc_id)
    except LLMBudgetExceeded as err:
        # Over the voice budget: one try on the cheaper tier, then the in-character fallback.
        if not conf.FALLBACK_TIER or conf.FALLBACK_TIER == inp.tier:
            return TurnResult(parsed=None, usage=err.usage, messages=messages, error=str(err))
        try:
            reply = client.chat(
                conf.FALLBACK_TIER, messages, feature="conversation", npc_id=inp.npc_id
            )
        except LLMError as second:
            return TurnResult(
                parsed=None, usage=second.usage, messages=messages, error=f"{err}; {second}"
            )
    except LLMError as err:
        return TurnResult(parsed=None, usage=err.usage, messages=messages, error=str(err))

    parsed = parse_reply(reply.text)
    for problem in parsed.errors:
        log.info("npc #%s: %s", inp.npc_id, problem)
    parsed.text, broke = strip_character_breaks(parsed.text, inp.context.identity.name)
    if broke:
        health.incr("character_breaks")
    if not parsed.text:
        # The model said nothing a player could hear (only tags, or only junk).
        return TurnResult(
            parsed=None, usage=reply.usage, messages=messages, error="empty reply after tags"
        )
    remember_vectors = embed_or_none([t.value for t in parsed.remember], embedder)
    commitment_vectors = embed_or_none([t.summary for t in parsed.commitments], embedder)
    return TurnResult(
        parsed=parsed,
        usage=reply.usage,
        messages=messages,
        remember_vectors=remember_vectors,
        commitment_vectors=commitment_vectors,
    )
