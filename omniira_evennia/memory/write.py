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

Before all of it, a late result for an erased player is dropped (`late_write`): a reply, review,
gossip or rollover job that began before a player's erasure writes nothing about them after it.

Reactor thread only (ORM writes). `write_reply` applies a parsed reply's tags through it.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import numpy as np
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from omniira_evennia import signals
from omniira_evennia.conf import get_settings
from omniira_evennia.memory import store
from omniira_evennia.memory.embeddings import to_blob
from omniira_evennia.memory.erasure import mention_pattern, names_of, without_mentions
from omniira_evennia.memory.safety import detect_manipulation, neutralize_markup, redact_pii
from omniira_evennia.models import Conversation, Erasure, Memory, Source
from omniira_evennia.runtime import health
from omniira_evennia.vocabulary import clamp_int, cut_value, normalize_feeling, slug_key


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


# ---------------------------------------------------------------- late results after an erasure

_job_start: ContextVar[datetime | None] = ContextVar("omniira_job_start", default=None)


@contextmanager
def job_started(at: datetime | None):
    """Writes inside come from work that began at `at` (None: not known; see `late_write`)."""
    token = _job_start.set(at)
    try:
        yield
    finally:
        _job_start.reset(token)


# Work whose start is not known (gossip, a review, game code) is taken to be late for a player
# erased within this long, unless they have talked since: no such job runs longer.
UNKNOWN_START_WINDOW = timedelta(hours=24)


def _late_erasures() -> dict[int, datetime]:
    """
    The erased players (id: when) the current work is late for: erased after it began. When
    its start is not known, those erased within UNKNOWN_START_WINDOW who have not started a
    conversation since: until they talk again nothing new about them can exist, so whatever
    arrives about them comes from before. One small query when nobody was erased lately.
    """
    started = _job_start.get()
    since = started if started is not None else timezone.now() - UNKNOWN_START_WINDOW
    erased: dict[int, datetime] = {}
    for player_id, at in (
        Erasure.objects.filter(erased_at__gt=since)
        .order_by("erased_at")
        .values_list("player_id", "erased_at")
    ):
        erased[player_id] = at  # the latest erasure of each player
    if not erased or started is not None:
        return erased
    back = (
        Conversation.objects.filter(speaker_id__in=erased)
        .values("speaker_id")
        .annotate(latest=Max("started_at"))
        .values_list("speaker_id", "latest")
    )
    for player_id, latest in back:
        if latest > erased[player_id]:
            del erased[player_id]  # they talked again: what is said of them now is new
    return erased


def _naming(late: dict[int, datetime]):
    from evennia.objects.models import ObjectDB

    names = [name for obj in ObjectDB.objects.filter(id__in=late) for name in names_of(obj)]
    return mention_pattern(names)


def late_write(people=(), text: str = "") -> bool:
    """
    True (and counted as `erased_late_writes`) if this write is a late result for an erased
    player: it is about one of `people`, or `text` names one, and the work writing it began
    before that player's erasure (`job_started`, or the rule in `_late_erasures`).
    """
    late = _late_erasures()
    if not late:
        return False
    ids = {getattr(p, "id", p) for p in people if p is not None}
    hit = bool(ids & late.keys())
    if not hit and text:
        pattern = _naming(late)
        hit = bool(pattern and pattern.search(text))
    if hit:
        health.incr("erased_late_writes")
    return hit


def scrub_late(text: str) -> str:
    """`text` without its sentences naming a player the current work is late for."""
    late = _late_erasures()
    if not late or not text:
        return text
    scrubbed = without_mentions(text, _naming(late))
    if scrubbed != text:
        health.incr("erased_late_writes")
    return scrubbed


def _rollover_start(kind: str, npc_id: int, target_id: int, game_day: int):
    from omniira_evennia.models import DailyWork

    return (
        DailyWork.objects.filter(kind=kind, npc_id=npc_id, target_id=target_id, game_day=game_day)
        .values_list("created_at", flat=True)
        .first()
    )


def drop_late_rollover_rows(sender, instance, created=False, raw=False, **kwargs) -> None:
    """
    post_save of a belief or a diary entry, which the rollover writes itself: one from a job
    claimed (`DailyWork`) before a player's erasure is deleted if it is about them or names
    them (a belief), or loses its sentences naming them and its vector (a diary entry; deleted
    if nothing is left). The index is purged at once, as after an erasure.
    """
    from omniira_evennia.memory import fulltext
    from omniira_evennia.models import DiaryEntry, Reflection

    if raw:
        return
    if isinstance(instance, Reflection):
        start = _rollover_start(
            "reflection", instance.npc_id, instance.target_id, instance.game_day
        )
        with job_started(start):
            if created and late_write((instance.target_id,), instance.belief):
                instance.delete()
                fulltext.purge()
    elif isinstance(instance, DiaryEntry):
        with job_started(_rollover_start("diary", instance.npc_id, 0, instance.game_day)):
            text = scrub_late(instance.entry)
        if text == instance.entry:
            return
        if text:
            DiaryEntry.objects.filter(pk=instance.pk).update(
                entry=text, embedding=None, embedder=None
            )
        else:
            instance.delete()
        fulltext.purge()


