"""
Knowledge as plain data: records, scopes and the tokens that name them, categories with the
words that ask for them, and the conditions under which a secret may be told.

Scope tokens name who knows a fact in one short string, stored with the row (`scope_token`)
and used as the full-text index's owner: "w0" the world, "n<id>" one NPC, "r<id>" the NPCs in
(or at home in) a room, "z<crc>" the NPCs in a room of a zone (an Evennia tag of category
"zone" on the room), "t<crc>" the NPCs with a tag. Zone and tag names become a CRC-32 of the
lower-cased name, digits only, so the full-text tokeniser keeps them whole.

Plain Python (no Django, Evennia or Twisted).
"""

from __future__ import annotations

import re
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta

CATEGORIES = ("place", "people", "trade", "event", "lore", "faction")
SCOPES = ("npc", "room", "zone", "tag", "world")
GUARDS = ("", "secret", "wont_discuss")
WORLD_TOKEN = "w0"
DIMENSIONS = ("trust", "fear", "respect", "loyalty", "friendliness", "romance")
# A relationship's values before anything moved it (models.Relationship's defaults).
STARTING = {"trust": 0.5, "fear": 0.0, "respect": 0.5, "loyalty": 0.5, "friendliness": 0.5}

# Words that ask about a category ("what's the news?" asks for events however they are
# worded): a line holding one brings that category's facts into the scorer as a lane.
CATEGORY_HINTS = {
    "event": "news happening happened lately rumour rumours rumor rumors going event events "
    "recent recently today tonight week new latest gossip",
    "trade": "sell sells selling sold buy buying cost costs price prices priced charge charges "
    "fee fees pour pours "
    "drink drinks eat food menu serve serves coin coins copper silver gold pay wares stall "
    "stalls shop goods cheap dear rent room rooms bed stew ale cider wine",
    "place": "where road roads way path north south east west leave leads lead direction "
    "directions nearby near far square market tavern sights visit visiting",
    "people": "who whom whose everyone anyone folk people neighbour neighbours townsfolk keeps "
    "runs works lives",
    "lore": "history story stories legend legends old fun games custom customs festival "
    "song songs tale tales",
    "faction": "guild guilds watch council faction factions gang lord lords order",
}
_HINT_WORDS = {cat: frozenset(words.split()) for cat, words in CATEGORY_HINTS.items()}
_WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class KnowledgeRecord:
    """What retrieval, guards and the prompt need of one knowledge row."""

    id: int
    key: str
    text: str
    category: str = "lore"
    importance: int = 5
    confidence: float = 1.0
    guard: str = ""  # "", "secret" or "wont_discuss"
    condition: str = ""
    reply: str = ""
    topics: tuple[str, ...] = ()
    expires_at: float | None = None  # unix seconds
    source: str = "authored"
    hops: int = 0
    chain: tuple[int, ...] = ()
    teller_name: str | None = None
    scope: str = "world"
    scope_token: str = WORLD_TOKEN
    root_id: int | None = None

    @property
    def lineage(self) -> int:
        """The fact this one is a telling of (itself, if first told)."""
        return self.root_id or self.id

    def expired(self, now: float | None) -> bool:
        return now is not None and self.expires_at is not None and self.expires_at <= now


def name_token(prefix: str, name: str) -> str:
    """A zone's or a tag's token: the prefix and the CRC-32 of its lower-cased name."""
    return f"{prefix}{zlib.crc32(' '.join(str(name).lower().split()).encode())}"


def scope_token(scope: str, target_id: int | None = None, name: str = "") -> str:
    """The token of a scope: see the module. `target_id` for npc and room, `name` for the rest."""
    if scope == "world":
        return WORLD_TOKEN
    if scope in ("npc", "room"):
        if target_id is None:
            raise ValueError(f"a {scope} scope needs its object")
        return f"{scope[0]}{int(target_id)}"
    if scope in ("zone", "tag"):
        if not str(name).strip():
            raise ValueError(f"a {scope} scope needs a name")
        return name_token(scope[0], name)
    raise ValueError(f"unknown scope {scope!r} (one of {', '.join(SCOPES)})")


def tag_name(key: str, category: str | None) -> str:
    """How a tag is named in a tag scope: "key", or "key:category" for a categorised tag."""
    return str(key) if not category else f"{key}:{category}"


_QUESTION = re.compile(
    r"^\W*(?:do|does|did|are|is|was|were|have|has|can|could|will|would|what|who|how|where|"
    r"when|why|which|whose|any)\b",
    re.IGNORECASE,
)


def is_question(line: str) -> bool:
    """A line that asks ("?" or a question's first word)."""
    line = str(line or "")[:2000]
    return "?" in line or bool(_QUESTION.match(line))


def hinted_categories(text: str) -> set[str]:
    """The categories a line asks about by its words (CATEGORY_HINTS)."""
    words = set(_WORD.findall(str(text or "").lower()[:2000]))
    return {cat for cat, hints in _HINT_WORDS.items() if words & hints}


# ---------------------------------------------------------------- conditions

_CLAUSE = re.compile(r"^\s*([a-z]+)\s*(>=|<=|>|<|==|=)\s*(-?\d+(?:\.\d+)?)\s*$")


class ConditionError(ValueError):
    pass


@dataclass(frozen=True)
class Clause:
    """One part of a condition: a relationship dimension compared with a number, or a lock."""

    dimension: str = ""
    op: str = ""
    value: float = 0.0
    lock: str = ""  # an Evennia lock function call, e.g. "perm(Builder)" or "tag(guild)"


