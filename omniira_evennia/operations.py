"""Deprecated: the builder's operations moved to `omniira_evennia.builder` (issue #28); this
module re-exports them so 0.2 imports keep working, and will go in a later release."""

import warnings

from omniira_evennia.builder.know import KNOW_SWITCHES, know_fields, knowledge_line
from omniira_evennia.builder.memories import trace_text
from omniira_evennia.builder.stats import stats_text
from omniira_evennia.builder.why import (
    Recall,
    find_memory,
    knowledge_reason,
    knowledge_recall,
    knowledge_why_lines,
    why,
    why_not_reason,
    why_reason,
    why_text,
)

__all__ = [
    "KNOW_SWITCHES",
    "Recall",
    "find_memory",
    "know_fields",
    "knowledge_line",
    "knowledge_reason",
    "knowledge_recall",
    "knowledge_why_lines",
    "stats_text",
    "trace_text",
    "why",
    "why_not_reason",
    "why_reason",
    "why_text",
]

warnings.warn(
    "omniira_evennia.operations moved to omniira_evennia.builder (why, stats, memories, know)",
    DeprecationWarning,
    stacklevel=2,
)
