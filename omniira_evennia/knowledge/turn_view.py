"""What a turn may show a speaker of what the NPC knows (`view_for`), and claims noted on it."""

from __future__ import annotations

import logging
import time

from omniira_evennia.conf import get_settings
from omniira_evennia.knowledge import answers
from omniira_evennia.knowledge.contradiction import Contradiction, stem
from omniira_evennia.knowledge.facts import (
    ConditionError,
    Guard,
    KnowledgeRecord,
    Withheld,
    holds,
    parse_condition,
)
from omniira_evennia.knowledge.scopes import rooms_of, tokens_for
from omniira_evennia.knowledge.selection import KnowledgeIndex, KnowledgeView
from omniira_evennia.knowledge.store import index_for, npc_names
from omniira_evennia.memory import service as memory_service
from omniira_evennia.memory.fusion import without_names
from omniira_evennia.memory.service import Note, write_note
from omniira_evennia.models import Knowledge, Relationship, Source
from omniira_evennia.runtime import health

log = logging.getLogger("omniira_evennia.knowledge.service")  # as before the split


_conditions: dict[str, list] = {}


def _condition(text: str) -> list:
    if text not in _conditions:
        try:
            _conditions[text] = parse_condition(text)
        except ConditionError:  # written before a check existed: never told
            _conditions[text] = []
    return _conditions[text]


def _lock_check(speaker):
    from evennia.locks.lockhandler import check_lockstring

    def check(lock: str) -> bool:
        try:
            return bool(check_lockstring(speaker, f"knowledge:{lock}"))
        except Exception:  # a lock function that fails tells nothing
            log.warning("knowledge condition lock:%s could not be checked", lock)
            return False

    return check


def relationship_of(npc, speaker) -> dict:
    """The NPC's dimensions towards `speaker` (empty: none yet, the defaults apply)."""
    if speaker is None:
        return {}
    dimensions = Relationship.DIMENSIONS
    row = (
        Relationship.objects.filter(npc_id=npc.id, subject_id=speaker.id)
        .values_list(*dimensions)
        .first()
    )
    return dict(zip(dimensions, row)) if row else {}


def may_tell(npc, speaker, record: KnowledgeRecord, relationship=None) -> tuple[bool, str]:
    """Whether guarded `record` holds for `speaker` (its condition), and why, in words."""
    if speaker is None:
        return False, "no speaker"
    if relationship is None:
        relationship = relationship_of(npc, speaker)
    return holds(_condition(record.condition), relationship, _lock_check(speaker))


def _guard(index: KnowledgeIndex, record: KnowledgeRecord, conf) -> Guard:
    reply = record.reply or (
        conf.KNOWLEDGE_WONT_DISCUSS_LINE if record.guard == "wont_discuss" else ""
    )
    words = tuple(t.lower() for t in record.topics) or (
        (record.text.lower(),) if record.guard == "wont_discuss" else ()
    )
    return Guard(
        id=record.id,
        kind=record.guard,
        key=record.key,
        words=words,
        reply=reply,
        vector=index.topic_vectors.get(record.id),
        label=record.key,
        topic=record.text if record.guard == "wont_discuss" else "",
    )


def _shadowed(groups: list[KnowledgeIndex]) -> frozenset:
    """Rows a more specific scope of the NPC overrides by key (its own fact wins the world's)."""
    seen, hidden = set(), set()
    for group in groups:
        for record in group.records:
            if record.key in seen:
                hidden.add(record.id)
        seen |= set(group.row_of_key)
    return frozenset(hidden)


def view_for(npc, speaker, line: str = "", conf=None, now: float | None = None):
    """
    What `npc` knows and may tell `speaker`, for `line` (see `selection.KnowledgeView`); None
    when the NPC knows nothing (no knowledge block, no rule about unknown world questions).
    """
    conf = conf or get_settings()
    now = time.time() if now is None else now
    groups = [g for g in (index_for(t) for t in tokens_for(npc)) if len(g)]
    if not groups:
        return None
    names = {npc.key.lower(), *(w.lower() for r in rooms_of(npc) for w in r.key.split())}
    names |= npc_names()
    view = KnowledgeView(
        groups=groups,
        shadowed=_shadowed(groups),
        names=frozenset(names).union(*(g.names for g in groups)),
    )
    allowed, relationship = set(), None
    for group in groups:
        for row in group.guarded.tolist():
            record = group.records[row]
            if record.expired(now) or record.id in view.shadowed:
                continue
            if relationship is None:  # read once, for the first guarded fact
                relationship = relationship_of(npc, speaker)
            told, why = may_tell(npc, speaker, record, relationship)
            if told:
                allowed.add(record.id)
                continue
            view.withheld.append(Withheld(record.id, record.guard, why, record.key))
            view.guards.append(_guard(group, record, conf))
    view.allowed = frozenset(allowed)
    if line:
        names = {npc.key, getattr(speaker, "key", "")} - {""}
        searched = " ".join(searched_terms(groups, without_names(line, names)))
        view.lexical = memory_service.search_knowledge(
            [g.token for g in groups], searched, conf.LEXICAL_DEPTH
        )
        view.searched = searched
    return view


COMMON_SHARE = 0.2  # a word in more of an NPC's facts than this ranks none of them
COMMON_MIN_FACTS = 20


def searched_terms(groups: list[KnowledgeIndex], text: str) -> list[str]:
    """
    The full-text terms of `text` for the NPC's knowledge: its words, without those found in
    more than COMMON_SHARE of the facts it knows (once it knows COMMON_MIN_FACTS): as the
    pair-aware memory query leaves out the pair's common words, a word every fact holds
    ("costs" in a price list) finds nothing in particular and makes the index rank them all.
    """
    terms = memory_service.query_terms(text)
    total = sum(len(g) for g in groups)
    if total < COMMON_MIN_FACTS:
        return terms
    limit = COMMON_SHARE * total
    return [t for t in terms if sum(g.frequency[stem(t)] for g in groups) <= limit]


# ---------------------------------------------------------------- claims against knowledge


def doubt_for(npc, speaker=None):
    """
    A check for notes written about `speaker` (memory/write.write_reply's `doubt`): the
    contradiction record of a value against what `npc` knows (secrets too: a flag tells
    nothing), or None. None when the NPC knows nothing.
    """
    view = view_for(npc, None)
    if view is None:
        return None
    view.allowed = frozenset(r.id for g in view.groups for r in g.records if r.guard == "secret")
    ignore = (npc.key, getattr(speaker, "key", ""))

    def doubt(value: str) -> dict | None:
        found = answers.doubts(view, value, time.time(), ignore)
        return found[0].as_record() if found else None

    return doubt


def note_claims(npc, speaker, found: list[Contradiction], game_day: int) -> list:
    """
    What `speaker` claimed against `npc`'s knowledge, kept as uncertain memories about them
    (one per fact, key `claim_<fact key>`): the prompt shows them as doubtful, `@memory
    inspect` as uncertain, and no reflection takes them for the truth.
    """
    keys = dict(
        Knowledge.objects.filter(id__in=[c.knowledge_id for c in found]).values_list("id", "key")
    )
    written = []
    for item in found:
        note = Note(
            speaker,
            f'{speaker.key} claimed: "{item.claim.rstrip(".!")}."',
            key=f"claim_{keys.get(item.knowledge_id, item.knowledge_id)}",
            importance=4,
            source=Source.SELF,
            game_day=game_day,
            from_player=True,
            speaker=speaker,
            uncertain=True,
            doubt=item.as_record(),
        )
        written.append(write_note(npc, note))
        health.incr("knowledge_claims_doubted")
    return written
