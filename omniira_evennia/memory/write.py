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
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial
from typing import Any

import numpy as np
from django.db import IntegrityError, transaction
from django.utils import timezone

from omniira_evennia import signals
from omniira_evennia.conf import get_settings
from omniira_evennia.memory import notes_store, relationship_store, store
from omniira_evennia.memory.embeddings import embed_or_none, to_blob
from omniira_evennia.memory.grounding import (
    LACKS_OBJECT,
    MISNAMED,
    Grounding,
    evidence,
    ground,
)
from omniira_evennia.memory.lateness import late_write
from omniira_evennia.memory.quoting import (
    garbled,
    names_nobody,
    said_quote,
    without_address,
    without_trailing_address,
)

# What the policy keeps beside memories, and restatements, live in their own modules; their
# names stay importable from here (callers and games found them here before).
from omniira_evennia.memory.restating import (  # noqa: F401
    HISTORY_KEPT,
    fold_given_up,
    fold_restated,
    restated_key,
    superseded,
)
from omniira_evennia.memory.row_writes import (  # noqa: F401
    manipulation_labels,
    player_line,
    policed,
    said_text,
    write_concern,
    write_diary,
    write_opinion,
    write_plan,
)
from omniira_evennia.memory.safety import detect_manipulation
from omniira_evennia.memory.sameness import given_up
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


def grounding_of(npc, note: Note, value: str) -> Grounding | None:
    """Whether `note` rests on its lines (None: it brings none to check, see Note.grounds)."""
    if note.grounds is None or note.source == Source.ADMIN:
        return None
    return ground(value, note.grounds, subject=_subject_name(note), npc=npc.key, told=note.told)


def _subject_name(note: Note) -> str:
    return getattr(note.subject, "key", "") or ""


def _their_words_instead(npc, note: Note, value: str, grounded: Grounding):
    """
    A note that lost its thing ("Xander fears them more than anything.") is kept as the line it
    rests on, quoted ('Xander said: "If you ever see me go pale, it's spiders: I fear them
    more than anything."'): the spiders come back when asked. Its vector is made later, from
    the quote (`embed_later`). Without such a line (or for hearsay) the note stays refused. So
    is a note that names nobody ("Tarnow, down on the southern plains.": `names_nobody`).
    """
    subject = _subject_name(note)
    if not grounded.line or note.told or not subject:
        return note, value, grounded
    line = without_address(grounded.line, getattr(npc, "key", "")).strip(' "')
    quoted = policed(said_quote(subject, line), "memory")
    note = replace(note, value=quoted, embedding=None)
    health.incr("notes_kept_as_said")
    return note, quoted, grounding_of(npc, note, quoted)


def _grounded_form(npc, note: Note, value: str):
    """The note as it will be kept, its value and its grounding: in the subject's own words
    when it lost its thing, names nobody or is their line half turned round (`garbled`:
    `_their_words_instead`)."""
    grounded = grounding_of(npc, note, value)
    if grounded is None:
        return note, value, grounded
    subject = _subject_name(note)
    if (not grounded.ok and grounded.reason in (LACKS_OBJECT, MISNAMED)) or (
        grounded.ok and (names_nobody(value, subject) or garbled(value, subject, grounded.line))
    ):
        return _their_words_instead(npc, note, value, grounded)
    return note, value, grounded


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
    value = policed(note.value, "memory", redact=not admin)
    if not admin:
        value = without_trailing_address(value, getattr(npc, "key", ""))
    note, value, grounded = _grounded_form(npc, note, value)
    if grounded is not None and not grounded.ok:
        reject(npc, note, value, grounded.reason, rejected)
        return None
    labels = manipulation_labels(note.value, value) if not admin else detect_manipulation(value)
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
        key = restated_key(npc, note, key, fields["value"])
    memory, created = _upsert(npc, note.subject, key, fields, admin)
    if memory is None:
        return None
    if not admin:
        fold_given_up(memory, given_up(memory.value))
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
        # The line is shown to builders: redacted like every stored text.
        record = grounded.as_record()
        return {**record, "line": policed(record["line"], "memory"), "told": note.told}
    if note.source == Source.ADMIN:
        return {"source": "builder or game code"}
    if getattr(note.subject, "id", None) == npc.id:
        return {"source": "its own life"}
    return {"source": note.source}


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


def _about_a_player(note: Note) -> bool:
    subject = note.subject
    return subject is not None and getattr(subject, "id", None) is not None and is_player(subject)


def write_belief(npc, target, text: str, grounds=None, **fields):
    """
    A belief drawn by the nightly reflection, through the text policy (None: nothing left,
    or refused). With `grounds` (the memories it was drawn from) it must rest on them, and a
    belief about a player weighs no more than that player's own words (PLAYER_IMPORTANCE_CAP).
    A late one about an erased player is dropped when saved (lateness.drop_late_rollover_rows).
    """
    text = policed(text, "belief")
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
    turn = dict(game_day=game_day, suspect=suspect, from_player=from_player, speaker=subject)
    grounds = tuple(grounds) if grounds is not None else None
    for tag, vector in zip(parsed.remember, remember_vectors):
        doubted = doubt(tag.value) if doubt is not None else None
        written.append(_remember(npc, subject, tag, vector, turn, grounds, doubted))
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
        written.append(_remember_promise(npc, subject, tag, plan, vector, turn))
        health.incr("tags_commitment")
    if parsed.errors:
        health.incr("tags_invalid", len(parsed.errors))
    health.incr("conversation_turns")
    return written


def _remember(npc, subject, tag, vector, turn: dict, grounds, doubt) -> Memory | None:
    """A REMEMBER tag, written as the NPC's own note (`turn`: the day, suspicion, speaker)."""
    note = Note(
        subject,
        tag.value,
        key=tag.key,
        importance=tag.importance,
        feeling=tag.feeling,
        source=Source.SELF,
        embedding=vector,
        grounds=grounds,
        doubt=doubt,
        **turn,
    )
    return write_note(npc, note)


def _remember_promise(npc, subject, tag, plan, vector, turn: dict) -> Memory | None:
    """A COMMITMENT's memory of the promise, so retrieval brings it back up."""
    note = Note(
        subject,
        plan.summary,
        key=f"commitment_{tag.action}_{plan.target or plan.to_name}",
        importance=8,
        feeling="trust",
        source=Source.SELF_COMMITTED,
        kind="commitment",
        embedding=vector,
        **turn,
    )
    return write_note(npc, note)


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
