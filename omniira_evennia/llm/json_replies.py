"""Structured (JSON) calls: a model's schema, `chat_json` with its retry, a reply's JSON read."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from omniira_evennia.llm.results import LLMError, Usage
from omniira_evennia.runtime import health


@dataclass
class JsonResult:
    value: Any
    usages: list[Usage]


class LLMJsonError(LLMError):
    def __init__(self, message: str, usages: list[Usage]):
        super().__init__(message, usages[-1])
        self.usages = usages


def schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """
    The JSON schema a server constrains a reply to, generated from the pydantic model that
    validates it (so the two cannot disagree): references inlined, titles and defaults dropped,
    every object closed with all its properties required (OpenAI's strict mode and llama.cpp's
    grammar both accept that shape).
    """
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})

    def inline(node):
        if isinstance(node, list):
            return [inline(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return inline(defs[node["$ref"].rsplit("/", 1)[-1]])
        out = {
            k: inline(v) for k, v in node.items() if k not in ("title", "default", "description")
        }
        if out.get("type") == "object" and "properties" in out:
            out["additionalProperties"] = False
            out["required"] = list(out["properties"])
        return out

    return inline(raw)


def chat_json(
    client,  # an LLMClient
    tier_name: str,
    messages: list[dict[str, str]],
    *,
    feature: str,
    validator: type[BaseModel],
    schema: dict[str, Any] | None = None,
    max_tokens: int | None = None,
    npc_id: int | None = None,
) -> JsonResult:
    """
    A call that must return JSON matching the pydantic `validator`'s schema (`schema_of`), and
    validated by it.

    The tier's `structured_output` capability decides how the schema is enforced by the server;
    whatever the server does, the reply is validated and, if invalid, the model gets one repair
    request quoting the error. Raises LLMJsonError (with every call's usage) if that fails too.
    """
    schema = schema if schema is not None else schema_of(validator)
    usages: list[Usage] = []
    attempt_messages = list(messages)
    error = ""
    for attempt in (1, 2):
        try:
            result = client.chat(
                tier_name,
                attempt_messages,
                feature=feature,
                json_schema=schema,
                max_tokens=max_tokens,
                temperature=0.2 if attempt == 2 else None,
                npc_id=npc_id,
            )
        except LLMError as err:
            usages.append(err.usage)
            raise LLMJsonError(str(err), usages) from err
        usages.append(result.usage)
        try:
            return JsonResult(validator.model_validate(parse_json_reply(result.text)), usages)
        except (ValueError, ValidationError) as err:
            error = str(err).splitlines()[0][:300]
            health.incr("json_repairs" if attempt == 1 else "json_failures")
            attempt_messages = list(messages) + [
                {"role": "assistant", "content": result.text[:2000]},
                {
                    "role": "user",
                    "content": f"That reply was not valid: {error}. Answer again with only one "
                    f"JSON object matching this schema, nothing else: {json.dumps(schema)}",
                },
            ]
    usages[-1].ok, usages[-1].error = False, f"invalid JSON after repair: {error}"[:500]
    raise LLMJsonError(f"invalid JSON after one repair: {error}", usages)


def parse_json_reply(text: str) -> Any:
    """Parse a JSON reply, tolerating a ```json fence or prose around one object."""
    text = text.strip()
    if text.startswith("```"):
        text = text.strip("`")
        if text.lower().startswith("json"):
            text = text[4:]
    try:
        return json.loads(text)
    except ValueError:
        start, end = text.find("{"), text.rfind("}")
        if start != -1 and end > start:
            return json.loads(text[start : end + 1])
        raise
