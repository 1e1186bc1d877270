"""
What a turn starts from: its input (`TurnInput`, gathered on the reactor), and what retrieval
puts in front of the NPC for the line: the memories and beliefs (`memory.selection`, the one
retrieval path), the speaker's own earlier words (the verbatim lane) and what the NPC knows
(`knowledge.selection`). Plain data in and out, as `turn.run_turn`, which calls it; gossip and
`@memory why` call it too (what a turn would see).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from omniira_evennia.conf import OmniiraSettings
from omniira_evennia.conversation.plain_lines import own_life_fact
from omniira_evennia.conversation.prompts import MemoryLine, PinnedPrompt, PromptContext
from omniira_evennia.conversation.wares import asks_of_its_wares
from omniira_evennia.knowledge import answers
from omniira_evennia.knowledge.facts import KnowledgeLine
from omniira_evennia.knowledge.selection import KnowledgeView, select_knowledge
from omniira_evennia.memory.embeddings import embed_or_none
from omniira_evennia.memory.fusion import LexicalHits, select_newest_plus_fused
from omniira_evennia.memory.retrieval import (
    MemoryMatrix,
    TextRecord,
    select_newest_plus_similar,
)
from omniira_evennia.memory.selection import LineVectors, line_vectors, name_free, select_for_line
from omniira_evennia.memory.verbatim import SaidLine, select_said, when, words


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


def memory_lines(records, speaker_id: int | None = None) -> list[MemoryLine]:
    """The chosen memories as the prompt shows them; with `speaker_id`, each says whether it is
    about the speaker (another player's plans answer nothing about this one's)."""
    return [
        MemoryLine(
            text=r.value,
            feeling=r.feeling,
            heard_from=r.provenance_name if r.is_hearsay else None,
            importance=r.importance,
            untrusted=r.suspect,
            doubtful=r.uncertain,
            about_speaker=speaker_id is None or r.subject_id == speaker_id,
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
    ctx.memories = memory_lines(records, inp.speaker_id)
    ctx.out_of_world = list(conf.OUT_OF_WORLD_WORDS)
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


OWN_WARES_SHOWN = 4  # of its own wares, the most a price question brings in beside the chosen


def retrieve_knowledge(inp: TurnInput, conf: OmniiraSettings, vectors, explain=None) -> None:
    """The knowledge block for this line (knowledge/selection.py, the memories' scorer);
    `explain["knowledge"]` says why each fact was considered and which were chosen."""
    ctx, known = inp.context, {} if explain is not None else None
    records = select_knowledge(
        inp.knowledge, vectors.query, ctx.message, conf, now=inp.now, explain=known
    )
    recalled = answers.prompt_lines(records, inp.knowledge)
    ctx.knowledge, ctx.wont_discuss = recalled.lines, recalled.wont_discuss
    ctx.own_life = answers.own_life(inp.knowledge, inp.now)
    # Asked of its own life, the fact that answers it is in front of it, chosen or not ("I'm
    # sorry, I don't know the answer to that." to "How long have you been here, Wren?" and
    # "over fifty years" from Lyra: held-out seed 81737).
    asked = own_life_fact(ctx.message, ctx.own_life)
    if asked and asked not in {k.text for k in ctx.knowledge}:
        ctx.knowledge.append(KnowledgeLine(asked, "people", own=True))
    if asks_of_its_wares(ctx.message):
        # Asked its prices, its own wares, chosen or not: "For the tea, two copper a twist" from
        # Voss, with Wren's prices chosen for the line and not his (held-out seed 39119).
        shown = {k.text for k in ctx.knowledge}
        wares = answers.own_trade(inp.knowledge, inp.now)[:OWN_WARES_SHOWN]
        ctx.knowledge += [KnowledgeLine(t, "trade") for t in wares if t not in shown]
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
