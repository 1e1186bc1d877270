"""
Relationships: how an NPC stands towards a subject, moved by the feelings of new memories.

Six dimensions in 0-1 (trust, fear, respect, loyalty, friendliness, romance). Each new memory
about a subject nudges them by its feeling, scaled by importance; hearsay counts half. The pure
functions here compute the nudges, detect threshold crossings and phrase a reputation line for
the prompt; `relationship_store.update_relationship` writes them with optimistic concurrency and sends
`relationship_threshold_crossed` so game code can react (a guard turns hostile, a shop gives a
discount).

Plain Python; the signal lives in `omniira_evennia.signals`.
"""

from __future__ import annotations

DIMENSIONS = ("trust", "fear", "respect", "loyalty", "friendliness", "romance")
NEUTRAL = {
    "trust": 0.5,
    "fear": 0.0,
    "respect": 0.5,
    "loyalty": 0.5,
    "friendliness": 0.5,
    "romance": 0.0,
}

# Per feeling, the direction each dimension moves (before scaling).
FEELING_EFFECTS: dict[str, dict[str, float]] = {
    "joy": {"friendliness": 1.0, "trust": 0.3, "loyalty": 0.2},
    "trust": {"trust": 1.0, "loyalty": 0.5, "friendliness": 0.3},
    "anger": {"friendliness": -1.0, "trust": -0.6, "respect": -0.2},
    "fear": {"fear": 1.0, "trust": -0.3},
    "contempt": {"respect": -1.0, "friendliness": -0.5, "trust": -0.3},
    "sorrow": {"friendliness": 0.2},
    "surprise": {},
}

# Faction attitudes shift the starting point (MUD design seed).
FACTION_MODIFIERS = {
    "allied": 0.3,
    "friendly": 0.1,
    "neutral": 0.0,
    "unfriendly": -0.1,
    "hostile": -0.3,
}

STEP = 0.12  # the move of an importance-10, firsthand memory along a weight-1.0 dimension
HEARSAY_FACTOR = 0.5

DEFAULT_THRESHOLDS: dict[str, tuple[float, ...]] = {
    "trust": (0.2, 0.8),
    "friendliness": (0.2, 0.8),
    "fear": (0.7,),
    "respect": (0.2, 0.8),
}


def clamp01(value: float) -> float:
    return max(0.0, min(1.0, value))


def starting_values(attitude: str | None = None) -> dict[str, float]:
    values = dict(NEUTRAL)
    shift = FACTION_MODIFIERS.get((attitude or "neutral").lower(), 0.0)
    for name in ("trust", "friendliness", "respect"):
        values[name] = clamp01(values[name] + shift)
    if shift < 0:
        values["fear"] = clamp01(values["fear"] - shift / 2)
    return values


def apply_feeling(
    values: dict[str, float], feeling: str | None, importance: int, hearsay: bool = False
) -> dict[str, float]:
    """The dimensions after one memory with `feeling` and `importance` (1-10)."""
    effects = FEELING_EFFECTS.get(feeling or "", {})
    scale = STEP * max(1, min(10, importance)) / 10 * (HEARSAY_FACTOR if hearsay else 1.0)
    return {name: clamp01(values[name] + effects.get(name, 0.0) * scale) for name in DIMENSIONS}


def crossings(
    old: dict[str, float], new: dict[str, float], thresholds=DEFAULT_THRESHOLDS
) -> list[tuple[str, float, str]]:
    """(dimension, threshold, "up"|"down") for every threshold the change crossed."""
    found = []
    for name, limits in thresholds.items():
        for limit in limits:
            if old[name] >= limit > new[name]:
                found.append((name, limit, "down"))
            elif old[name] < limit <= new[name]:
                found.append((name, limit, "up"))
    return found


def _grade(value: float, low: str, mid: str, high: str) -> str:
    return low if value < 0.35 else high if value > 0.65 else mid


def reputation_line(values: dict[str, float]) -> str | None:
    """A short phrase for the prompt, or None while everything is near neutral."""
    if all(abs(values[n] - NEUTRAL[n]) < 0.08 for n in DIMENSIONS):
        return None
    parts = [
        _grade(
            values["trust"],
            "you distrust them",
            "you neither trust nor distrust them",
            "you trust them",
        ),
        _grade(
            values["friendliness"],
            "you feel cold, even hostile, towards them",
            "you feel neutral towards them",
            "you are fond of them",
        ),
    ]
    if values["respect"] < 0.35:
        parts.append("you look down on them")
    elif values["respect"] > 0.65:
        parts.append("you respect them")
    if values["fear"] > 0.4:
        parts.append("they frighten you")
    if values["romance"] > 0.5:
        parts.append("you are drawn to them")
    numbers = ", ".join(f"{n} {values[n]:.2f}" for n in ("trust", "friendliness", "fear"))
    return "; ".join(parts) + f" ({numbers})"
