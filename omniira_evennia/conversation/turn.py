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
from omniira_evennia.conversation import guard, plain_lines, remembered, repairs, topics, voice
from omniira_evennia.conversation.character_breaks import is_narration, strip_character_breaks
from omniira_evennia.conversation.extraction import third_person
from omniira_evennia.conversation.phrasing import own_name_as_i
from omniira_evennia.conversation.prompts import PinnedPrompt, PromptContext, build_messages, pin
from omniira_evennia.conversation.reminders import REMINDER, asked_again, mended_rather_than_asked
from omniira_evennia.conversation.tags import (
    ParsedReply,
    StructuredTurn,
    parse_reply,
    parse_structured_reply,
)

# The turn's input and its retrieval live in turn_context.py; their names stay importable
# from here (the service, gossip, `@memory why`, tests and games found them here before).
from omniira_evennia.conversation.turn_context import (  # noqa: F401
    TurnInput,
    memory_lines,
    pair_vectors,
    retrieve_context,
    retrieve_knowledge,
    turn_vectors,
    verbatim_lines,
)
from omniira_evennia.conversation.words import is_question, sentence_list
from omniira_evennia.knowledge import answers
from omniira_evennia.knowledge.guards import match as guard_match
from omniira_evennia.knowledge.guards import spoken
from omniira_evennia.llm.client import LLMBudgetExceeded, LLMClient, LLMError, Usage, schema_of
from omniira_evennia.memory.embeddings import Embedder, embed_or_none
from omniira_evennia.memory.selection import LineVectors
from omniira_evennia.runtime import health

log = logging.getLogger("omniira.conversation")


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


def their_words(ctx: PromptContext) -> list[str]:
    """The speaker's earlier lines in front of the NPC: from before, then this conversation's
    (those past the history's window too)."""
    said = [text for _, text in ctx.said] + list(ctx.earlier)
    return said + [t.text for t in ctx.history if t.role == "user"]


def known_to_npc(ctx: PromptContext) -> list[str]:
    """What the NPC has in front of it about the speaker's life: its memories and beliefs about
    them, and what their words state about themselves (topics.own_statements: their questions
    tell nothing). Another player's "means to win the archery contest" answers nothing about a
    newcomer's dream (held-out seed 91823 answered it with the town's roads)."""
    stated = [s for s in map(topics.own_statements, their_words(ctx)) if s]
    named = re.compile(rf"\b{re.escape(ctx.speaker_name)}\b", re.I) if ctx.speaker_name else None
    beliefs = [b for b in ctx.beliefs if named and named.search(b)]
    return [m.text for m in ctx.memories if m.about_speaker] + beliefs + stated


def answer_in_view(ctx: PromptContext) -> str | None:
    """What in front of the NPC answers a question about the speaker's own life (voice.
    answer_from): its trusted memories first, then the speaker's own earlier words."""
    trusted = [
        m.text
        for m in ctx.memories
        if m.about_speaker and not (m.untrusted or m.doubtful or m.heard_from)
    ]
    return topics.answer_from(ctx.message, trusted, their_words(ctx), ctx.speaker_name)


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
        [*seen, *ctx.others_present, *(m.text for m in ctx.memories), *ctx.beliefs]
        + their_words(ctx),
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
    # Its first statement must be the admission: "There is a temple in town. I don't know why
    # there is, but it is definitely worth seeing." invents it (held-out seed 74573).
    said = [s for s in sentence_list(text) if not is_question(s) and len(s.split()) > 2]
    first = said[0] if said else text
    if voice.admits_not_knowing(first) or answers.admits(first):
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


@dataclass
class LineNotes:
    """What the prompt's last line was told beside the player's words: a question about the
    speaker's life nothing answers (`topic`), what in view answers it (`answer`), claims
    against what the NPC knows (`doubts`), a question about the world nothing answers."""

    topic: str | None
    answer: str | None
    doubts: list
    unknown: str | None


def note_the_line(inp, ctx, conf, vectors, messages) -> LineNotes:
    """Add to the prompt's last line what the NPC does and does not know about what is asked,
    so the model need not guess (small models invent what they are not told they lack)."""
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
    return LineNotes(topic, answer, doubts, unknown)


def cleaned_reply(text: str, turn_format: str, inp: TurnInput, ctx: PromptContext):
    """One reply as the NPC's line: its notes parsed, then what is not the character speaking
    taken out, the speaker's own facts said back to them, and the line turned to the listener.
    Returns (the parsed reply, whether the character broke)."""
    candidate = parse_voice_reply(text, turn_format)
    # A note that quotes the retry's reminder is the prompt's words, not the speaker's.
    candidate.remember = [t for t in candidate.remember if not REMINDER.search(t.value)]
    for error in candidate.errors:
        log.info("npc #%s: %s", inp.npc_id, error)
    name, speaker = ctx.identity.name, ctx.speaker_name
    candidate.text, broke = strip_character_breaks(candidate.text, name, speaker)
    if broke:
        health.incr("character_breaks")
    candidate.text = repairs.without_hollow_agreement(candidate.text, ctx.message)
    candidate.text, claimed = guard.given_back(candidate.text, ctx)
    if claimed:
        health.incr("claims_given_back", claimed)
    candidate.text = repairs.to_the_listener(candidate.text, speaker, name)
    # Its own name said to the listener is mended here, not asked for again: "Your aunt's name
    # is Philippa, Lyra." is the answer (replayed held-out replies).
    candidate.text = repairs.unaddressed(candidate.text, name, speaker)
    candidate.text = repairs.own_name_as_mine(candidate.text, name, speaker)
    if not is_narration(candidate.text, name):  # "Maren smiles." is no line to say as "I"
        candidate.text = own_name_as_i(candidate.text, name, speaker)
    candidate.text = remembered.frame_said_plainly(candidate.text, speaker)
    return candidate, broke


