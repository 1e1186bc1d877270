"""
The one memory-write path.

Every memory an NPC gets (its own tags, the conversation-end review, gossip, a promise kept or
dropped, game code through `npc.memory.remember`, a builder's `@memory inject`) is a `Note`
written by `write_note`, so the policy is the same for every source:

1. normalise: a slug key, the value collapsed and cut, importance clamped 1-10, feelings
   outside the seven dropped;
2. neutralise Evennia markup (links and MXP always, colour codes as LLM_MARKUP says) and
   redact personal data (except a builder's own write);
3. flag instruction-like text: kept, but marked suspect with an audit row (as is everything
   written during a turn whose player text was flagged);
4. cap the importance of what a player said at PLAYER_IMPORTANCE_CAP;
5. upsert by (npc, subject, key): a locked row refuses all but a builder, a suspect row stays
   suspect until a builder clears it, and a changed value keeps the old one as history
   (updated, not erased: "used to");
6. audit, nudge the relationship by the feeling, send `memory_written` once committed.

A note the caller found against what the NPC knows (`Note.doubt`, issue #25: the rule is
knowledge/contradiction.py) is kept as `uncertain`, with what it contradicts in its grounding.

Before all of it, a late result for an erased player is dropped (`late_write`): a reply, review,
gossip or rollover job that began before a player's erasure writes nothing about them after it.

Reactor thread only (ORM writes). `write_reply` applies a parsed reply's tags through it.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

import numpy as np
from django.db import IntegrityError, transaction
from django.utils import timezone

from omniira_evennia import signals
from omniira_evennia.conf import get_settings
from omniira_evennia.memory import notes_store, relationship_store, store
from omniira_evennia.memory.embeddings import embed_or_none, from_blob, to_blob
from omniira_evennia.memory.grounding import (
    Grounding,
    evidence,
    gist,
    given_up,
    ground,
    may_restate,
    one_at_a_time,
)
from omniira_evennia.memory.lateness import late_write
from omniira_evennia.memory.policy import police
from omniira_evennia.memory.safety import detect_manipulation
from omniira_evennia.models import Memory, Source
from omniira_evennia.runtime import health
from omniira_evennia.runtime.runner import defer_background
from omniira_evennia.vocabulary import clamp_int, cut_value, normalize_feeling, slug_key

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Note:
    """
    One memory to write about `subject`.

    Args:
        subject: the character or NPC the memory is about (the NPC itself for its own life).
        value: the remembered text.
        key: a stable key; the same key replaces the value. Defaults to a slug of the value.
        importance: 1-10 (clamped). feeling: one of the seven feelings, else dropped.
        source: a `Source` value (self, extracted, gossip, self_committed, admin).
        teller: who told the NPC (makes it hearsay); `chain` is the whole chain of tellers.
        from_player: learned from a player's words (importance capped).
        suspect: written during a flagged turn. speaker: who the audit row names.
        origin: the player whose words this came from (default: `speaker`, when from_player).
    """

    subject: Any
    value: str
    key: str | None = None
    importance: Any = 5
    feeling: str | None = None
    source: str = Source.SELF
    kind: str = "event"
    embedding: np.ndarray | None = None
    game_day: int = 0
    expires_at: datetime | None = None
    teller: Any = None
    chain: tuple[int, ...] = field(default_factory=tuple)
    suspect: bool = False
    from_player: bool = False
    speaker: Any = None
    origin: Any = None
    # What it must rest on (memory/grounding.py): the lines it came from (the subject's own,
    # or with `told` a teller's about them). None: no check (a builder, game code, the NPC's
    # own life); every source that learns from talk passes its lines.
    grounds: tuple[str, ...] | None = None
    told: bool = False
    # A claim against what the NPC knows (issue #25, knowledge/contradiction.py): kept, marked
    # uncertain, with the rule's record of what it contradicts (`doubt`).
    uncertain: bool = False
    doubt: dict | None = None


def _cleaned(text, kind: str, redact: bool = True) -> str:
    """`text` through the one text policy (memory/policy.police) as a `kind`, with the
    builder's markup mode; a builder's own words (`redact=False`) keep their personal data."""
    return police(text, kind, redact=redact, markup=get_settings().LLM_MARKUP)


def said_text(text: str) -> str:
    """
    An LLM-written line that is said in a room and kept as a conversation turn, through the
    same policy as everything else stored (`police(..., "line")`): capped, controls removed,
    markup neutralised, personal data redacted, cut at a sentence.
    """
    return _cleaned(text, "line")


def _labels(raw, cleaned: str) -> list[str]:
    """Instruction-like text in what was written or in what is kept of it (markup can hide
    words from one and tag syntax is gone from the other)."""
    raw = str(raw or "")[: len(cleaned) * 4 + 200]
    return sorted(set(detect_manipulation(raw)) | set(detect_manipulation(cleaned)))


def grounding_of(npc, note: Note, value: str) -> Grounding | None:
    """Whether `note` rests on its lines (None: it brings none to check, see Note.grounds)."""
    if note.grounds is None or note.source == Source.ADMIN:
        return None
    subject = getattr(note.subject, "key", "") or ""
    return ground(value, note.grounds, subject=subject, npc=npc.key, told=note.told)


def reject(npc, note: Note, value: str, reason: str, rejected: list | None = None) -> None:
    """A note the policy refused: counted, audited for builders (`@memory audit`), and added
    to `rejected` (a review's list) with its reason."""
    health.incr("notes_ungrounded")
    store.audit(
        "ungrounded",
        [reason[:100]],
        npc=npc,
        speaker=note.subject if is_player(note.subject) else note.speaker,
        excerpt=value,
    )
    if rejected is not None:
        rejected.append({"value": value[:200], "reason": reason[:100]})


def write_note(npc, note: Note, rejected: list | None = None) -> Memory | None:
    """
    Write `note` as one of `npc`'s memories through the policy above. A note that brings its
    lines (`grounds`) is kept only if it rests on them; a refused one is recorded (`reject`).

    Returns:
        The Memory row, or None when it was ungrounded, a locked row refused the write, or it
        was a late result for an erased player.
    """
    admin = note.source == Source.ADMIN
    if not admin and late_write((note.subject, note.origin, note.speaker), str(note.value)):
        return None
    value = _cleaned(note.value, "memory", redact=not admin)
    grounded = grounding_of(npc, note, value)
    if grounded is not None and not grounded.ok:
        reject(npc, note, value, grounded.reason, rejected)
        return None
    labels = _labels(note.value, value) if not admin else detect_manipulation(value)
    importance = clamp_int(note.importance, 1, 10, 5)
    if note.from_player or (not admin and _about_a_player(note)):
        # What a player said, and anything not the builder's about a player (gossip, an NPC's
        # talk, a promise), is capped: nobody's words make a player matter more than that.
        importance = min(importance, get_settings().PLAYER_IMPORTANCE_CAP)
    key = slug_key(note.key or "") or slug_key(value)[:40] or "note"
    fields = dict(
        value=cut_value(value),
        importance=importance,
        feeling=normalize_feeling(note.feeling) or "",
        source=note.source,
        provenance=note.teller,
        kind=note.kind,
        embedding=to_blob(note.embedding),
        game_day=note.game_day,
        expires_at=note.expires_at,
        learned_at=timezone.now(),
        hops=len(note.chain),
        chain=list(note.chain),
        suspect=bool(note.suspect or labels),
        origin=note.origin or (note.speaker if note.from_player else None),
        grounding=_grounding_record(npc, note, grounded),
        uncertain=bool(note.uncertain or note.doubt),
    )
    if note.doubt:
        fields["grounding"] = {**fields["grounding"], "contradicts": note.doubt}
    if not admin:
        key = _restated_key(npc, note, key, fields["value"])
    memory, created = _upsert(npc, note.subject, key, fields, admin)
    if memory is None:
        return None
    if not admin:
        _fold_given_up(memory, given_up(memory.value))
    if memory.suspect:
        store.audit(
            "memory",
            labels or ["written during a flagged turn"],
            npc=npc,
            speaker=note.speaker,
            memory=memory,
            excerpt=memory.value,
        )
    if memory.feeling and memory.subject_id != memory.npc_id:
        relationship_store.update_relationship(
            npc, note.subject, memory.feeling, memory.importance, hearsay=memory.is_hearsay
        )
    transaction.on_commit(
        partial(
            signals.memory_written.send,
            sender=Memory,
            npc=npc,
            memory=memory,
            created=created,
            source=memory.source,
        )
    )
    return memory


def _grounding_record(npc, note: Note, grounded: Grounding | None) -> dict:
    if grounded is not None:
        return {**grounded.as_record(), "told": note.told}
    if note.source == Source.ADMIN:
        return {"source": "builder or game code"}
    if getattr(note.subject, "id", None) == npc.id:
        return {"source": "its own life"}
    return {"source": note.source}


def _restated_key(npc, note: Note, key: str, value: str) -> str:
    """The key of a memory about the note's subject, from the same teller, that `value` says
    again in other words or changes, else `key`: the note updates that memory, whose old value
    becomes its history. Says again: one gist (the tag's "Ada told me: I live in Brackwater"
    and the review's "Ada mentioned that I live in Brackwater"), or one meaning (`_restating`).
    Changes: a new home or trade, a possession given up ("Ada moved to Ashby", "Ada sold the
    mule"). Never a builder's row."""
    name = getattr(note.subject, "key", "") or ""
    said = gist(value, name)
    topic, gone = one_at_a_time(value), given_up(value)
    by_words = len(said) >= 2 or topic or gone
    if not by_words and note.embedding is None:
        return key  # nothing to compare by: no query
    others = _others(npc, note.subject, note.teller, key)
    if by_words:
        for other_key, other_value, _ in others:
            if len(said) >= 2 and gist(other_value, name) == said:
                health.incr("memory_restated_merged")
                return other_key
            if (topic and one_at_a_time(other_value) == topic) or (gone & gist(other_value, name)):
                health.incr("memory_superseded")
                return other_key
    return _restating(others, value, note.embedding, name) or key


def _fold_given_up(memory: Memory, gone: frozenset) -> None:
    """A note that its subject gave something up ("Ada sold the mule") ends every other memory
    of that thing from the same teller ("Ada's mule Pip carries her packs", "Pip, her old mule,
    eats a lot"): their values become this memory's history and their rows go, so no memory
    still says she has the mule. Locked rows and a builder's stay."""
    if not gone:
        return
    name = getattr(memory.subject, "key", "") or ""
    others = [
        other
        for other in Memory.objects.filter(
            npc=memory.npc, subject=memory.subject, provenance=memory.provenance, locked=False
        )
        .exclude(id=memory.id)
        .exclude(source=Source.ADMIN)
        .order_by("-learned_at", "-id")[: get_settings().MEMORY_CAP_PER_SUBJECT]
        if gone & gist(other.value, name)
    ]
    if not others:
        return
    with transaction.atomic():
        for other in others:
            memory.history = [*superseded(other)[:1], *(memory.history or [])][:HISTORY_KEPT]
            other.delete()
            health.incr("memory_superseded")
        memory.save(update_fields=["history"])


def _others(npc, subject, teller, key: str) -> list[tuple]:
    """(key, value, embedding) of the NPC's other memories about `subject` from `teller`
    (a builder's rows aside), newest first, at most a subject's cap of them."""
    return list(
        Memory.objects.filter(npc=npc, subject=subject, provenance=teller)
        .exclude(key=key)
        .exclude(source=Source.ADMIN)
        .order_by("-learned_at", "-id")
        .values_list("key", "value", "embedding")[: get_settings().MEMORY_CAP_PER_SUBJECT]
    )


def _restating(others, value: str, vector, name: str) -> str | None:
    """The key of the memory among `others` that `value` says again by meaning: the nearest
    whose vector is within MEMORY_MERGE_COSINE of `vector` and whose words allow it
    (grounding.may_restate: "I have a pony called Sorrel" and "Sorrel, my old pony, eats a
    lot" are one fact; "my dog is called Rex" and "my cat is called Rex" are two)."""
    threshold = get_settings().MEMORY_MERGE_COSINE
    if vector is None or threshold >= 1:
        return None
    nearest, nearest_cosine = None, threshold
    for other_key, other_value, blob in others:
        cosine = _cosine(vector, blob)
        if cosine >= nearest_cosine and may_restate(value, other_value, name):
            nearest, nearest_cosine = other_key, cosine
    if nearest is not None:
        health.incr("memory_restated_by_meaning")
    return nearest


def fold_restated(memory: Memory, vector) -> Memory:
    """
    A memory written before its vector (an inline tag, embedded after the reply is said) that,
    once embedded, says an older memory again by meaning: the older one takes its value (its
    own value becomes history) and the new row goes, so the NPC keeps one memory of the fact.
    Returns the memory that holds the fact now.
    """
    if memory.source == Source.ADMIN or memory.locked:
        return memory
    name = getattr(memory.subject, "key", "") or ""
    others = _others(memory.npc, memory.subject, memory.provenance, memory.key)
    older_key = _restating(others, memory.value, vector, name)
    if older_key is None:
        return memory
    with transaction.atomic():
        older = (
            Memory.objects.select_for_update()
            .filter(npc=memory.npc, subject=memory.subject, key=older_key)
            .first()
        )
        if older is None or older.locked:
            return memory
        older.history = superseded(older)
        older.value = memory.value
        older.embedding = to_blob(vector)
        older.importance = max(older.importance, memory.importance)
        older.suspect = older.suspect or memory.suspect
        older.learned_at = memory.learned_at
        older.save()
        memory.delete()
    return older


def _cosine(vector, blob) -> float:
    """The cosine of a note's vector and a stored one (both unit length); -1 without both."""
    if vector is None:
        return -1.0
    other = from_blob(blob, dim=len(vector))
    if other is None:
        return -1.0
    return float(np.dot(np.asarray(vector, dtype=np.float32), other))


def _upsert(npc, subject, key, fields, admin: bool) -> tuple[Memory | None, bool]:
    with transaction.atomic():
        existing = (
            Memory.objects.select_for_update().filter(npc=npc, subject=subject, key=key).first()
        )
        if existing is None:
            try:
                with transaction.atomic():
                    return Memory.objects.create(npc=npc, subject=subject, key=key, **fields), True
            except IntegrityError:  # a concurrent writer won the race: update theirs
                existing = Memory.objects.get(npc=npc, subject=subject, key=key)
        if existing.locked and not admin:
            health.incr("locked_write_refused")
            return None, False
        if existing.suspect and not admin:
            fields["suspect"] = True  # only a builder clears suspicion, not a repeat
        if existing.value != fields["value"]:
            fields["history"] = superseded(existing)
        for name, val in fields.items():
            setattr(existing, name, val)
        existing.save()
        return existing, False


HISTORY_KEPT = 5


def superseded(memory: Memory) -> list[dict]:
    """The row's history with its current value pushed on top (newest first, capped)."""
    entry = {
        "value": memory.value,
        "until": timezone.now().isoformat(timespec="seconds"),
        "source": memory.source,
    }
    return [entry, *(memory.history or [])][:HISTORY_KEPT]


def _about_a_player(note: Note) -> bool:
    subject = note.subject
    return subject is not None and getattr(subject, "id", None) is not None and is_player(subject)


def write_concern(npc, topic: str, intensity, source, game_day: int, suspect=False):
    """
    Something on the NPC's mind, through the same policy as a memory: redact, flag (suspect
    concerns are kept for builders and never shown to the model), cut, audit, and keep at most
    CONCERNS_PER_NPC per NPC (the oldest go). A concern someone raised in talk (a player, or
    another NPC in NPC talk, which is built from players' claims) is private to conversations
    with them, decided here once: whether its source is logged in later changes nothing.
    Returns the row (None: a late result for an erased player, dropped).
    """
    if late_write((source,), str(topic)):
        return None
    raw, topic = topic, _cleaned(topic, "concern")
    labels = _labels(raw, topic)
    private = source is not None and getattr(source, "id", None) != npc.id
    concern = notes_store.add_concern(
        npc,
        topic,
        intensity,
        source=source,
        suspect=bool(suspect or labels),
        game_day=game_day,
        private=private,
    )
    if concern.suspect:
        store.audit(
            "concern",
            labels or ["written during a flagged turn"],
            npc=npc,
            speaker=source,
            excerpt=concern.topic,
        )
    notes_store.cap_concerns(npc, get_settings().CONCERNS_PER_NPC)
    return concern


def write_opinion(npc, target, text: str):
    """The NPC's opinion of `target`, through the text policy. None: a late result, dropped."""
    if late_write((target,), str(text)):
        return None
    text = _cleaned(text, "opinion")
    return notes_store.set_opinion(npc, target, text) if text else None


def write_plan(npc, speaker, tag, game_day: int, suspect=False):
    """
    A promise the NPC made to `speaker` (a COMMITMENT tag), through the text policy. It is
    recorded as made to the speaker whose turn it came from (`origin`), whatever the tag names:
    "to_kind" "player" means that speaker; "npc" names an NPC to go with, and only one of our
    NPCs is ever taken for it (life.service), never another player. Returns the Plan, or None
    (a late result for an erased player).
    """
    fields = {name: _cleaned(getattr(tag, name), "plan_field") for name in ("to", "target", "by")}
    fields["summary"] = _cleaned(tag.summary, "plan") or "a promise"
    if late_write((speaker,), f"{fields['summary']}. {fields['to']}. {fields['target']}"):
        return None
    labels = _labels(tag.summary, fields["summary"])
    return notes_store.add_plan(
        npc,
        tag.model_copy(update=fields),
        to_obj=speaker if tag.to_kind == "player" else None,
        game_day=game_day,
        origin=speaker,
        suspect=bool(suspect or labels),
    )


def write_belief(npc, target, text: str, grounds=None, **fields):
    """
    A belief drawn by the nightly reflection, through the text policy (None: nothing left,
    or refused). With `grounds` (the memories it was drawn from) it must rest on them, and a
    belief about a player weighs no more than that player's own words (PLAYER_IMPORTANCE_CAP).
    A late one about an erased player is dropped when saved (lateness.drop_late_rollover_rows).
    """
    text = _cleaned(text, "belief")
    if not text:
        return None
    if grounds is not None:
        found = ground(
            text,
            evidence(grounds, subject=target.key, told=True, pooled=True),
            subject=target.key,
            npc=npc.key,
            told=True,
        )
        if not found.ok:
            reject(npc, Note(target, text, source=Source.SELF), text, f"belief {found.reason}")
            return None
    if is_player(target) and "importance" in fields:
        cap = get_settings().PLAYER_IMPORTANCE_CAP
        fields["importance"] = min(clamp_int(fields["importance"], 1, 10, 5), cap)
    return notes_store.add_belief(npc, target, text, **fields)


def write_diary(npc, game_day: int, text: str, **fields):
    """
    The NPC's diary entry for `game_day`, through the text policy (None: nothing left). A late
    one loses its sentences naming an erased player when saved (lateness.drop_late_rollover_rows).
    """
    text = _cleaned(text, "diary")
    return notes_store.set_diary(npc, game_day, text, **fields) if text else None


def player_line(text: str, limit: int) -> str:
    """A player's line as it is kept and sent on (`police(..., "player_line")`): capped to
    `limit` (MAX_MESSAGE_CHARS), controls removed, markup neutralised, personal data redacted.
    Its tags have been taken out by `conversation.tags.clean_text` before this."""
    return police(text, "player_line", limit=limit, markup="strip")


def is_player(obj) -> bool:
    """A player character (or anything that is not one of our NPCs) speaks as a player."""
    return bool(getattr(obj, "has_account", False)) or not getattr(obj, "is_omniira_npc", False)


def write_reply(
    npc,
    subject,
    parsed,
    remember_vectors,
    commitment_vectors,
    game_day: int,
    suspect=False,
    grounds=None,
    doubt=None,
) -> list:
    """
    Write what a reply's tags asked for (paper 4.2): memories through `write_note`, the
    opinion, concerns, and commitments (a plan plus a memory of the promise, so retrieval
    brings it back up). Nothing when SELF_TAGGING is off (an ablation). `grounds`: what
    `subject` said in this conversation (their lines): each note about them must rest on it
    (None: not checked, for callers with no talk behind them). `doubt`: the caller's check of
    a value against what the NPC knows (knowledge/service.doubt_for; None: none), a note it
    finds a contradiction in kept as uncertain. Returns the memories written (a None where one
    was refused).
    """
    written: list = []
    if not get_settings().SELF_TAGGING:
        ignored = len(parsed.remember) + len(parsed.opinions) + len(parsed.concerns)
        health.incr("tags_ignored", ignored + len(parsed.commitments))
        health.incr("conversation_turns")
        return written
    if late_write((subject,)):  # about a player erased since the work began: none of it
        health.incr("conversation_turns")
        return written
    from_player = is_player(subject)
    for tag, vector in zip(parsed.remember, remember_vectors):
        memory = write_note(
            npc,
            Note(
                subject,
                tag.value,
                key=tag.key,
                importance=tag.importance,
                feeling=tag.feeling,
                source=Source.SELF,
                embedding=vector,
                game_day=game_day,
                suspect=suspect,
                from_player=from_player,
                speaker=subject,
                grounds=tuple(grounds) if grounds is not None else None,
                doubt=doubt(tag.value) if doubt is not None else None,
            ),
        )
        written.append(memory)
        health.incr("tags_remember")
    for tag in parsed.opinions:
        write_opinion(npc, subject, tag.text)
        health.incr("tags_opinion")
    for tag in parsed.concerns:
        write_concern(npc, tag.topic, tag.intensity, subject, game_day, suspect=suspect)
        health.incr("tags_concern")
    for tag, vector in zip(parsed.commitments, commitment_vectors):
        plan = write_plan(npc, subject, tag, game_day, suspect=suspect)
        if plan is None:
            continue
        memory = write_note(
            npc,
            Note(
                subject,
                plan.summary,
                key=f"commitment_{tag.action}_{plan.target or plan.to_name}",
                importance=8,
                feeling="trust",
                source=Source.SELF_COMMITTED,
                kind="commitment",
                embedding=vector,
                game_day=game_day,
                suspect=suspect,
                from_player=from_player,
                speaker=subject,
            ),
        )
        written.append(memory)
        health.incr("tags_commitment")
    if parsed.errors:
        health.incr("tags_invalid", len(parsed.errors))
    health.incr("conversation_turns")
    return written


def embed_later(memories) -> None:
    """
    Give `memories` (written without a vector) their embeddings off the reactor, in the
    background pool; until then retrieval finds them by recency and full text. A memory whose
    value changed meanwhile keeps waiting for the next write's vector.
    """
    wanted = [(m.id, m.value) for m in memories if m is not None]
    if not wanted:
        return

    def _store(vectors):
        rows = Memory.objects.in_bulk([memory_id for memory_id, _ in wanted])
        for (memory_id, value), vector in zip(wanted, vectors):
            row = rows.get(memory_id)
            if vector is None or row is None or row.value != value:
                continue
            row.embedding = to_blob(vector)
            # save(), not update(): the cached matrix is patched and the embedder stamped.
            row.save(update_fields=["embedding", "embedder"])
            fold_restated(row, vector)

    defer_background(embed_or_none, [value for _, value in wanted]).addCallback(_store).addErrback(
        lambda failure: log.error(f"omniira: embedding new memories failed: {failure}")
    )
