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
import re
from dataclasses import dataclass, field

import numpy as np

from omniira_evennia.conf import OmniiraSettings
from omniira_evennia.conversation import guard, plain_lines, repairs, topics, voice
from omniira_evennia.conversation.character_breaks import strip_character_breaks
from omniira_evennia.conversation.claims import give_back_claims
from omniira_evennia.conversation.extraction import third_person
from omniira_evennia.conversation.prompts import (
    MemoryLine,
    PinnedPrompt,
    PromptContext,
    build_messages,
    pin,
)
from omniira_evennia.conversation.reminders import REMINDER, asked_again
from omniira_evennia.conversation.tags import (
    ParsedReply,
    StructuredTurn,
    parse_reply,
    parse_structured_reply,
)
from omniira_evennia.knowledge import answers
from omniira_evennia.knowledge.guards import match as guard_match
from omniira_evennia.knowledge.guards import spoken
from omniira_evennia.knowledge.selection import KnowledgeView, select_knowledge
from omniira_evennia.llm.client import (
    LLMBudgetExceeded,
    LLMClient,
    LLMError,
    Usage,
    schema_of,
)
from omniira_evennia.memory.embeddings import Embedder, embed_or_none
from omniira_evennia.memory.fusion import LexicalHits, select_newest_plus_fused
from omniira_evennia.memory.retrieval import (
    MemoryMatrix,
    TextRecord,
    select_newest_plus_similar,
)
from omniira_evennia.memory.selection import LineVectors, line_vectors, name_free, select_for_line
from omniira_evennia.memory.verbatim import SaidLine, select_said, when, words
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
    # The verbatim lane's candidates: the speaker's earlier lines (conversation/store.said_lines), and the
    # game day they are dated against.
    said_lines: list[SaidLine] = field(default_factory=list)
    today: int = 0
    # How this conversation's last request began (None: its first line, or NPC talk).
    pinned: PinnedPrompt | None = None
    # What the NPC knows and may tell this speaker (issue #25; None: it knows nothing).
    knowledge: KnowledgeView | None = None


@dataclass
class TurnResult:
    parsed: ParsedReply | None
    usage: Usage
    messages: list[dict[str, str]]
    remember_vectors: list[np.ndarray | None] = field(default_factory=list)
    commitment_vectors: list[np.ndarray | None] = field(default_factory=list)
    error: str | None = None
    query_vector: np.ndarray | None = None  # the speaker's line, kept for the verbatim lane
    pinned: PinnedPrompt | None = None  # how the conversation's next request starts
    # The line's claims against what the NPC knows (knowledge/contradiction.py), kept as
    # uncertain memories when the turn is written.
    doubts: list = field(default_factory=list)

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
            doubtful=r.uncertain,
        )
        for r in records
    ]


def retrieve_context(
    inp: TurnInput, conf: OmniiraSettings, vectors, explain: dict | None = None
) -> PromptContext:
    """
    Fill the prompt context's memory block for this turn, by the one retrieval path
    (`memory.selection`, shared with `npc.memory.recall` and `@memory why`). `vectors` is the
    line's `LineVectors` (or the line's own vector, and the name-free one is made here).
    `explain` (a dict) is filled with why each memory was considered, `explain["chosen"]` with
    the ids in the prompt, in order, and `explain["embedded"]` with the name-free text.
    """
    if not isinstance(vectors, LineVectors):
        vectors = pair_vectors(inp.context, conf, vectors)
    if explain is not None and vectors.embedded:
        explain["embedded"] = vectors.embedded
    records = select_for_line(
        inp.index, vectors.query, inp.lexical, inp.speaker_id, conf, now=inp.now, explain=explain
    )
    if explain is not None:
        explain["chosen"] = [r.id for r in records]
    ctx = inp.context
    ctx.memories = memory_lines(records)
    if conf.RETRIEVAL_MODE == "fused" and inp.lexical is not None:
        beliefs = select_newest_plus_fused(
            inp.reflections,
            vectors.query,
            inp.lexical.beliefs,
            conf.REFLECTION_SLOTS,
            conf.SIMILARITY_FLOOR,
            conf.RRF_K,
        )
    else:
        beliefs = select_newest_plus_similar(
            inp.reflections, vectors.query, conf.REFLECTION_SLOTS, conf.SIMILARITY_FLOOR
        )
    ctx.beliefs = [r.text for r in beliefs]
    ctx.said = verbatim_lines(inp, conf, vectors.said, ctx)
    retrieve_knowledge(inp, conf, vectors, explain)
    return ctx


