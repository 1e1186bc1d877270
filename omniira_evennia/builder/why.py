"""Why was this recalled? (`@memory why`, the why page): a turn's own retrieval, explained."""

from __future__ import annotations

from dataclasses import dataclass, field

from omniira_evennia.conf import get_settings
from omniira_evennia.conversation import service as conversations
from omniira_evennia.conversation.service import turn_input_for
from omniira_evennia.conversation.turn import world_unknown
from omniira_evennia.conversation.turn_context import retrieve_context, turn_vectors
from omniira_evennia.knowledge import answers
from omniira_evennia.knowledge.guards import match as guard_match
from omniira_evennia.memory import service as memory_service
from omniira_evennia.memory.selection import why_not
from omniira_evennia.models import Knowledge, Memory
from omniira_evennia.runtime.clock import current_game_day


@dataclass
class Recall:
    """What a turn would bring to mind for a question, and why (see `why`)."""

    memories: list[Memory]  # in the prompt, in prompt order
    explain: dict[int, dict]  # memory id -> lane ranks, fused score, multipliers
    considered: list[Memory]  # the best of the rest, by score
    said: list[tuple[str, str]]  # the verbatim lane: (when, the speaker's words)
    beliefs: list[str]
    searched: str | None = None  # the full-text query's words (pair-aware), None: no lexical lane
    embedded: str | None = None  # the text embedded for memories, if not the line as said
    missed: Memory | None = None  # the memory asked about with "not", when found
    why_not: dict | None = None  # where it fell (memory.selection.why_not), when asked
    # What the NPC knows that the line brought up (issue #25), best first, and why.
    knowledge: list[Knowledge] = field(default_factory=list)
    knowledge_explain: dict = field(default_factory=dict)
    withheld: list = field(default_factory=list)  # facts.Withheld: guarded, and why
    guard: str | None = None  # the guarded topic the line meets, and how, in words
    doubts: list = field(default_factory=list)  # contradiction.Contradiction
    unknown: str | None = None  # a world question nothing known answers: its words


def find_memory(npc, speaker, wanted: str) -> Memory | None:
    """The memory `wanted` names: "#12" or "12" (its id), or words in its value (about the
    speaker first, then about anyone; the newest that holds them all)."""
    wanted = (wanted or "").strip()
    digits = wanted.lstrip("#")
    if digits.isdigit():
        return Memory.objects.filter(npc=npc, id=int(digits)).first()
    rows = Memory.objects.filter(npc=npc)
    for word in wanted.split()[:8]:
        rows = rows.filter(value__icontains=word)
    return (
        rows.filter(subject=speaker).order_by("-learned_at").first()
        or rows.order_by("-learned_at").first()
    )


def why(npc, question: str, speaker, not_: str | None = None) -> Recall:
    """
    What `npc` would recall if `speaker` said `question` now: the real turn's gathering
    (`turn_input_for`) and retrieval (`retrieve_context`), with the retrieval's explanation;
    with `not_` (a memory id or words of it), also where that memory fell if it was not
    chosen (`memory.selection.why_not`). Nothing is stored and no LLM is called.
    """
    conf = get_settings()
    conversation_id = conversations.conversation_id_for(
        npc, speaker, conf.CONVERSATION_IDLE_SECONDS
    )
    turn_input = turn_input_for(npc, speaker, question, conversation_id, current_game_day())
    if turn_input.index is None:
        turn_input.index = memory_service.load_index(npc.id)
    vectors = turn_vectors(turn_input.context, conf)
    explain: dict = {}
    ctx = retrieve_context(turn_input, conf, vectors, explain=explain)
    chosen = explain.pop("chosen", [])
    embedded = explain.pop("embedded", None)
    known = explain.pop("knowledge", {"why": {}, "chosen": []})
    rows = Memory.objects.select_related("provenance", "subject").in_bulk(list(explain))
    rest = sorted(
        (mid for mid in explain if mid not in chosen and mid in rows),
        key=lambda mid: -explain[mid].get("score", 0.0),
    )
    missed, fell = None, None
    if not_:
        missed = find_memory(npc, speaker, not_)
        if missed is not None:
            fell = why_not(
                turn_input.index,
                missed.id,
                vectors.query,
                turn_input.lexical,
                speaker.id,
                conf,
                now=turn_input.now,
                explain=explain,
                chosen=chosen,
            )
        else:
            fell = {"stage": "not_found"}
    return Recall(
        memories=[rows[mid] for mid in chosen if mid in rows],
        explain=explain,
        considered=[rows[mid] for mid in rest[:5]],
        said=list(ctx.said),
        beliefs=list(ctx.beliefs),
        searched=turn_input.lexical.query if turn_input.lexical is not None else None,
        embedded=embedded,
        missed=missed,
        why_not=fell,
        **knowledge_recall(turn_input, ctx, conf, vectors, known),
    )


