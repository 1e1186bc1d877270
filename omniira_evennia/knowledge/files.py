"""
The knowledge file: a game's lore as data, in version control beside its code (issue #25).

JSON, or YAML when PyYAML is installed (`.yaml`/`.yml`). Either a list of entries or an
object with `knowledge` (the list) and optional `defaults` (fields every entry takes unless it
says otherwise):

    {"defaults": {"scope": "world"},
     "knowledge": [
       {"key": "cider_price", "text": "A mug of cider costs two copper.", "category": "trade",
        "scope": "npc:Maren", "importance": 7, "topics": ["cider"]},
       {"key": "fair", "text": "The harvest fair is on the green.", "category": "event",
        "expires": "3 game days"},
       {"key": "cellar", "text": "Maren keeps smuggled brandy under the cellar floor.",
        "secret": true, "condition": "trust >= 0.8", "topics": ["cellar", "brandy"],
        "reply": "Nothing down there but barrels, {speaker}."},
       {"key": "tomas", "text": "Tomas, Maren's late husband", "wont_discuss": true,
        "topics": ["Tomas", "husband"], "reply": "I'll not speak of him."}]}

Fields: `key` (required, unique within its scope), `text` (required), `category` (place,
people, trade, event, lore, faction; default lore), `scope` ("world", "npc:<name>",
"room:<name>", "zone:<name>", "tag:<name>[:<category>]"; default world), `importance` (1-10,
default 5), `expires` (an ISO date or a span: "7d", "12h", "3 game days"; a span counts from
when the fact is first loaded, so loading the file again does not push it back), `topics`
(words and aliases of its subject), `secret` / `wont_discuss` (true to guard it), `condition`
(when a secret may be told: "trust >= 0.8", "lock:perm(Builder)", joined by "and"), `reply`
(the line the NPC says instead; `{speaker}` and `{name}` are filled in).

`parse` reads a file's text into `Entry`s and a list of problems, one per bad entry, so one
typo costs only its entry. Plain Python (no Django, Evennia or Twisted).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from omniira_evennia.knowledge.facts import (
    CATEGORIES,
    ConditionError,
    ExpiryError,
    parse_condition,
    parse_expiry,
)
from omniira_evennia.vocabulary import slug_key

MAX_ENTRIES = 10000


class Entry(BaseModel):
    """One entry of a knowledge file, validated."""

    model_config = ConfigDict(extra="forbid")

    key: str
    text: str = Field(min_length=1, max_length=500)
    category: str = "lore"
    scope: str = "world"
    importance: int = Field(5, ge=1, le=10)
    expires: str | None = None
    topics: list[str] = Field(default_factory=list)
    secret: bool = False
    wont_discuss: bool = False
    condition: str = ""
    reply: str = Field("", max_length=300)

    @field_validator("key")
    @classmethod
    def _key(cls, value: str) -> str:
        key = slug_key(value)
        if not key:
            raise ValueError("a key needs letters or digits")
        return key

    @field_validator("category")
    @classmethod
    def _category(cls, value: str) -> str:
        value = str(value).strip().lower()
        if value not in CATEGORIES:
            raise ValueError(f"one of {', '.join(CATEGORIES)}")
        return value

    @field_validator("scope")
    @classmethod
    def _scope(cls, value: str) -> str:
        kind = str(value).split(":", 1)[0].strip().lower()
        if kind == "world" and ":" not in value:
            return "world"
        if kind not in ("npc", "room", "zone", "tag") or not str(value).split(":", 1)[1:]:
            raise ValueError("world, npc:<name>, room:<name>, zone:<name> or tag:<name>")
        return f"{kind}:{value.split(':', 1)[1].strip()}"

    @field_validator("expires", mode="before")
    @classmethod
    def _expires(cls, value: Any):
        if value in (None, ""):
            return None
        try:
            parse_expiry(str(value))
        except ExpiryError as err:
            raise ValueError(str(err)) from None
        return str(value)

    @field_validator("condition")
    @classmethod
    def _condition(cls, value: str) -> str:
        try:
            parse_condition(value)
        except ConditionError as err:
            raise ValueError(str(err)) from None
        return value.strip()

    @field_validator("topics", mode="before")
    @classmethod
    def _topics(cls, value: Any):
        if isinstance(value, str):
            value = value.split(",")
        return [" ".join(str(t).split())[:60] for t in value or [] if str(t).strip()][:20]

    @property
    def guard(self) -> str:
        return "secret" if self.secret else ("wont_discuss" if self.wont_discuss else "")


class FileError(ValueError):
    pass


def load_text(text: str, fmt: str = "json") -> Any:
    """The file's data: JSON, or YAML (`fmt` "yaml") when PyYAML is installed."""
    if fmt == "yaml":
        try:
            import yaml
        except ImportError:
            raise FileError("YAML needs PyYAML (pip install pyyaml); or write the file as JSON")
        try:
            return yaml.safe_load(text)
        except yaml.YAMLError as err:
            raise FileError(f"not valid YAML: {str(err).splitlines()[0]}") from None
    try:
        return json.loads(text)
    except ValueError as err:
        raise FileError(f"not valid JSON: {err}") from None


def parse(text: str, fmt: str = "json") -> tuple[list[Entry], list[str]]:
    """
    The entries of a knowledge file and its problems ("entry 3 (cellar): condition: ..."),
    each bad entry skipped. A file that cannot be read at all raises FileError.
    """
    data = load_text(text, fmt)
    defaults: dict = {}
    if isinstance(data, dict):
        defaults = data.get("defaults") or {}
        data = data.get("knowledge")
    if not isinstance(data, list) or not isinstance(defaults, dict):
        raise FileError('expected a list of entries, or {"knowledge": [...]}')
    if len(data) > MAX_ENTRIES:
        raise FileError(f"{len(data)} entries: at most {MAX_ENTRIES} per file")
    entries, problems, keys = [], [], set()
    for number, raw in enumerate(data, start=1):
        label = f"entry {number}"
        if not isinstance(raw, dict):
            problems.append(f"{label}: not an object")
            continue
        label += f" ({raw.get('key', '?')})"
        try:
            entry = Entry(**{**defaults, **raw})
        except ValidationError as err:
            problems.append(f"{label}: {_first_error(err)}")
            continue
        if entry.secret and entry.wont_discuss:
            problems.append(f"{label}: secret or wont_discuss, not both")
            continue
        if (entry.scope.lower(), entry.key) in keys:
            problems.append(f"{label}: the key {entry.key!r} is used twice in {entry.scope}")
            continue
        keys.add((entry.scope.lower(), entry.key))
        entries.append(entry)
    return entries, problems


def _first_error(err: ValidationError) -> str:
    first = err.errors()[0]
    where = ".".join(str(p) for p in first.get("loc", ()))
    message = str(first.get("msg", "invalid")).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def format_of(name: str) -> str:
    """ "yaml" for a .yaml or .yml file, else "json"."""
    return "yaml" if str(name).lower().endswith((".yaml", ".yml")) else "json"
