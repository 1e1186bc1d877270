"""
The rows of an NPC's own notes: opinions, concerns, plans, beliefs and diary entries.

Only rows: every text reaches them through the write policy (`memory/write.py`), which sits
below every capability, so the tables it writes live in memory rather than with the
capabilities that read them (the rollover, daily life). Runs on the reactor, as store.py.
"""

from __future__ import annotations

from django.db.models import Q
from django.utils import timezone

from omniira_evennia.memory.embeddings import from_blob
from omniira_evennia.memory.retrieval import TextRecord
from omniira_evennia.models import Concern, DiaryEntry, Opinion, Plan, Reflection
from omniira_evennia.vocabulary import clamp_int, cut_value


def set_opinion(npc, target, text: str) -> Opinion:
    opinion, _ = Opinion.objects.update_or_create(
        npc=npc, target=target, defaults={"opinion": cut_value(text), "updated_at": timezone.now()}
    )
    return opinion


def opinion_of(npc, target) -> str | None:
    return Opinion.objects.filter(npc=npc, target=target).values_list("opinion", flat=True).first()


def add_concern(
    npc,
    topic: str,
    intensity: int = 2,
    source=None,
    suspect=False,
    game_day: int = 0,
    private: bool = False,
) -> Concern:
    """The row only: every caller goes through `memory.write.write_concern` (the policy)."""
    return Concern.objects.create(
        npc=npc,
        topic=cut_value(topic)[:200],
        intensity=clamp_int(intensity, 1, 5, 2),
        source=source,
        suspect=suspect,
        game_day=game_day,
        private=private,
    )


def cap_concerns(npc, keep: int) -> int:
    """Delete all but the newest `keep` concerns of `npc`; returns how many went."""
    extra = (
        Concern.objects.filter(npc=npc)
        .order_by("-created_at", "-id")
        .values_list("id", flat=True)[keep:]
    )
    return Concern.objects.filter(id__in=list(extra)).delete()[0]


def current_concerns(npc, speaker=None, limit: int = 3) -> list[tuple[str, int]]:
    """
    What is on the NPC's mind in a conversation with `speaker`: concerns that speaker raised and
    the NPC's own (a worry someone raised in talk never reaches another's conversation).
    Suspect concerns are never shown.
    """
    rows = Concern.objects.filter(npc=npc, resolved=False, suspect=False)
    # Whether a concern is private was decided when it was written (write.write_concern), not
    # from its source's account now: Evennia clears that link when a player logs out.
    if speaker is not None:
        rows = rows.filter(Q(private=False) | Q(source=speaker))
    else:
        rows = rows.filter(private=False)
    rows = rows.order_by("-intensity", "-created_at")
    return [(c.topic, c.intensity) for c in rows[:limit]]


def expire_concerns(today: int, days: int) -> int:
    """Delete concerns raised `days` game days ago or earlier; returns how many."""
    return Concern.objects.filter(game_day__lte=today - days).delete()[0]


def add_plan(
    npc, commitment, to_obj=None, game_day: int = 0, origin=None, suspect: bool = False
) -> Plan:
    """The row only: every caller goes through `memory.write.write_plan` (the policy)."""
    return Plan.objects.create(
        npc=npc,
        to=to_obj,
        to_name=commitment.to,
        to_kind=commitment.to_kind,
        action=commitment.action,
        target=commitment.target,
        by=commitment.by,
        summary=commitment.summary,
        game_day=game_day,
        origin=origin,
        suspect=suspect,
    )


def add_belief(npc, target, belief: str, **fields) -> Reflection:
    """The row only: every caller goes through `memory.write.write_belief` (the policy)."""
    return Reflection.objects.create(npc=npc, target=target, belief=belief, **fields)


def set_diary(npc, game_day: int, entry: str, **fields) -> DiaryEntry:
    """The row only: every caller goes through `memory.write.write_diary` (the policy)."""
    diary, _ = DiaryEntry.objects.update_or_create(
        npc=npc, game_day=game_day, defaults={"entry": entry, **fields}
    )
    return diary


def reflection_records(npc, target) -> list[TextRecord]:

    return [
        TextRecord(
            id=r.id,
            text=r.belief,
            created_at=r.created_at.timestamp(),
            importance=r.importance,
            vector=from_blob(r.embedding),
        )
        for r in Reflection.objects.filter(npc=npc, target=target).order_by("-created_at")[:200]
    ]


def recent_diary(npc, limit: int = 2) -> list[str]:
    entries = DiaryEntry.objects.filter(npc=npc).order_by("-game_day")[:limit]
    return [e.entry for e in reversed(list(entries))]
