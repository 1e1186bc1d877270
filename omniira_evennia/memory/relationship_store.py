"""
Relationship rows: how an NPC stands towards a subject, written with optimistic concurrency.

The arithmetic is plain (`memory/relationships.py`); this module reads and writes the rows on
the reactor and sends `relationship_threshold_crossed` (game code) and `reputation_updated`
(a conversation's cached context shows the reputation).
"""

from __future__ import annotations

from functools import partial

from django.db import IntegrityError, transaction
from django.dispatch import Signal
from django.utils import timezone

from omniira_evennia import signals
from omniira_evennia.memory import relationships
from omniira_evennia.models import ConversationTurn, Memory, Relationship
from omniira_evennia.runtime import health

# Sent after a relationship row changed by update() (no post_save): a conversation's cached
# context (conversation/store.py) shows the reputation.
reputation_updated = Signal()


def _starting_attitude(npc, subject) -> str | None:
    """The NPC's attitude to the subject's faction (`npc.db.faction_attitudes`), if any."""
    faction = subject.attributes.get("faction", default=None)
    attitudes = npc.attributes.get("faction_attitudes", default=None) or {}
    return attitudes.get(faction) if faction else None


def get_relationship(npc, subject, create: bool = True) -> Relationship | None:
    rel = Relationship.objects.filter(npc=npc, subject=subject).first()
    if rel is None and create:
        start = relationships.starting_values(_starting_attitude(npc, subject))
        try:
            with transaction.atomic():
                rel = Relationship.objects.create(npc=npc, subject=subject, **start)
        except IntegrityError:
            rel = Relationship.objects.get(npc=npc, subject=subject)
    return rel


def update_relationship(npc, subject, feeling, importance, hearsay=False, attempts=5):
    """
    Nudge the relationship by one memory's feeling, with optimistic concurrency: the row is
    written only if its version is unchanged since it was read; otherwise re-read and retry.
    Sends `relationship_threshold_crossed` once per threshold crossed.
    """
    for _ in range(attempts):
        rel = get_relationship(npc, subject)
        old = rel.values()
        new = relationships.apply_feeling(old, feeling, importance, hearsay)
        if new == old:
            return rel
        now = timezone.now()
        written = Relationship.objects.filter(pk=rel.pk, version=rel.version).update(
            version=rel.version + 1, updated_at=now, **new
        )
        if written:
            # update() sends no post_save: whoever shows the reputation is told here.
            reputation_updated.send(sender=Relationship, npc=npc, subject=subject)
            for name, value in {**new, "updated_at": now}.items():  # as written, not read back
                setattr(rel, name, value)
            rel.version += 1
            for dimension, threshold, direction in relationships.crossings(old, new):
                # Sent once the write is committed, so a rolled-back (retried) turn sends none.
                transaction.on_commit(
                    partial(
                        signals.relationship_threshold_crossed.send,
                        sender=Relationship,
                        npc=npc,
                        subject=subject,
                        dimension=dimension,
                        threshold=threshold,
                        direction=direction,
                        old=old[dimension],
                        new=new[dimension],
                    )
                )
            return rel
        health.incr("relationship_conflicts")
    raise RuntimeError(f"relationship {npc}->{subject}: too many concurrent updates")


def reputation_of(npc, subject) -> str | None:
    rel = get_relationship(npc, subject, create=False)
    return relationships.reputation_line(rel.values()) if rel else None


def has_met(npc, subject) -> bool:
    """True if they have talked, or the NPC holds a firsthand memory about the subject."""
    return (
        ConversationTurn.objects.filter(npc=npc, speaker=subject).exists()
        or Memory.objects.filter(npc=npc, subject=subject, provenance__isnull=True).exists()
    )
