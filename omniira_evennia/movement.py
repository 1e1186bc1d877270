"""Upgrade shim: games created before 0.2 stored the decision ticker's typeclass path as
"omniira_evennia.movement.OmniiraDecisionTicker" (migration 0007 rewrites stored rows)."""

from omniira_evennia.scripts import OmniiraDecisionTicker  # noqa: F401
