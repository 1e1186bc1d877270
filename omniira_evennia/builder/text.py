"""How the builder's tools write a memory and a span of time in a line of text."""

from __future__ import annotations

from omniira_evennia.conf import get_settings
from omniira_evennia.memory.safety import neutralize_markup
from omniira_evennia.models import Memory


def memory_line(memory: Memory) -> str:
    """One memory as `@memory` lists it: id, source, importance, flags, key, value, history."""
    flags = []
    if memory.provenance_id:
        flags.append(f"heard from {memory.provenance.db_key}")
    if memory.feeling:
        flags.append(memory.feeling)
    if memory.locked:
        flags.append("|ylocked|n")
    if memory.suspect:
        flags.append("|rsuspect|n")
    extra = f" ({', '.join(flags)})" if flags else ""
    markup = get_settings().LLM_MARKUP  # stored text is shown without links or MXP
    line = (
        f"  |w#{memory.id}|n [{memory.source}, imp {memory.importance}]{extra} "
        f"{memory.key}: {neutralize_markup(memory.value, markup)}"
    )
    for old in memory.history or []:
        shown = neutralize_markup(str(old.get("value")), markup)
        line += f"\n      |xused to be (until {old.get('until', '?')[:16]}): {shown}|n"
    return line


def span(seconds: float) -> str:
    """A duration in its largest whole unit: "40 s", "3 min", "2 h"."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h"


def ago(when, now) -> str:
    return f"{span((now - when).total_seconds())} ago"
