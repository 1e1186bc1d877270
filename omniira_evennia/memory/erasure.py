"""
Erasure of a player's data (a privacy request), driven by one registry of where player data
lives: the same list gives the counts a builder confirms and performs the deletion, so a new
table holding player data is added in one place and cannot be counted but left behind.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from omniira_evennia.memory import store
from omniira_evennia.models import (
    AuditLog,
    Concern,
    Conversation,
    ConversationTurn,
    Memory,
    Opinion,
    Plan,
    Reflection,
    Relationship,
)


@dataclass(frozen=True)
class PlayerData:
    """One place that holds player data: a label for builders and the rows for a player."""

    label: str
    rows: Callable[[object], QuerySet]


REGISTRY: list[PlayerData] = [
    PlayerData("memories", lambda p: Memory.objects.filter(subject=p)),
    # What NPCs learned from the player's words about others (and passed on as gossip).
    PlayerData("memories from their words", lambda p: Memory.objects.filter(origin=p)),
    PlayerData("conversation lines", lambda p: ConversationTurn.objects.filter(speaker=p)),
    PlayerData("opinions", lambda p: Opinion.objects.filter(target=p)),
    PlayerData("relationships", lambda p: Relationship.objects.filter(subject=p)),
    PlayerData("beliefs", lambda p: Reflection.objects.filter(target=p)),
    PlayerData("concerns", lambda p: Concern.objects.filter(source=p)),
    PlayerData("plans", lambda p: Plan.objects.filter(to=p)),
    PlayerData("audit entries", lambda p: AuditLog.objects.filter(speaker=p)),
]


def erasure_counts(player) -> dict[str, int]:
    """How many rows of each kind `erase_player` would delete."""
    return {entry.label: entry.rows(player).count() for entry in REGISTRY}


def erase_player(player, by=None) -> dict[str, int]:
    """Delete everything stored about `player` (every REGISTRY entry); audit that it happened."""
    with transaction.atomic():
        # Conversations with the player end now and are never reviewed; a review already
        # running sees its claim gone and writes nothing (conversation.lifecycle.extract).
        Conversation.objects.filter(speaker=player, ended_at__isnull=True).update(
            ended_at=timezone.now(), end_reason="erased"
        )
        Conversation.objects.filter(
            speaker=player,
            extraction__in=[Conversation.Extraction.PENDING, Conversation.Extraction.RUNNING],
        ).update(extraction=Conversation.Extraction.SKIPPED)
        npc_ids = set(
            Memory.objects.filter(Q(subject=player) | Q(origin=player)).values_list(
                "npc_id", flat=True
            )
        )
        erased = {entry.label: entry.rows(player).delete()[0] for entry in REGISTRY}
        store.audit(
            "erasure",
            [f"{k}:{v}" for k, v in erased.items() if v],
            speaker=None,
            npc=None,
            excerpt=f"erased data about #{player.id} at the request of "
            f"{by.key if by else 'game code'}",
        )
    for npc_id in npc_ids:
        store.invalidate(npc_id)
    return erased