def knowledge_recall(turn_input, ctx, conf, vectors, known: dict) -> dict:
    """What `why` shows of the NPC's knowledge: the facts chosen and why, what is withheld
    from this speaker, a guarded topic the line meets, claims against it, an unknown."""
    view = turn_input.knowledge
    if view is None:
        return {}
    rows = Knowledge.objects.in_bulk(known["chosen"])
    hit = guard_match(ctx.message, view.guards, vectors.query, conf.KNOWLEDGE_GUARD_COSINE)
    doubts = answers.doubts(view, ctx.message, turn_input.now, (ctx.identity.name,))
    return dict(
        knowledge=[rows[i] for i in known["chosen"] if i in rows],
        knowledge_explain=known["why"],
        withheld=list(view.withheld),
        guard=f"{hit.guard.kind} {hit.guard.key!r}, by {hit.how}" if hit else None,
        doubts=doubts,
        unknown=None if doubts else world_unknown(turn_input, ctx, conf, vectors),
    )


def why_not_reason(fell: dict) -> str:
    """Where a memory fell, in words (`@memory why ... not ...` and the inspector's why page)."""
    stage = fell.get("stage")
    ranks = []
    if "dense_rank" in fell:
        ranks.append(f"meaning #{fell['dense_rank']} (cos {fell.get('cosine', 0):.2f})")
    if fell.get("no_vector"):
        ranks.append("no vector (re-embed it)")
    if "lexical_rank" in fell:
        searched = fell.get("lexical_searched") or ""
        found = f"#{fell['lexical_rank']}" if fell["lexical_rank"] else "not in its hits"
        ranks.append(f"full text {found} for {searched!r}")
    ranked = "; ".join(ranks)
    depth, floor = fell.get("depth"), fell.get("floor")
    return {
        "chosen": f"it was chosen after all ({ranked})",
        "not_found": "no such memory: forgotten, erased, or the words match none",
        "other_subject": "it is about someone else, and a turn recalls only the speaker's",
        "expired": "it has expired",
        "suspect_excluded": "it is marked suspect, and SUSPECT_MEMORIES is 'exclude'",
        "outside_recency_window": (
            f"it is among the newest (#{fell.get('recency_rank')}), but was learned more than "
            f"{fell.get('window_hours')} h ago, outside the recency window, and neither lane "
            f"ranked it within {depth} ({ranked})"
        ),
        "not_in_lanes": f"within neither lane's depth of {depth}: {ranked}",
        "under_similarity_floor": (
            f"its meaning is too far from the line (cos {fell.get('cosine', 0):.2f} at or "
            f"below the floor {floor}) and the full text did not find it ({ranked})"
        ),
        "outranked": (
            f"outranked at fusion: its score {fell.get('score', 0):.4f} is below the last one "
            f"taken, {fell.get('last_taken') or 0:.4f} ({ranked})"
        ),
        "same_key": "another memory with the same key about them was taken instead",
        "cut_by_budget": (
            f"chosen, then cut: the prompt's budget for memories ({fell.get('cut_by_budget')} "
            "characters, MEMORY_PROMPT_CHARS) was spent"
        ),
    }.get(stage, str(stage))


def why_text(npc, question: str, speaker, not_: str | None = None) -> str:
    """`why` as `@memory why` shows it."""
    recall = why(npc, question, speaker, not_)
    out = [f"|w{npc.key}|n, asked by {speaker.key}: {question!r}"]
    if recall.why_not is not None:
        named = f"#{recall.missed.id} {recall.missed.value}" if recall.missed else repr(not_)
        out.append(f"Why not {named}?\n  {why_not_reason(recall.why_not)}")
    if recall.searched is not None:
        out.append(f"Full-text query: {recall.searched or '(no words left)'}")
    if recall.embedded:
        out.append(f"Embedded as: {recall.embedded!r}")
    out.append(f"In the prompt ({len(recall.memories)} memories, oldest first):")
    out += [_why_line(m, recall.explain.get(m.id, {})) for m in recall.memories] or ["  (none)"]
    if recall.said:
        out.append(f"{speaker.key}'s own earlier words (the verbatim lane):")
        out += [f"  {when}: {text}" for when, text in recall.said]
    if recall.beliefs:
        out.append("Beliefs:")
        out += [f"  {belief}" for belief in recall.beliefs]
    if recall.considered:
        out.append("Considered, not chosen (best first):")
        out += [_why_line(m, recall.explain.get(m.id, {})) for m in recall.considered]
    out += knowledge_why_lines(recall)
    return "\n".join(out)