def retrieve_knowledge(inp: TurnInput, conf: OmniiraSettings, vectors, explain=None) -> None:
    """The knowledge block for this line (knowledge/selection.py, the memories' scorer);
    `explain["knowledge"]` says why each fact was considered and which were chosen."""
    ctx, known = inp.context, {} if explain is not None else None
    records = select_knowledge(
        inp.knowledge, vectors.query, ctx.message, conf, now=inp.now, explain=known
    )
    recalled = answers.prompt_lines(records, inp.knowledge)
    ctx.knowledge, ctx.wont_discuss = recalled.lines, recalled.wont_discuss
    if explain is not None:
        explain["knowledge"] = {"why": known, "chosen": [r.id for r in records]}


def pair_vectors(ctx: PromptContext, conf: OmniiraSettings, vector) -> LineVectors:
    """
    `LineVectors` from the line's own vector: the name-free form (`selection.name_free`) is
    embedded here. `vector` stays the query if the line names neither, or embedding fails.
    """
    stripped = name_free(ctx.message, {ctx.identity.name, ctx.speaker_name}, conf)
    if vector is None or stripped is None:
        return LineVectors(said=vector, query=vector)
    [query] = embed_or_none([stripped])
    if query is None:
        return LineVectors(said=vector, query=vector)
    return LineVectors(said=vector, query=query, embedded=stripped)


def turn_vectors(ctx: PromptContext, conf: OmniiraSettings, embedder=None) -> LineVectors:
    """The line's vectors for a turn: as said and name-free, in one embedder call."""
    return line_vectors(ctx.message, {ctx.identity.name, ctx.speaker_name}, conf, embedder)


def verbatim_lines(inp: TurnInput, conf: OmniiraSettings, query_vector, ctx) -> list:
    """The speaker's own earlier words for this line, minus what a memory already says."""
    if not conf.VERBATIM_SLOTS or not inp.said_lines:
        return []
    chosen = select_said(
        inp.said_lines,
        ctx.message,
        query_vector,
        limit=conf.VERBATIM_SLOTS,
        floor=conf.VERBATIM_FLOOR,
        names={ctx.identity.name, ctx.speaker_name},
        include_suspect=conf.SUSPECT_MEMORIES != "exclude",
    )
    distilled = [set(words(m.text)) for m in ctx.memories]
    return [
        (when(line.game_day, inp.today), line.text)
        for line in chosen
        if not any(_same_fact(set(words(line.text)), known) for known in distilled)
    ]


def _same_fact(said: set[str], known: set[str]) -> bool:
    """A line a distilled memory already carries (most of its words are in the memory)."""
    return bool(said) and len(said & known) >= 0.8 * len(said)


def structured_turn_schema() -> dict:
    """
    The structured turn's schema, from `tags.StructuredTurn` (`schema_of`), with only the line
    and the notes required: a small model writes `"opinion": null, "concern": null,
    "commitment": null` into every reply otherwise, about 12 tokens of nothing. (The entries
    themselves keep every field required.)
    """
    schema = schema_of(StructuredTurn)
    schema["required"] = ["say", "remember"]
    return schema


def turn_format_of(conf: OmniiraSettings, tier: str) -> str:
    """The tier's `turn_format`: "tags" (inline tags) or "json" (a structured turn)."""
    settings = conf.TIERS.get(tier)
    return settings.turn_format if settings is not None else "tags"


def parse_voice_reply(text: str, turn_format: str) -> ParsedReply:
    """A voice reply's notes and spoken line, whichever form the tier asked for."""
    return parse_structured_reply(text) if turn_format == "json" else parse_reply(text)


def known_to_npc(ctx: PromptContext) -> list[str]:
    """What the NPC has in front of it about the speaker: memories, beliefs, their words."""
    return (
        [m.text for m in ctx.memories]
        + list(ctx.beliefs)
        + [text for _, text in ctx.said]
        + [t.text for t in ctx.history if t.role == "user"]
    )


