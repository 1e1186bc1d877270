"""
Django signals game code can connect to. Each is sent once its write has committed, so a
rolled-back (retried) write sends nothing.

- `relationship_threshold_crossed`: sender=Relationship; npc, subject, dimension, threshold,
  direction ("up"/"down"), old, new. A guard turns hostile, a shop gives a discount.
- `memory_written`: sender=Memory; npc, memory, created (bool), source. After the one write
  path stored a memory (not sent when a locked memory refused the write).
- `plan_closed`: sender=Plan; npc, plan, kept (bool), reason. A commitment was kept or dropped.
"""

from django.dispatch import Signal

relationship_threshold_crossed = Signal()
memory_written = Signal()
plan_closed = Signal()
