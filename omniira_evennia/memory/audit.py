"""Audit rows for flagged text, at most AUDIT_ROWS_PER_MINUTE of a kind per speaker."""

from __future__ import annotations

from omniira_evennia.conf import get_settings
from omniira_evennia.llm import guards
from omniira_evennia.models import AuditLog
from omniira_evennia.runtime import health


def audit(
    kind: str, labels, npc=None, speaker=None, memory=None, excerpt: str = ""
) -> AuditLog | None:
    """
    An audit row, at most AUDIT_ROWS_PER_MINUTE of a kind per speaker (a flood of flagged
    lines writes that many; the rest are counted in `audit_suppressed`). Rows naming no speaker
    (erasures, game code) are always written. Returns the row, or None when suppressed.
    """
    health.incr(f"audit_{kind}")
    if speaker is not None and not guards.limiter("audit_rows").allow(
        (getattr(speaker, "id", speaker), kind), get_settings().AUDIT_ROWS_PER_MINUTE
    ):
        health.incr("audit_suppressed")
        return None
    return AuditLog.objects.create(
        kind=kind,
        labels=list(labels),
        npc=npc,
        speaker=speaker,
        memory=memory,
        excerpt=" ".join(str(excerpt).split())[:500],
    )