def answer_in_view(ctx: PromptContext) -> str | None:
    """What in front of the NPC answers a question about the speaker's own life (voice.
    answer_from): its trusted memories first, then the speaker's own earlier words."""
    trusted = [m.text for m in ctx.memories if not (m.untrusted or m.doubtful or m.heard_from)]
    said = [text for _, text in ctx.said] + [t.text for t in ctx.history if t.role == "user"]
    return topics.answer_from(ctx.message, trusted, said, ctx.speaker_name)


def _merge_notes(into: ParsedReply, first: ParsedReply) -> None:
    """Keep the notes of a reply that was asked again: a bare tag is not lost with its line."""
    keys = {t.key for t in into.remember}
    into.remember += [t for t in first.remember if t.key not in keys]
    into.opinions = into.opinions or first.opinions
    into.concerns = into.concerns or first.concerns
    into.commitments = into.commitments or first.commitments
    into.errors = first.errors + into.errors


def _notes_about_the_speaker(parsed: ParsedReply, ctx: PromptContext) -> None:
    """
    A structured turn's notes in the form a memory takes: one in the speaker's own voice ("I
    cannot eat honey") is said about them by name, as memories are shown; a fragment that
    names nobody ("midwife") is dropped (the conversation-end review writes the fact
    properly). Whether a note rests on what the speaker said is the write policy's check
    (memory/grounding.py), made when it is written.
    """
    notes = [
        t.model_copy(update={"value": third_person(t.value, ctx.speaker_name)})
        for t in parsed.remember
    ]
    name = re.compile(rf"\b{re.escape(ctx.speaker_name)}\b", re.IGNORECASE)
    kept = [t for t in notes if name.search(t.value)]
    if len(kept) < len(notes):
        health.incr("notes_unnamed", len(notes) - len(kept))
    parsed.remember = kept


def _add_usage(total: Usage, more: Usage) -> Usage:
    total.tokens_in += more.tokens_in
    total.tokens_out += more.tokens_out
    total.latency_ms += more.latency_ms
    total.cost_usd += more.cost_usd
    return total


def guarded_turn(inp: TurnInput, conf: OmniiraSettings, vectors) -> TurnResult | None:
    """A line about a topic the NPC will not discuss, or a secret it keeps with a line of its
    own (knowledge/guards.py): the builder's line, said without an LLM call."""
    view = inp.knowledge
    if view is None or not view.guards:
        return None
    hit = guard_match(inp.context.message, view.guards, vectors.query, conf.KNOWLEDGE_GUARD_COSINE)
    if hit is None or not hit.reply:
        return None
    health.incr(f"knowledge_guarded_{hit.guard.kind}")
    log.info("npc #%s: %s %s met by %s", inp.npc_id, hit.guard.kind, hit.guard.key, hit.how)
    text = spoken(hit.reply, inp.context.identity.name, inp.context.speaker_name)
    return TurnResult(
        parsed=ParsedReply(text=text),
        usage=None,
        messages=[],
        query_vector=vectors.said,
        pinned=inp.pinned,
    )


def world_unknown(inp: TurnInput, ctx: PromptContext, conf: OmniiraSettings, vectors):
    """What a question about the world asks that nothing the NPC knows or sees answers
    (knowledge/answers.unanswered), or None."""
    ident = ctx.identity
    seen = [ident.role, ident.personality, ident.duty, ctx.place, ctx.place_description]
    return answers.unanswered(
        ctx.message,
        inp.knowledge,
        [*seen, *ctx.others_present, *known_to_npc(ctx)],
        vectors.query,
        conf,
        now=inp.now,
        names={ident.name, ctx.speaker_name},
    )


def knowledge_notes(inp, ctx, conf, vectors, messages, topic) -> tuple[list, str | None]:
    """What the prompt's last line says of the NPC's knowledge: a claim against it is to be
    answered with doubt; a question about the world nothing known answers, plainly. Returns
    (the claims, the unanswered question's words)."""
    doubts = answers.doubts(inp.knowledge, ctx.message, inp.now, (ctx.identity.name,))
    if doubts:
        messages[-1]["content"] += "\n" + answers.doubt_note(doubts, ctx.speaker_name)
    unknown = None if topic or doubts else world_unknown(inp, ctx, conf, vectors)
    if unknown:
        messages[-1]["content"] += "\n" + answers.unknown_note(ctx.speaker_name)
    return doubts, unknown