def knowledge_why_lines(recall: Recall) -> list[str]:
    """The knowledge part of `@memory why`."""
    out = []
    if recall.guard:
        out.append(f"The line meets the guarded topic {recall.guard}: the NPC says its line.")
    if recall.knowledge:
        out.append(f"What it knows, in the prompt ({len(recall.knowledge)} facts, best first):")
        for row in recall.knowledge:
            why = knowledge_reason(recall.knowledge_explain.get(row.id, {}))
            out.append(f"  |w#{row.id}|n [{row.category}] {row.text}\n      |x{why}|n")
    for item in recall.withheld:
        out.append(f"  withheld #{item.id} {item.key} ({item.guard}): {item.reason}")
    for doubt in recall.doubts:
        out.append(
            f"Against what it knows: {doubt.claim!r} ({doubt.reason}; #{doubt.knowledge_id}): "
            "answered with doubt, kept as an uncertain memory"
        )
    if recall.unknown:
        out.append(f"Nothing it knows answers {recall.unknown!r}: it says it does not know.")
    return out


def knowledge_reason(why: dict) -> str:
    """One fact's explanation in words (`@memory why` and the inspector's why page)."""
    if why.get("lane") == "standing":
        return f"standing (importance {why.get('importance')})"
    lanes = [
        f"{label} #{why[f'{name}_rank']}"
        for name, label in (("dense", "meaning"), ("lexical", "full text"), ("hint", "category"))
        if f"{name}_rank" in why
    ]
    parts = [" + ".join(lanes) or "no lane"]
    if "cosine" in why:
        parts.append(f"cos {why['cosine']:.2f}")
    if "rrf" in why:
        parts.append(f"rrf {why['rrf']:.4f} x importance and confidence {why['weight_x']:.2f}")
    parts.append(f"= {why.get('score', 0):.4f}")
    return ", ".join(parts)


def _why_line(memory: Memory, why: dict) -> str:
    return f"  |w#{memory.id}|n {memory.value}\n      |x{why_reason(why)}|n"


def why_reason(why: dict) -> str:
    """One memory's explanation in words (`@memory why` and the inspector's why page)."""
    if why.get("lane") == "recency":
        reason = f"recency #{why['recency_rank']} (among the newest)"
    else:
        lanes = [
            f"{name} #{why[f'{name}_rank']}"
            for name in ("dense", "lexical", "similarity")
            if f"{name}_rank" in why
        ]
        parts = [" + ".join(lanes) or "no lane"]
        if "cosine" in why:
            parts.append(f"cos {why['cosine']:.2f}")
        if "fused" in why:
            parts.append(f"rrf {why['fused']:.4f}")
        parts.append(f"x imp {why['importance_x']:.2f}")
        if why.get("hearsay_x", 1.0) != 1.0:
            parts.append(f"x hearsay {why['hearsay_x']}")
        if why.get("feeling_x", 1.0) != 1.0:
            parts.append(f"x feeling {why['feeling_x']}")
        parts.append(f"= {why.get('score', 0):.4f}")
        reason = ", ".join(parts)
    return reason


def why_rows(memories, explain) -> list[dict]:
    """Each memory with its lane ranks, fused score and multipliers, as the why page shows."""
    rows = []
    for memory in memories:
        why = explain.get(memory.id, {})
        lanes = [
            name
            for name, key in (("meaning", "dense_rank"), ("full text", "lexical_rank"))
            if key in why
        ]
        if "similarity_rank" in why:
            lanes.append("meaning (paper)")
        rows.append(
            {
                "memory": memory,
                "lane": (
                    "newest (recency lane)"
                    if why.get("lane") == "recency"
                    else " + ".join(lanes) or "no lane"
                ),
                "recency": why.get("recency_rank"),
                "dense": why.get("dense_rank", why.get("similarity_rank")),
                "lexical": why.get("lexical_rank"),
                "cosine": why.get("cosine"),
                "fused": why.get("fused"),
                "importance": why.get("importance_x"),
                "hearsay": why.get("hearsay_x"),
                "feeling": why.get("feeling_x"),
                "score": why.get("score"),
                "reason": why_reason(why),
            }
        )
    return rows


def why_page(npc, question: str, speaker, missed: str | None = None) -> dict:
    """What the inspector's why page shows for a question: the recall, its chosen and
    considered memories as rows, the knowledge with its reasons, where a missed memory fell."""
    recall = why(npc, question, speaker, missed)
    shown = {
        "speaker": speaker,
        "recall": recall,
        "chosen": why_rows(recall.memories, recall.explain),
        "considered": why_rows(recall.considered, recall.explain),
        "known": [
            (row, knowledge_reason(recall.knowledge_explain.get(row.id, {})))
            for row in recall.knowledge
        ],
    }
    if recall.why_not is not None:
        shown.update(
            why_not_stage=recall.why_not["stage"].replace("_", " "),
            why_not_reason=why_not_reason(recall.why_not),
        )
    return shown
