"""
Claim once: the one way a piece of work is owned by exactly one caller (a conversation's
review, a day's diary or reflection), across reactor callbacks, restarts and processes.

A claim is one conditional UPDATE from a ready state to a taken state: the database lets only
one caller move the row, so only one caller sees `True`.
"""

from __future__ import annotations


def claim_once(queryset, field: str, ready, taken) -> bool:
    """Move the rows of `queryset` whose `field` is in `ready` to `taken`; True if any moved."""
    return bool(queryset.filter(**{f"{field}__in": tuple(ready)}).update(**{field: taken}))