def parse_condition(text: str) -> list[Clause]:
    """
    A secret's condition: clauses joined by "and", each `<dimension> <op> <number>` (trust,
    fear, respect, loyalty, friendliness or romance, 0-1, against the speaker) or
    `lock:<lockfuncs>` (an Evennia lock string's right side, checked on the speaker). Empty:
    no condition (a secret is then never told). Raises ConditionError naming what is wrong.
    """
    clauses = []
    for part in re.split(r"\s+and\s+", str(text or "").strip(), flags=re.IGNORECASE):
        part = part.strip()
        if not part:
            continue
        if part.lower().startswith("lock:"):
            lock = part[5:].strip()
            if not re.fullmatch(r"[\w().,:' \-!]+", lock) or "(" not in lock:
                raise ConditionError(f"not a lock function: {lock!r} (e.g. lock:perm(Builder))")
            clauses.append(Clause(lock=lock))
            continue
        match = _CLAUSE.match(part.lower())
        if not match or match.group(1) not in DIMENSIONS:
            raise ConditionError(
                f"cannot read {part!r}: write e.g. 'trust >= 0.8' ({', '.join(DIMENSIONS)}) "
                "or 'lock:perm(Builder)'"
            )
        clauses.append(Clause(match.group(1), match.group(2), float(match.group(3))))
    return clauses


def _compare(left: float, op: str, right: float) -> bool:
    return {
        ">=": left >= right,
        "<=": left <= right,
        ">": left > right,
        "<": left < right,
        "=": abs(left - right) < 1e-9,
        "==": abs(left - right) < 1e-9,
    }[op]


def holds(clauses: list[Clause], relationship: dict, lock_check) -> tuple[bool, str]:
    """
    Whether every clause holds for a speaker: `relationship` holds the NPC's dimensions towards
    them (0-1), `lock_check(lockstring)` says whether they pass a lock. Returns (holds, why in
    words). No clauses: never.
    """
    if not clauses:
        return False, "no condition: never told"
    for clause in clauses:
        if clause.lock:
            if not lock_check(clause.lock):
                return False, f"lock {clause.lock} fails"
            continue
        value = float(relationship.get(clause.dimension, STARTING.get(clause.dimension, 0.0)))
        if not _compare(value, clause.op, clause.value):
            return False, f"{clause.dimension} {value:.2f} is not {clause.op} {clause.value:g}"
    return True, "condition holds"


# ---------------------------------------------------------------- expiry

_DURATION = re.compile(
    r"^\s*(?:in\s+)?(\d+(?:\.\d+)?)\s*(game\s*days?|gd|days?|d|hours?|h|minutes?|min|m)\s*$",
    re.IGNORECASE,
)


class ExpiryError(ValueError):
    pass


@dataclass(frozen=True)
class Expiry:
    """When knowledge expires: an absolute time, or a span from when it is first written."""

    at: datetime | None = None
    span: timedelta | None = None

    def from_now(self, now: datetime) -> datetime:
        return self.at if self.at is not None else now + self.span


def parse_expiry(text, game_day_seconds: float = 86400.0) -> Expiry | None:
    """
    An expiry as a builder writes it: an ISO date or time ("2027-01-01", "2027-01-01T18:00"),
    or a span from now ("7d", "12h", "30m", "3 game days", "3gd": a game day lasts
    `game_day_seconds` real seconds). None or "" for none; ExpiryError if unreadable.
    """
    if text is None or str(text).strip().lower() in ("", "never", "none"):
        return None
    text = str(text).strip()
    match = _DURATION.match(text)
    if match:
        amount, unit = float(match.group(1)), match.group(2).lower().replace(" ", "")
        if unit.startswith("game") or unit == "gd":
            return Expiry(span=timedelta(seconds=amount * game_day_seconds))
        seconds = {"d": 86400, "h": 3600, "m": 60}[unit[0] if unit != "min" else "m"]
        return Expiry(span=timedelta(seconds=amount * seconds))
    try:
        return Expiry(at=datetime.fromisoformat(text))
    except ValueError:
        raise ExpiryError(
            f"cannot read the expiry {text!r}: an ISO date or a span like 7d, 12h, 3 game days"
        ) from None


@dataclass
class Withheld:
    """Guarded knowledge a turn does not show, and why (for `@memory why`)."""

    id: int
    guard: str
    reason: str
    key: str = ""


@dataclass
class Guard:
    """A topic the NPC meets with a line of its own, matched on the player's words or meaning."""

    id: int
    kind: str  # "secret" or "wont_discuss"
    key: str
    words: tuple[str, ...]  # the topics (aliases), lower-cased phrases
    reply: str
    vector: object = None  # the topics' embedding (numpy), None: words only
    label: str = ""  # what @memory why names it by (a secret's key, never its text)
    topic: str = ""  # a won't-discuss topic as the prompt names it ("" for a secret)


@dataclass
class KnowledgeLine:
    """One fact as the prompt shows it."""

    text: str
    category: str = "lore"
    heard_from: str | None = None
    confidence: float = 1.0
    secret: bool = False
    own: bool = False  # the NPC's own fact, written to it ("You keep the Lantern & Lane ...")


def written_to_it(text: str) -> bool:
    """A fact written to the NPC that knows it ("You keep the Lantern & Lane ...", "Your forge
    is on the market square ..."): in its own scope, its own life."""
    return bool(re.match(r"\W*(?:you|your)\b", text, re.IGNORECASE))


@dataclass
class WontDiscuss:
    """A topic the NPC will not discuss, as the prompt names it."""

    topic: str
    reply: str = ""


@dataclass
class Recalled:
    """What knowledge a line brought up: the lines for the prompt and the records behind them."""

    lines: list[KnowledgeLine] = field(default_factory=list)
    records: list[KnowledgeRecord] = field(default_factory=list)
    wont_discuss: list[WontDiscuss] = field(default_factory=list)
