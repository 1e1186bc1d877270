"""Forgetting: the nightly expiry and eviction, retention by importance and age, beliefs' cap."""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Count, Q
from django.utils import timezone

from omniira_evennia.conf import get_settings
from omniira_evennia.memory import service as memory_service
from omniira_evennia.memory.retrieval import importance_multiplier
from omniira_evennia.models import (
    AuditLog,
    Conversation,
    ConversationTurn,
    LLMUsage,
    Memory,
    Reflection,
)
from omniira_evennia.runtime import health


def retention_score(importance, hearsay, felt, age_days, half_life_days) -> float:
    """Higher is kept longer: the retrieval multipliers times an exponential recency decay."""
    score = importance_multiplier(importance) * (0.8 if hearsay else 1.0) * (1.1 if felt else 1)
    return score * 0.5 ** (max(0.0, age_days) / half_life_days)


def forget(now=None) -> dict[str, int]:
    """Delete expired memories and evict the lowest-scoring beyond each (npc, subject) cap."""
    conf = get_settings()
    now = now or timezone.now()
    expired = Memory.objects.filter(expires_at__lte=now, locked=False)
    npc_ids = set(expired.values_list("npc_id", flat=True))
    expired_count, _ = expired.delete()
    evicted = 0
    over = (
        Memory.objects.values("npc_id", "subject_id")
        .annotate(n=Count("id"))
        .filter(n__gt=conf.MEMORY_CAP_PER_SUBJECT)
    )
    for group in over:
        rows = list(
            Memory.objects.filter(
                npc_id=group["npc_id"], subject_id=group["subject_id"]
            ).values_list("id", "importance", "provenance_id", "feeling", "learned_at", "locked")
        )
        unlocked = [r for r in rows if not r[5]]
        excess = len(rows) - conf.MEMORY_CAP_PER_SUBJECT
        unlocked.sort(
            key=lambda r: retention_score(
                r[1],
                r[2] is not None,
                bool(r[3]),
                (now - r[4]).total_seconds() / 86400,
                conf.RETENTION_HALF_LIFE_DAYS,
            )
        )
        doomed = [r[0] for r in unlocked[:excess]]
        evicted += Memory.objects.filter(id__in=doomed).delete()[0]
        npc_ids.add(group["npc_id"])
    for npc_id in npc_ids:
        memory_service.invalidate(npc_id)
    health.incr("memories_expired", expired_count)
    health.incr("memories_evicted", evicted)
    return {"expired": expired_count, "evicted": evicted}


def evict_beliefs(cap: int) -> int:
    """Beyond `cap` beliefs one NPC holds about one target (BELIEFS_PER_TARGET), the least
    important and then the oldest go: a reflection adds up to two a night, for months."""
    evicted = 0
    over = (
        Reflection.objects.values("npc_id", "target_id")
        .annotate(n=Count("id"))
        .filter(n__gt=cap)
        .order_by()
    )
    for group in over:
        ids = list(
            Reflection.objects.filter(npc_id=group["npc_id"], target_id=group["target_id"])
            .order_by("importance", "created_at", "id")
            .values_list("id", flat=True)
        )
        evicted += Reflection.objects.filter(id__in=ids[: len(ids) - cap]).delete()[0]
    health.incr("beliefs_evicted", evicted)
    return evicted


def apply_retention(game_day: int, now=None) -> int:
    """
    Delete what is older than the retention settings (0: keep forever); returns how many rows.
    Usage and audit rows go by real days (the budget and the log are kept in real time, UTC),
    erasure records excepted (they prove a player's data was erased); conversation lines by
    game days, except those of conversations still open or not yet reviewed (the review reads
    them). The NPCs' matrices are dropped from the cache if a line went (the verbatim lane).
    """
    conf = get_settings()
    now = now or timezone.now()
    deleted = 0
    if conf.KEEP_USAGE_DAYS:
        cutoff = now - timedelta(days=conf.KEEP_USAGE_DAYS)
        deleted += LLMUsage.objects.filter(created_at__lt=cutoff).delete()[0]
    if conf.KEEP_AUDIT_DAYS:
        cutoff = now - timedelta(days=conf.KEEP_AUDIT_DAYS)
        old = AuditLog.objects.filter(created_at__lt=cutoff).exclude(kind="erasure")
        deleted += old.delete()[0]
    if conf.KEEP_TURNS_GAME_DAYS:
        unreviewed = Conversation.objects.filter(
            Q(ended_at__isnull=True)
            | Q(
                extraction__in=(
                    Conversation.Extraction.PENDING,
                    Conversation.Extraction.RUNNING,
                )
            )
        ).values("conversation_id")
        turns = ConversationTurn.objects.filter(
            game_day__lte=game_day - conf.KEEP_TURNS_GAME_DAYS
        ).exclude(conversation_id__in=unreviewed)
        gone = turns.delete()[0]
        if gone:
            memory_service.invalidate()
        deleted += gone
    if deleted:
        health.incr("retention_deleted", deleted)
    return deleted