def plainly_unknown(text: str, ctx: PromptContext, conf: OmniiraSettings) -> str:
    """A reply to an unanswered question about the world that does not admit it becomes the
    builder's KNOWLEDGE_UNKNOWN_LINE (nothing the NPC says can then be invented)."""
    if not text or not conf.KNOWLEDGE_UNKNOWN_LINE:
        return text
    if voice.admits_not_knowing(text) or answers.admits(text):
        return text
    health.incr("world_unknown_answered_plainly")
    return spoken(conf.KNOWLEDGE_UNKNOWN_LINE, ctx.identity.name, ctx.speaker_name)


def doubted(text: str, doubts: list, ctx: PromptContext) -> str:
    """A reply that took a claim against what the NPC knows as true ("the stalls do indeed
    open at dusk") becomes the NPC's doubt, with what it knows (answers.doubting_line)."""
    if not text or answers.disputes(text, doubts[0]):
        return text
    health.incr("claims_answered_with_doubt")
    return answers.doubting_line(doubts[0], ctx.speaker_name, ctx.identity.name)


def _call(client, tier, conf, inp, messages, schema):
    """The voice call, with one try on FALLBACK_TIER when the tier is over its budget."""
    # A player's turns count against their share of the NPC's day (game-driven talk does not).
    speaker_id = None if inp.context.speaker_is_npc else inp.speaker_id
    try:
        return client.chat(
            tier,
            messages,
            feature="conversation",
            npc_id=inp.npc_id,
            speaker_id=speaker_id,
            json_schema=schema,
        )
    except LLMBudgetExceeded as err:
        # Over the voice budget: one try on the cheaper tier, then the in-character fallback.
        if not conf.FALLBACK_TIER or conf.FALLBACK_TIER == tier:
            raise
        try:
            return client.chat(
                conf.FALLBACK_TIER,
                messages,
                feature="conversation",
                npc_id=inp.npc_id,
                speaker_id=speaker_id,
                json_schema=schema,
            )
        except LLMError as second:
            raise LLMError(f"{err}; {second}", second.usage) from second


