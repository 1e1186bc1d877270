"""
Self-persistence tags: the one place where NPC text is parsed for tags and cleaned.

An NPC may embed four kinds of tag in its reply (paper section 4.2, appendix B):

    [[REMEMBER:{"key":"...","value":"...","importance":1-10,"feeling":"..."}]]
    [[OPINION:"..."]]
    [[CONCERN:{"topic":"...","intensity":1-5}]]
    [[COMMITMENT:{"to":"...","to_kind":"player","action":"travel_to","target":"...",
                  "by":"...","summary":"..."}]]

`parse_reply` finds them, validates their payloads and returns the reply with every tag,
well-formed or broken, removed. Every path that shows or stores NPC text (say, talk, gossip,
history, diaries, logs shown to players) goes through `parse_reply` or `clean_text`, so a tag
can never leak by one path forgetting to strip it.

No Django or Evennia import here: this module is plain Python and tested on its own.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator

from omniira_evennia.vocabulary import (  # noqa: F401  (re-exported for callers of tags)
    FEELINGS,
    KEY_MAX_CHARS,
    OPEN_TAG,
    VALUE_MAX_CHARS,
    Importance,
    clamp_int,
    cut_value,
    normalize_feeling,
    slug_key,
)

TAG_NAMES = ("REMEMBER", "OPINION", "CONCERN", "COMMITMENT")

_DECODER = json.JSONDecoder()


# ---------------------------------------------------------------- payload validation


# Keys small models copy from a prompt's example instead of writing their own.
_PLACEHOLDER_KEY = re.compile(
    r"^(short_snake_case|snake_case|short_key|key|key_name|example|example_key|fact|fact_key|"
    r"descriptive_key|your_key|some_key|note|note_key|topic|value|memory|memory_key)(_\d+)?$"
    r"|snake_case|placeholder"
)


def is_placeholder_key(key: str) -> bool:
    """True for a key that names no fact (`short_snake_case`, `key`, `fact_2` ...)."""
    return bool(_PLACEHOLDER_KEY.search(key or ""))


def clean_value(text: Any) -> str:
    """A payload string made safe to store: tags nested inside it stripped, then cut."""
    return cut_value(clean_text(str(text))) if text is not None else ""


class RememberTag(BaseModel):
    key: str = ""
    value: str
    importance: Importance = 5
    feeling: str | None = None

    @field_validator("value", mode="before")
    @classmethod
    def _value(cls, v):
        v = clean_value(v)
        if not v:
            raise ValueError("empty value")
        return v

    @field_validator("key", mode="before")
    @classmethod
    def _key(cls, v):
        if not isinstance(v, (str, int, float)):
            v = ""
        key = slug_key(v or "")
        # A key copied from a prompt's example would make every note overwrite the last.
        return "" if is_placeholder_key(key) else key

    @field_validator("feeling", mode="before")
    @classmethod
    def _feeling(cls, v):
        return normalize_feeling(v)

    def model_post_init(self, __context):
        if not self.key:
            # A missing key is derived from the value so the row still upserts sensibly.
            object.__setattr__(self, "key", slug_key(self.value)[:40] or "note")


class OpinionTag(BaseModel):
    text: str

    @field_validator("text", mode="before")
    @classmethod
    def _text(cls, v):
        v = clean_value(v)
        if not v:
            raise ValueError("empty opinion")
        return v


class ConcernTag(BaseModel):
    topic: str
    intensity: int = 2

    @field_validator("topic", mode="before")
    @classmethod
    def _topic(cls, v):
        v = clean_value(v)[:200]
        if not v:
            raise ValueError("empty topic")
        return v

    @field_validator("intensity", mode="before")
    @classmethod
    def _intensity(cls, v):
        return clamp_int(v, 1, 5, 2)


class CommitmentTag(BaseModel):
    to: str = ""
    to_kind: Literal["player", "npc"] = "player"
    action: Literal["travel_with", "travel_to"]
    target: str = ""
    by: str = ""
    summary: str

    @field_validator("to", "target", "by", mode="before")
    @classmethod
    def _short(cls, v):
        return clean_value(v)[:100]

    @field_validator("to_kind", "action", mode="before")
    @classmethod
    def _lower(cls, v):
        return str(v).strip().lower() if v is not None else v

    @field_validator("summary", mode="before")
    @classmethod
    def _summary(cls, v):
        v = clean_value(v)
        if not v:
            raise ValueError("empty summary")
        return v


# ---------------------------------------------------------------- parsing


@dataclass
class ParsedReply:
    """A reply with its tags taken out: `text` is safe to show and store."""

    text: str
    remember: list[RememberTag] = field(default_factory=list)
    opinions: list[OpinionTag] = field(default_factory=list)
    concerns: list[ConcernTag] = field(default_factory=list)
    commitments: list[CommitmentTag] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def tag_count(self) -> int:
        return len(self.remember) + len(self.opinions) + len(self.concerns) + len(self.commitments)


# Bounds that keep parsing linear in the reply, whatever a model or a player sends: the text is
# cut to REPLY_MAX_CHARS before anything else, a payload is decoded from a window of at most
# PAYLOAD_MAX_CHARS, at most MAX_TAGS tags are decoded (later ones are removed unread), a payload
# nested deeper than MAX_PAYLOAD_DEPTH is malformed, and fragments that join into a new tag once
# tags are removed are looked at again at most REPARSE_PASSES times.
REPLY_MAX_CHARS = 4000
PAYLOAD_MAX_CHARS = 2000
MAX_TAGS = 12
MAX_PAYLOAD_DEPTH = 6
REPARSE_PASSES = 2
MAX_ERRORS = 20  # problems reported per reply (the rest are counted in one line)

# Where something needs the parser's attention: an opening tag in any form, or a bare `[[`.
_EVENT = re.compile(rf"(?P<tag>{OPEN_TAG.pattern})|\[\[")
_BRACKET_RUN = re.compile(r"[\[\]]{2,}")
_TAG_NAME_COLON = re.compile(r"(?i)(REMEMBER|OPINION|CONCERN|COMMITMENT)[\s:]*:")


TOO_DEEP = object()  # a payload nested past MAX_PAYLOAD_DEPTH


def _depth(value: Any, limit: int) -> int:
    """How deeply `value` nests lists and dicts, counted no further than `limit` + 1."""
    if limit < 0 or not isinstance(value, (list, dict)):
        return 0
    children = value.values() if isinstance(value, dict) else value
    return 1 + max((_depth(child, limit - 1) for child in children), default=0)


def _read_payload(text: str, start: int, bare: bool = False) -> tuple[Any, int] | None:
    """
    Decode one JSON value at `start` and the `]]` or `]` after it; return (payload, end).
    A bare tag (no opening bracket) needs no closing bracket either. The value must lie within
    PAYLOAD_MAX_CHARS of `start` and nest at most MAX_PAYLOAD_DEPTH deep.
    """
    pos = start
    while pos < len(text) and text[pos].isspace() and pos - start < 64:
        pos += 1
    window = text[: pos + PAYLOAD_MAX_CHARS]
    try:
        payload, pos = _DECODER.raw_decode(window, pos)
    except (ValueError, RecursionError):
        return None
    if _depth(payload, MAX_PAYLOAD_DEPTH) > MAX_PAYLOAD_DEPTH:
        payload = TOO_DEEP  # read, so the tag's end is known, but never validated
    while pos < len(text) and text[pos].isspace() and pos - start < PAYLOAD_MAX_CHARS + 64:
        pos += 1
    if text.startswith("]]", pos):
        return payload, pos + 2
    if text.startswith("]", pos):
        return payload, pos + 1
    return (payload, pos) if bare else None


def _validate(name: str, payload: Any, parsed: ParsedReply) -> None:
    try:
        if name == "REMEMBER":
            parsed.remember.append(RememberTag.model_validate(payload))
        elif name == "OPINION":
            if isinstance(payload, dict):
                payload = payload.get("opinion") or payload.get("text")
            parsed.opinions.append(OpinionTag(text=payload))
        elif name == "CONCERN":
            parsed.concerns.append(ConcernTag.model_validate(payload))
        elif name == "COMMITMENT":
            parsed.commitments.append(CommitmentTag.model_validate(payload))
    except (ValidationError, TypeError, ValueError, RecursionError) as err:
        first = err.errors()[0]["msg"] if isinstance(err, ValidationError) else str(err)[:100]
        parsed.errors.append(f"invalid {name} tag: {first}")


def _scrub_brackets(text: str) -> str:
    # Whatever survives (a stray `[[`, a lone `]]`) must not reach a player either. One pass:
    # every run of two or more brackets goes whole, so no new pair can form where one was cut.
    return _BRACKET_RUN.sub("", text)


def _tidy(text: str) -> str:
    text = re.sub(r"[ \t]+", " ", text)
    text = re.sub(r" +([,.!?;:])", r"\1", text)
    text = re.sub(r"\n\s*\n+", "\n", text)
    return text.strip()


def _skip_tag(text: str, match: re.Match, parsed: ParsedReply, decode: bool) -> int | None:
    """
    Handle the opening tag `match`: validate its payload into `parsed` (if `decode`) and return
    where the text goes on after it, or None when the rest of the text belongs to it (a tag cut
    off by the token limit).
    """
    bare = match.group(2) is None and match.group(3) is not None
    name = (match.group(2) or match.group(3)).upper()
    result = _read_payload(text, match.end(), bare=bare) if decode else None
    if result is not None:
        payload, end = result
        if payload is TOO_DEEP:
            parsed.errors.append(f"malformed {name} tag: nested too deeply")
        else:
            _validate(name, payload, parsed)
        return end
    parsed.errors.append(f"malformed {name} tag" if decode else f"{name} tag beyond {MAX_TAGS}")
    if bare:
        return match.end()  # a bare name without a readable payload: drop the name only
    # Not valid JSON: the tag ends at its closing bracket(s), or the reply was cut off.
    closer = "]]" if match.group(0).startswith("[[") else "]"
    close = text.find(closer, match.end())
    return None if close == -1 else close + len(closer)


def _one_pass(text: str, parsed: ParsedReply) -> str:
    """The text with every tag and every `[[...]]` taken out, left to right, once."""
    kept: list[str] = []
    pos = 0
    decoded = 0
    while pos < len(text):
        match = _EVENT.search(text, pos)
        if match is None:
            break
        kept.append(text[pos : match.start()])
        if match.group("tag"):
            decoded += 1
            end = _skip_tag(text, match, parsed, decode=decoded <= MAX_TAGS)
        else:
            # `[[` that opens no known tag: drop through its `]]`, or to the end if unclosed.
            parsed.errors.append("unknown or broken tag")
            close = text.find("]]", match.end())
            end = None if close == -1 else close + 2
        if end is None:
            return "".join(kept)
        pos = end
    kept.append(text[pos:])
    return "".join(kept)


def parse_reply(raw: str | None) -> ParsedReply:
    """
    Take every tag out of `raw`, validating well-formed ones.

    Never raises, and costs time linear in the input (which is cut to REPLY_MAX_CHARS first).
    Malformed payloads are removed and reported in `errors`; an unterminated tag (typically a
    reply cut off by the token limit) removes everything after its opening.
    """
    text = raw[:REPLY_MAX_CHARS] if isinstance(raw, str) else ""
    parsed = ParsedReply(text="")
    for attempt in range(1 + REPARSE_PASSES):
        before = text
        text = _tidy(_scrub_brackets(_one_pass(text, parsed)))
        if text == before or not (OPEN_TAG.search(text) or "[[" in text):
            break
        # Removing one tag can join the pieces around it into another: look again.
        parsed.errors.append("tag rebuilt from fragments")
    else:
        # Still rebuilding after every pass: no bracket and no "NAME:" survives at all.
        text = _tidy(_TAG_NAME_COLON.sub(r"\1", text.replace("[", "").replace("]", "")))
    if len(parsed.errors) > MAX_ERRORS:
        more = len(parsed.errors) - MAX_ERRORS
        parsed.errors = parsed.errors[:MAX_ERRORS] + [f"{more} more tag problems"]
    parsed.text = text
    return parsed


def clean_text(raw: str | None) -> str:
    """The display-safe text of `raw`, for paths that do not act on tags (e.g. player input)."""
    return parse_reply(raw).text


# ---------------------------------------------------------------- structured turns


class StructuredTurn(BaseModel):
    """
    A voice reply as JSON (a tier's `turn_format` "json"): the spoken line and the same notes
    the inline tags carry. Its JSON schema (`model_json_schema()`) is what the server constrains
    the reply to; each entry is validated by the tag models above, one by one, so a bad note
    never costs the line or the other notes.
    """

    say: str = Field(description="your spoken words")
    remember: list[RememberTag] = Field(default_factory=list, max_length=4)
    opinion: str | None = None
    concern: ConcernTag | None = None
    commitment: CommitmentTag | None = None


_SAY = re.compile(r'"say"\s*:\s*"((?:[^"\\]|\\.)*)("?)', re.DOTALL)


def _salvage_say(text: str) -> str | None:
    """The spoken line of a reply whose JSON is broken (typically cut off by the token limit)."""
    match = _SAY.search(text)
    if match is None:
        return None
    body = match.group(1)
    if not match.group(2):
        # Cut off inside the line: keep it up to its last full sentence.
        end = max(body.rfind(". "), body.rfind("! "), body.rfind("? "))
        body = body[: end + 1] if end != -1 else ""
        body = body.rstrip("\\")
    try:
        return json.loads('"' + body + '"')
    except ValueError:
        return body.replace('\\"', '"')


def parse_structured_reply(raw: str | None) -> ParsedReply:
    """
    A structured (JSON) voice reply as a `ParsedReply`, exactly like an inline-tagged one: the
    spoken line goes through `parse_reply` (so a tag written inside it is handled as any tag),
    each remember / opinion / concern / commitment entry is validated by the tag models.
    Never raises; a reply that is no JSON at all is read as a plain, inline-tagged reply.
    """
    text = raw[:REPLY_MAX_CHARS] if isinstance(raw, str) else ""
    start = text.find("{")
    data: Any = None
    if start != -1:
        try:
            data, _ = _DECODER.raw_decode(text, start)
        except (ValueError, RecursionError):
            data = None
    if isinstance(data, dict) and _depth(data, MAX_PAYLOAD_DEPTH + 2) > MAX_PAYLOAD_DEPTH + 2:
        data = None  # nested past any turn's shape: read what can be salvaged of the line
    if not isinstance(data, dict):
        said = _salvage_say(text)
        if said is None:
            if start == -1:
                return parse_reply(text)  # the model answered in prose: take it as such
            parsed = ParsedReply(text="")
            parsed.errors.append("structured reply without a readable line")
            return parsed
        parsed = parse_reply(said)
        parsed.errors.append("structured reply cut off; notes dropped")
        return parsed
    say = data.get("say")
    parsed = parse_reply(say if isinstance(say, str) else "")
    entries = [
        ("REMEMBER", data.get("remember")),
        ("OPINION", data.get("opinion")),
        ("CONCERN", data.get("concern")),
        ("COMMITMENT", data.get("commitment")),
    ]
    for name, value in entries:
        for payload in value[:MAX_TAGS] if isinstance(value, list) else [value]:
            if payload is None or payload == "" or payload == {}:
                continue
            _validate(name, payload, parsed)
    return parsed