@dataclass
class Heard:
    """The reply a turn settles on, what it cost, and what is still wrong with it."""

    parsed: ParsedReply
    usage: Usage
    problem: str | None
    broke: bool


def ask_until_heard(inp, conf, client, ctx, messages, turn_format, topic) -> Heard:
    """
    Ask the voice tier; a reply nobody could take as the NPC's answer is asked for once more
    with a reminder (unless the first took too long), its notes kept, and the better line of
    the two stands. Raises the LLMError of a first call that fails; a second that fails leaves
    the first reply.
    """
    schema = structured_turn_schema() if turn_format == "json" else None
    usage = parsed = problem = None
    for attempt in (1, 2):
        request = messages if attempt == 1 else asked_again(messages, ctx, problem or "")
        try:
            reply = _call(client, inp.tier, conf, inp, request, schema)
        except LLMError as err:
            if parsed is None:
                raise
            usage = _add_usage(usage, err.usage)
            break  # keep the first reply, such as it is
        usage = reply.usage if usage is None else _add_usage(usage, reply.usage)
        candidate, broke = cleaned_reply(reply.text, turn_format, inp, ctx)
        if guard.recites_the_prompt(candidate.text, request, guard.sayable(ctx)):
            # "Answer what the person talking to you just said in one to three short sentences,
            # ..." shown to a player (held-out seed 52391): the instructions, not a reply.
            health.incr("prompt_recited")
            candidate.text, broke = "", True
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
        if attempt == 1 and mended_rather_than_asked(parsed.text, ctx.message):
            health.incr("voice_slips_mended_in_place")
            break
        health.incr("voice_retries" if attempt == 1 else "voice_retries_failed")
        log.info("npc #%s: %s; asking again", inp.npc_id, problem)
    return Heard(parsed, usage, problem, broke)


def final_line(heard: Heard, ctx: PromptContext, conf: OmniiraSettings, notes: LineNotes) -> str:
    """The line the NPC says: a slip that is still there repaired, repeats dropped, and what
    the line's notes asked for said plainly when the reply did not say it."""
    text, topic, answer = heard.parsed.text, notes.topic, notes.answer
    if heard.problem and text:
        text = guard.repaired(text, heard.problem, ctx, topic, answer)
        text = repairs.unaddressed(text, ctx.identity.name, ctx.speaker_name)
    if text:
        text = guard.without_repeats(text, ctx, topic, answer)
    if not text and heard.broke and answer:
        # "I'm sorry, but I can't assist with that." to "Voss, what am I allergic to?", with the
        # wheat remembered (held-out seed 44207): what it remembers, not "I'm not sure".
        text = remembered.remembered_line(answer, ctx.speaker_name)
    if answer and text and not topics.gives_answer(text, answer, ctx.message, ctx.speaker_name):
        # "Yes, I remember your cat's name." and no name: the NPC says what it remembers.
        health.incr("answers_said_plainly")
        text = remembered.remembered_line(answer, ctx.speaker_name)
    text = plainly_unknown(text, ctx, conf) if notes.unknown else text
    text = doubted(text, notes.doubts, ctx) if notes.doubts else text
    text = guard.with_news_told(text, ctx)
    if not text and heard.broke:  # an assistant's refusal, and nothing else (seed 62903)
        text = guard.nothing_left(ctx)
    return text


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
    the first reply are kept (`ask_until_heard`). A sentence in which the NPC claims the
    speaker's own facts ("I am looking for my sister Odile") is said back to the speaker ("You
    are looking for ...").
    """
    if vectors is None:
        vectors = turn_vectors(inp.context, conf, embedder)
    query_vector = vectors.said
    guarded = guarded_turn(inp, conf, vectors)
    if guarded is not None:
        return guarded
    ctx = retrieve_context(inp, conf, vectors)
    turn_format = turn_format_of(conf, inp.tier)
    messages = build_messages(ctx, turn_format, inp.pinned)
    notes = note_the_line(inp, ctx, conf, vectors, messages)
    try:
        heard = ask_until_heard(inp, conf, client, ctx, messages, turn_format, notes.topic)
    except LLMError as err:
        return TurnResult(
            parsed=None,
            usage=err.usage,
            messages=messages,
            error=str(err),
            query_vector=query_vector,
        )
    parsed = heard.parsed
    parsed.text = final_line(heard, ctx, conf, notes)
    if turn_format == "json":
        _notes_about_the_speaker(parsed, ctx)
    if not parsed.text:
        # The model said nothing a player could hear (only tags, or only junk), twice.
        return TurnResult(
            parsed=None,
            usage=heard.usage,
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
        usage=heard.usage,
        messages=messages,
        remember_vectors=remember_vectors,
        commitment_vectors=commitment_vectors,
        query_vector=query_vector,
        pinned=pin(messages, ctx, inp.pinned),
        doubts=notes.doubts,
    )
