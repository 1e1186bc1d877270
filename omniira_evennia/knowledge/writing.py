"""The one knowledge write path (`write_fact`), its embedding, and builders' reads and deletes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

import numpy as np
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from omniira_evennia.conf import get_settings
from omniira_evennia.knowledge.facts import (
    CATEGORIES,
    ConditionError,
    parse_condition,
    parse_expiry,
)
from omniira_evennia.knowledge.scopes import (
    Scope,
    named_scope,
    npc_scope,
    room_scope,
    tokens_for,
    world,
)
from omniira_evennia.memory import service as memory_service
from omniira_evennia.memory.embeddings import embed_or_none, to_blob
from omniira_evennia.memory.policy import police
from omniira_evennia.memory.safety import detect_manipulation
from omniira_evennia.models import Knowledge
from omniira_evennia.runtime import health
from omniira_evennia.runtime.runner import defer_interactive
from omniira_evennia.vocabulary import clamp_int, slug_key


@dataclass
class Fact:
    """
    One knowledge row to write (`write_fact`). `source`: "authored" (a builder or game code
    writing lore: personal data kept, as in a builder's memory), "observed" (a world event an
    NPC saw), "told" (news a player told, `hear_news`) or "gossip" (told by `teller`, an NPC);
    all but the first are redacted and must not read like an instruction. `expires`: a
    datetime, or an `Expiry` from `facts.parse_expiry`.
    """

    scope: Scope
    text: str
    key: str | None = None
    category: str = "lore"
    importance: int = 5
    expires: object = None
    guard: str = ""
    condition: str = ""
    reply: str = ""
    topics: tuple = ()
    source: str = "authored"
    teller: object = None
    chain: tuple = ()
    confidence: float = 1.0
    root_id: int | None = None
    loaded_from: str = ""
    embedding: np.ndarray | None = None
    topic_embedding: np.ndarray | None = None


class FactError(ValueError):
    pass


def game_day_seconds() -> float:
    """Real seconds in a game day (Evennia's TIME_FACTOR)."""
    return 86400.0 / float(getattr(settings, "TIME_FACTOR", 1.0) or 1.0)


def cleaned(fact: Fact) -> dict:
    """The row's fields from `fact` through the text policy; FactError names what is wrong."""
    authored = fact.source == "authored"
    markup = get_settings().LLM_MARKUP
    text = police(fact.text, "knowledge", redact=not authored, markup=markup)
    if not text:
        raise FactError("the text is empty")
    if fact.category not in CATEGORIES:
        raise FactError(f"category must be one of {', '.join(CATEGORIES)}")
    if fact.guard not in ("", "secret", "wont_discuss"):
        raise FactError("guard must be secret or wont_discuss")
    try:
        parse_condition(fact.condition)
    except ConditionError as err:
        raise FactError(str(err)) from None
    topics = [police(t, "plan_field", redact=not authored, markup="strip") for t in fact.topics]
    return dict(
        key=slug_key(fact.key or "") or slug_key(text)[:40] or "fact",
        text=text,
        category=fact.category,
        importance=clamp_int(fact.importance, 1, 10, 5),
        guard=fact.guard,
        condition=" ".join(str(fact.condition or "").split())[:200],
        reply=police(fact.reply, "line", redact=not authored, markup=markup)[:300],
        topics=[t for t in topics if t][:20],
        source=fact.source,
        confidence=max(0.0, min(1.0, float(fact.confidence))),
    )


def topics_text(values: dict) -> str:
    """What a guard's meaning is measured against: its topics, else its text."""
    return ", ".join(values["topics"]) or values["text"]


def write_fact(fact: Fact, embed: bool = True) -> Knowledge | None:
    """
    Make or update one knowledge row through the policy (see the module). Returns the row, or
    None when non-authored text reads like an instruction (refused and audited).
    """
    values = cleaned(fact)
    if fact.source != "authored" and detect_manipulation(values["text"]):
        memory_service.audit(
            "knowledge", detect_manipulation(values["text"]), excerpt=values["text"]
        )
        health.incr("knowledge_refused")
        return None
    scope = fact.scope
    with transaction.atomic():
        row = (
            Knowledge.objects.select_for_update()
            .filter(scope_token=scope.token, key=values["key"])
            .first()
        )
        changed = row is None or (row.text, row.topics) != (values["text"], values["topics"])
        row = row or Knowledge(scope_token=scope.token, key=values["key"])
        for name, value in values.items():
            setattr(row, name, value)
        row.scope, row.npc, row.room, row.scope_name = scope.kind, scope.npc, scope.room, scope.name
        row.teller, row.chain, row.hops = fact.teller, list(fact.chain), len(fact.chain)
        row.root_id, row.loaded_from = fact.root_id, fact.loaded_from or row.loaded_from
        _set_expiry(row, fact.expires, changed)
        _set_vectors(row, fact, values, embed and (changed or row.embedding is None))
        row.updated_at = timezone.now()
        row.save()
    return row


def _set_expiry(row: Knowledge, expires, changed: bool) -> None:
    """A span counts from when the fact was first written (or its text changed), so loading a
    file again does not push an event's end back."""
    if expires is None:
        row.expires_at = None
    elif isinstance(expires, datetime):
        row.expires_at = (
            expires if timezone.is_aware(expires) else expires.replace(tzinfo=dt_timezone.utc)
        )
    elif changed or row.expires_at is None or getattr(expires, "at", None) is not None:
        at = expires.from_now(timezone.now())
        row.expires_at = at if timezone.is_aware(at) else at.replace(tzinfo=dt_timezone.utc)


def _set_vectors(row: Knowledge, fact: Fact, values: dict, embed: bool) -> None:
    if fact.embedding is not None or fact.topic_embedding is not None:
        row.embedding = to_blob(fact.embedding)
        row.topic_embedding = to_blob(fact.topic_embedding)
    elif embed:
        vectors = embed_or_none([values["text"], topics_text(values)])
        row.embedding, row.topic_embedding = to_blob(vectors[0]), to_blob(vectors[1])


def as_expiry(expires):
    """A datetime (or None) from what game code passes: a datetime, a timedelta, seconds, or
    a span as a knowledge file writes it."""
    if expires is None or isinstance(expires, datetime):
        return expires
    if isinstance(expires, timedelta):
        return timezone.now() + expires
    if isinstance(expires, (int, float)):
        return timezone.now() + timedelta(seconds=float(expires))
    return parse_expiry(str(expires), game_day_seconds())


def know(
    scope: Scope,
    text: str,
    *,
    secret: bool = False,
    wont_discuss: bool = False,
    expires=None,
    topics=(),
    embed: bool = True,
    **fields,
) -> Knowledge | None:
    """An authored fact for `scope` (`npc.memory.know` and `api.know`: see their Args)."""
    if secret and wont_discuss:
        raise FactError("secret or wont_discuss, not both")
    fact = Fact(
        scope,
        text,
        expires=as_expiry(expires),
        guard="secret" if secret else ("wont_discuss" if wont_discuss else ""),
        topics=tuple(topics or ()),
        **fields,
    )
    return write_fact(fact, embed=embed)


def embed_pending(facts: list[Fact]) -> list[Fact]:
    """`facts` with their two vectors made (one embedder call; in the worker pool)."""
    texts = []
    for fact in facts:
        topics = ", ".join(t for t in fact.topics if str(t).strip())
        texts += [fact.text, topics or fact.text]
    vectors = embed_or_none(texts)
    for i, fact in enumerate(facts):
        fact.embedding, fact.topic_embedding = vectors[2 * i], vectors[2 * i + 1]
    return facts


def write_later(fact: Fact):
    """`write_fact` with the embedding made in the worker pool: a Deferred of the row."""
    return defer_interactive(embed_pending, [fact]).addCallback(
        lambda done: write_fact(done[0], embed=False)
    )


def rows_of(scope: Scope | None = None, npc=None):
    """Knowledge rows of one scope, or every row an NPC knows through (a QuerySet)."""
    rows = Knowledge.objects.select_related("npc", "room", "teller")
    if scope is not None:
        return rows.filter(scope_token=scope.token)
    if npc is not None:
        return rows.filter(scope_token__in=tokens_for(npc))
    return rows


def forget(scope: Scope, key: str | None = None) -> int:
    """Delete one scope's knowledge (with `key`: that fact only). Returns how many."""
    rows = Knowledge.objects.filter(scope_token=scope.token)
    if key:
        rows = rows.filter(key=slug_key(key))
    return rows.delete()[0]


def save_from_admin(row: Knowledge) -> Knowledge:
    """A row edited in the Django admin, through the same policy as every other write."""
    scope = (
        npc_scope(row.npc)
        if row.scope == "npc" and row.npc_id
        else (
            room_scope(row.room)
            if row.scope == "room" and row.room_id
            else named_scope(row.scope, row.scope_name) if row.scope in ("zone", "tag") else world()
        )
    )
    fact = fact_of_row(row, scope)
    if row.pk:
        old = Knowledge.objects.filter(pk=row.pk).first()
        if old is not None and old.scope_token != scope.token:
            old.delete()  # moved to another scope: written there afresh
    return write_fact(fact)


def fact_of_row(row: Knowledge, scope: Scope) -> Fact:
    """A row as a Fact (to edit it through the write path)."""
    return Fact(
        scope,
        row.text,
        key=row.key,
        category=row.category,
        importance=row.importance,
        expires=row.expires_at,
        guard=row.guard,
        condition=row.condition,
        reply=row.reply,
        topics=tuple(row.topics or ()),
        loaded_from=row.loaded_from,
    )