def write_note(npc, note: Note) -> Memory | None:
    """
    Write `note` as one of `npc`'s memories through the policy above.

    Returns:
        The Memory row, or None when a locked row refused the write or it was a late result
        for an erased player.
    """
    admin = note.source == Source.ADMIN
    if not admin and late_write((note.subject, note.origin, note.speaker), str(note.value)):
        return None
    value = neutralize_markup(str(note.value), get_settings().LLM_MARKUP)
    if not admin:
        value, redacted = redact_pii(value)
        if redacted:
            health.incr("pii_redacted", redacted)
    labels = detect_manipulation(value)
    importance = clamp_int(note.importance, 1, 10, 5)
    if note.from_player:
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
    )
    memory, created = _upsert(npc, note.subject, key, fields, admin)
    if memory is None:
        return None
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
        store.update_relationship(
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


def write_concern(npc, topic: str, intensity, source, game_day: int, suspect=False):
    """
    Something on the NPC's mind, through the same policy as a memory: redact, flag (suspect
    concerns are kept for builders and never shown to the model), cut, audit, and keep at most
    CONCERNS_PER_NPC per NPC (the oldest go). Returns the row (None: a late result for an
    erased player, dropped).
    """
    if late_write((source,), str(topic)):
        return None
    topic = neutralize_markup(str(topic), get_settings().LLM_MARKUP)
    topic, redacted = redact_pii(topic)
    if redacted:
        health.incr("pii_redacted", redacted)
    labels = detect_manipulation(topic)
    concern = store.add_concern(
        npc, topic, intensity, source=source, suspect=bool(suspect or labels), game_day=game_day
    )
    if concern.suspect:
        store.audit(
            "concern",
            labels or ["written during a flagged turn"],
            npc=npc,
            speaker=source,
            excerpt=concern.topic,
        )
    store.cap_concerns(npc, get_settings().CONCERNS_PER_NPC)
    return concern


def is_player(obj) -> bool:
    """A player character (or anything that is not one of our NPCs) speaks as a player."""
    return bool(getattr(obj, "has_account", False)) or not getattr(obj, "is_omniira_npc", False)


def write_reply(
    npc, subject, parsed, remember_vectors, commitment_vectors, game_day: int, suspect=False
) -> None:
    """
    Write what a reply's tags asked for (paper 4.2): memories through `write_note`, the
    opinion, concerns, and commitments (a plan plus a memory of the promise, so retrieval
    brings it back up). Nothing when SELF_TAGGING is off (an ablation).
    """
    if not get_settings().SELF_TAGGING:
        ignored = len(parsed.remember) + len(parsed.opinions) + len(parsed.concerns)
        health.incr("tags_ignored", ignored + len(parsed.commitments))
        health.incr("conversation_turns")
        return
    if late_write((subject,)):  # about a player erased since the work began: none of it
        health.incr("conversation_turns")
        return
    from_player = is_player(subject)
    for tag, vector in zip(parsed.remember, remember_vectors):
        write_note(
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
            ),
        )
        health.incr("tags_remember")
    for tag in parsed.opinions:
        if late_write((), tag.text):
            continue
        store.set_opinion(npc, subject, neutralize_markup(tag.text, get_settings().LLM_MARKUP))
        health.incr("tags_opinion")
    for tag in parsed.concerns:
        write_concern(npc, tag.topic, tag.intensity, subject, game_day, suspect=suspect)
        health.incr("tags_concern")
    for tag, vector in zip(parsed.commitments, commitment_vectors):
        if late_write((), f"{tag.summary}. {tag.to}. {tag.target}"):
            continue
        store.add_plan(
            npc, tag, to_obj=subject if tag.to_kind == "player" else None, game_day=game_day
        )
        write_note(
            npc,
            Note(
                subject,
                tag.summary,
                key=f"commitment_{tag.action}_{tag.target or tag.to}",
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
        health.incr("tags_commitment")
    if parsed.errors:
        health.incr("tags_invalid", len(parsed.errors))
    health.incr("conversation_turns")