def run_turn(
    inp: TurnInput,
    conf: OmniiraSettings,
    client: LLMClient,
    embedder: Embedder | None = None,
    *,
    vectors: LineVectors | None = None,
    embed_notes: bool = True,
) -> TurnResult:
    """
    Retrieve, prompt, call the LLM, parse. Never raises for an LLM failure.

    A reply nobody could take as the NPC's answer (nothing left after its tags, narration only,
    or the speaker's own line echoed) is asked for once more with a reminder; notes written in
    the first reply are kept. A sentence in which the NPC claims the speaker's own facts ("I am
    looking for my sister Odile") is said back to the speaker ("You are looking for ...").
    """
    if vectors is None:
        vectors = turn_vectors(inp.context, conf, embedder)
    query_vector = vectors.said
    guarded = guarded_turn(inp, conf, vectors)
    if guarded is not None:
        return guarded
    ctx = retrieve_context(inp, conf, vectors)
    turn_format = turn_format_of(conf, inp.tier)
    schema = structured_turn_schema() if turn_format == "json" else None
    messages = build_messages(ctx, turn_format, inp.pinned)
    # A question about the speaker's own life nothing here answers: the prompt says so.
    topic = topics.unknown_topic(ctx.message, known_to_npc(ctx)) or topics.someone_unknown(
        ctx.message,
        "\n".join(m["content"] for m in messages[:-1]),  # all but the line itself
        {ctx.identity.name, ctx.speaker_name},
    )
    if topic:
        messages[-1]["content"] += "\n" + topics.unknown_note(topic, ctx.speaker_name)
    answer = None if topic else answer_in_view(ctx)
    if answer:
        messages[-1]["content"] += "\n" + topics.answer_note(answer, ctx.speaker_name)
    doubts, unknown = knowledge_notes(inp, ctx, conf, vectors, messages, topic)
    said = [ctx.message] + [t.text for t in ctx.history if t.role == "user"]
    ident = ctx.identity
    own = " ".join((ident.name, ident.role, ident.personality, ident.duty))
    usage = None
    parsed = None
    problem = None
    for attempt in (1, 2):
        request = messages if attempt == 1 else asked_again(messages, ctx, problem or "")
        try:
            reply = _call(client, inp.tier, conf, inp, request, schema)
        except LLMError as err:
            if parsed is None:
                return TurnResult(
                    parsed=None,
                    usage=err.usage,
                    messages=messages,
                    error=str(err),
                    query_vector=query_vector,
                )
            usage = _add_usage(usage, err.usage)
            break  # keep the first reply, such as it is
        usage = reply.usage if usage is None else _add_usage(usage, reply.usage)
        candidate = parse_voice_reply(reply.text, turn_format)
        # A note that quotes the retry's reminder is the prompt's words, not the speaker's.
        candidate.remember = [t for t in candidate.remember if not REMINDER.search(t.value)]
        for problem in candidate.errors:
            log.info("npc #%s: %s", inp.npc_id, problem)
        candidate.text, broke = strip_character_breaks(
            candidate.text, ctx.identity.name, ctx.speaker_name
        )
        if broke:
            health.incr("character_breaks")
        candidate.text, claimed = give_back_claims(
            candidate.text,
            said,
            [m.text for m in ctx.memories],
            ctx.speaker_name,
            own,
            asked_about_npc=voice.about_the_npc(ctx.message),
        )
        if claimed:
            health.incr("claims_given_back", claimed)
        candidate.text = repairs.to_the_listener(
            candidate.text, ctx.speaker_name, ctx.identity.name
        )
        if parsed is not None:
            _merge_notes(candidate, parsed)
            if guard.voice_problem(candidate, ctx, topic) and guard.badness(
                parsed.text, ctx, topic
            ) < guard.badness(candidate.text, ctx, topic):
                candidate.text = parsed.text  # the second try was worse: the first stands
        parsed = candidate
        problem = guard.voice_problem(parsed, ctx, topic)
        if problem is None or guard.too_slow_to_ask_again(reply.usage, conf, inp.tier):
            break
        health.incr("voice_retries" if attempt == 1 else "voice_retries_failed")
        log.info("npc #%s: %s; asking again", inp.npc_id, problem)
    if problem and parsed is not None and parsed.text:
        parsed.text = guard.repaired(parsed.text, problem, ctx, topic, answer)
        parsed.text = repairs.unaddressed(parsed.text, ctx.identity.name, ctx.speaker_name)
    if parsed is not None and parsed.text:
        parsed.text = guard.without_repeats(parsed.text, ctx, topic, answer)
    if (
        answer
        and parsed.text
        and not topics.gives_answer(parsed.text, answer, ctx.message, ctx.speaker_name)
    ):
        # "Yes, I remember your cat's name." and no name: the NPC says what it remembers.
        health.incr("answers_said_plainly")
        parsed.text = plain_lines.remembered_line(answer, ctx.speaker_name)
    parsed.text = plainly_unknown(parsed.text, ctx, conf) if unknown else parsed.text
    parsed.text = doubted(parsed.text, doubts, ctx) if doubts else parsed.text
    parsed.text = guard.with_news_told(parsed.text, ctx)
    if turn_format == "json":
        _notes_about_the_speaker(parsed, ctx)
    if not parsed.text and broke:  # an assistant's refusal, and nothing else (seed 62903)
        parsed.text = guard.nothing_left(ctx)
    if not parsed.text:
        # The model said nothing a player could hear (only tags, or only junk), twice.
        return TurnResult(
            parsed=None,
            usage=usage,
            messages=messages,
            error="empty reply after tags",
            query_vector=query_vector,
        )
    remember_vectors, commitment_vectors = [], []
    if embed_notes:  # else the caller embeds them after the reply is said
        remember_vectors = embed_or_none([t.value for t in parsed.remember], embedder)
        commitment_vectors = embed_or_none([t.summary for t in parsed.commitments], embedder)
    return TurnResult(
        parsed=parsed,
        usage=usage,
        messages=messages,
        remember_vectors=remember_vectors,
        commitment_vectors=commitment_vectors,
        query_vector=query_vector,
        pinned=pin(messages, ctx, inp.pinned),
        doubts=doubts,
    )
