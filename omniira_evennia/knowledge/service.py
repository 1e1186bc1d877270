"""
The ORM side of knowledge (issue #25): the one write path, the per-scope caches, what a turn
may show a speaker, doubt about claims, gossip, world events and knowledge files.

- `write_fact` is the one way a knowledge row is made or changed (a builder's command, the
  handler, a file, the Django admin's save through `save_from_admin`, gossip, world events):
  the text through the text policy (`police(..., "knowledge")`, personal data redacted unless
  a builder wrote it), the reply through the spoken-line policy, topics cut, a condition that
  must parse, a slug key, and an upsert by (scope, key) that re-embeds only a changed text.
- `index_for(token)` caches one scope's rows as a `KnowledgeIndex`, shared by every NPC that
  knows through it; a save or delete of a row drops its scope's index (`connect_signals`).
- `view_for(npc, speaker, line)` gathers a turn's `KnowledgeView` on the reactor: the NPC's
  scopes, which guarded rows this speaker may be shown (a secret's condition), the guards
  that stand, and the line's full-text hits.

Reactor thread only (ORM), except `embed_pending` (worker).
"""

from __future__ import annotations

import logging
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone
from pathlib import Path

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import BinaryField, F, Func
from django.db.models.signals import post_delete, post_save, pre_save
from django.utils import timezone

from omniira_evennia.conf import get_settings
from omniira_evennia.fields import EMBEDDING_DIM, is_postgres
from omniira_evennia.knowledge import answers, files, news
from omniira_evennia.knowledge.contradiction import Contradiction, stem
from omniira_evennia.knowledge.facts import (
    CATEGORIES,
    WORLD_TOKEN,
    ConditionError,
    Guard,
    KnowledgeRecord,
    Withheld,
    holds,
    name_token,
    parse_condition,
    parse_expiry,
    scope_token,
    tag_name,
)
from omniira_evennia.knowledge.selection import KnowledgeIndex, KnowledgeView
from omniira_evennia.memory import service as memory_service
from omniira_evennia.memory.embeddings import embed_or_none, from_blob, to_blob
from omniira_evennia.memory.fusion import without_names
from omniira_evennia.memory.policy import police
from omniira_evennia.memory.safety import detect_manipulation
from omniira_evennia.memory.service import Note, comparable_vectors, write_note
from omniira_evennia.models import Knowledge, Relationship, Source
from omniira_evennia.runtime import health
from omniira_evennia.runtime.runner import defer_interactive
from omniira_evennia.vocabulary import clamp_int, slug_key

log = logging.getLogger(__name__)

INDEXES_KEPT = 1024  # scopes whose index is cached (an empty scope is one small entry)
_indexes: OrderedDict[str, KnowledgeIndex] = OrderedDict()
_conditions: dict[str, list] = {}


# ---------------------------------------------------------------- scopes


@dataclass(frozen=True)
class Scope:
    """Who knows a fact: the scope's kind, its object or name, token and label."""

    kind: str
    token: str
    label: str
    npc: object = None
    room: object = None
    name: str = ""


class ScopeError(ValueError):
    pass


def world() -> Scope:
    return Scope("world", WORLD_TOKEN, "the world")


def npc_scope(npc) -> Scope:
    return Scope("npc", scope_token("npc", npc.id), npc.key, npc=npc)


def room_scope(room) -> Scope:
    return Scope("room", scope_token("room", room.id), room.key, room=room)


def named_scope(kind: str, name: str) -> Scope:
    name = " ".join(str(name).split())
    return Scope(kind, scope_token(kind, name=name), f"{kind} {name}", name=name)


def _find(name: str, want_room: bool):
    from evennia.objects.models import ObjectDB
    from evennia.utils.search import search_object

    name = name.strip()
    found = (
        list(ObjectDB.objects.filter(id=int(name.lstrip("#"))))
        if name.lstrip("#").isdigit()
        else list(search_object(name))
    )
    rooms = [o for o in found if o.location is None and o.destination is None]
    found = rooms if want_room else [o for o in found if getattr(o, "is_omniira_npc", False)]
    if len(found) != 1:
        what = "room" if want_room else "NPC with memory"
        raise ScopeError(f"{'no' if not found else 'more than one'} {what} called {name!r}")
    return found[0]


def resolve_scope(text: str) -> Scope:
    """A scope as written: world, npc:<name or #id>, room:<name or #id>, zone:<name>, tag:<name>."""
    kind, _, name = str(text or "world").strip().partition(":")
    kind = kind.strip().lower()
    if kind == "world" and not name:
        return world()
    if not name.strip():
        raise ScopeError(f"{kind}: which one? (npc:Maren, room:tavern, zone:harbour, tag:guild)")
    if kind == "npc":
        return npc_scope(_find(name, want_room=False))
    if kind == "room":
        return room_scope(_find(name, want_room=True))
    if kind in ("zone", "tag"):
        return named_scope(kind, name)
    raise ScopeError(f"unknown scope {kind!r}: world, npc, room, zone or tag")


def tokens_for(npc) -> list[str]:
    """The scopes `npc` knows through, most specific first: itself, its tags, its rooms (where
    it is and its home), their zones (tags of category "zone" on the room), the world."""
    tokens = [scope_token("npc", npc.id)]
    for key, category in npc.tags.all(return_key_and_category=True):
        tokens.append(name_token("t", tag_name(key, category)))
    rooms = _rooms(npc)
    tokens += [scope_token("room", room.id) for room in rooms]
    for room in rooms:
        for zone in room.tags.get(category="zone", return_list=True) or []:
            tokens.append(name_token("z", zone))
    tokens.append(WORLD_TOKEN)
    return list(dict.fromkeys(tokens))


def _rooms(npc) -> list:
    return [r for r in dict.fromkeys((npc.location, npc.home)) if r is not None]


def scope_label(row: Knowledge) -> str:
    """How `@memory know list` and the inspector name a row's scope."""
    if row.scope == "npc":
        return f"npc {row.npc.db_key if row.npc_id else '?'}"
    if row.scope == "room":
        return f"room {row.room.db_key if row.room_id else '?'}"
    if row.scope in ("zone", "tag"):
        return f"{row.scope} {row.scope_name}"
    return "world"


# ---------------------------------------------------------------- the write path


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
        memory_service.audit("knowledge", detect_manipulation(values["text"]), excerpt=values["text"])
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


# ---------------------------------------------------------------- the per-scope caches

_COLUMNS = (
    "id",
    "key",
    "text",
    "category",
    "importance",
    "confidence",
    "guard",
    "condition",
    "reply",
    "topics",
    "expires_at",
    "source",
    "hops",
    "chain",
    "teller__db_key",
    "scope",
    "scope_token",
    "root_id",
    "vector",
    "topic_vector",
)


def _record(row: tuple) -> KnowledgeRecord:
    values = dict(zip(_COLUMNS, row))
    expires = values["expires_at"]
    return KnowledgeRecord(
        id=values["id"],
        key=values["key"],
        text=values["text"],
        category=values["category"],
        importance=values["importance"],
        confidence=float(values["confidence"]),
        guard=values["guard"] or "",
        condition=values["condition"] or "",
        reply=values["reply"] or "",
        topics=tuple(values["topics"] or ()),
        expires_at=expires.timestamp() if expires is not None else None,
        source=values["source"],
        hops=values["hops"] or 0,
        chain=tuple(values["chain"] or ()),
        teller_name=values["teller__db_key"],
        scope=values["scope"],
        scope_token=values["scope_token"],
        root_id=values["root_id"],
    )


def _wire(column: str):
    """How a vector column is read: (expression, header bytes, dtype). PostgreSQL's
    `vector_send` is pgvector's binary form (a 4-byte header, big-endian floats), as the memory
    matrix reads it (memory.store's vector wire)."""
    if is_postgres(connection):
        return Func(F(column), function="vector_send", output_field=BinaryField()), 4, ">f4"
    return F(column), 0, "<f4"


def _vector(blob, header: int, dtype: str):
    if blob is None or len(blob) != header + EMBEDDING_DIM * 4:
        return None
    return np.frombuffer(bytes(blob)[header:], dtype=dtype).astype(np.float32)


def read_index(token: str) -> KnowledgeIndex:
    """One scope's rows from the database, as an index (vectors another embedder made, and
    so cannot be compared, are read as missing)."""
    text_wire, header, dtype = _wire("embedding")
    topic_wire = _wire("topic_embedding")[0]
    rows = list(
        Knowledge.objects.filter(scope_token=token)
        .annotate(vector=comparable_vectors(text_wire), topic_vector=comparable_vectors(topic_wire))
        .order_by("id")
        .values_list(*_COLUMNS)
    )
    records = [_record(row) for row in rows]
    matrix = np.zeros((len(rows), EMBEDDING_DIM), dtype=np.float32)
    has_vector = np.zeros(len(rows), dtype=bool)
    topic_vectors = {}
    for i, row in enumerate(rows):
        vector = _vector(row[-2], header, dtype)
        if vector is not None:
            norm = float(np.linalg.norm(vector))
            matrix[i] = vector / norm if norm > 0 else vector
            has_vector[i] = norm > 0
        topic = _vector(row[-1], header, dtype)
        if topic is not None and records[i].guard:
            topic_vectors[records[i].id] = topic / (float(np.linalg.norm(topic)) or 1.0)
    index = KnowledgeIndex(token, records, matrix, has_vector)
    index.topic_vectors.update(topic_vectors)
    index.known_names = npc_names()
    return index


def index_for(token: str) -> KnowledgeIndex:
    """The cached index of a scope (read once; dropped when one of its rows changes)."""
    found = _indexes.get(token)
    if found is not None:
        _indexes.move_to_end(token)
        return found
    found = _indexes[token] = read_index(token)
    while len(_indexes) > INDEXES_KEPT:
        _indexes.popitem(last=False)
    return found


def invalidate(token: str | None = None) -> None:
    """Drop one scope's cached index, or every one (and the NPCs' names)."""
    if token is None:
        _indexes.clear()
        _names[0] = 0.0
    else:
        _indexes.pop(token, None)


def _on_change(sender, instance, **kwargs):
    invalidate(instance.scope_token)
    # The row may have moved scope (the admin): its old scope's index holds it too.
    for token, index in list(_indexes.items()):
        if instance.id in index.row_of:
            invalidate(token)


def connect_signals() -> None:
    """Keep the caches current, and record the embedder of each vector saved."""
    pre_save.connect(_save_scope_token, sender=Knowledge, dispatch_uid="omniira_knowledge_token")
    post_save.connect(_on_change, sender=Knowledge, dispatch_uid="omniira_knowledge_save")
    post_delete.connect(_on_change, sender=Knowledge, dispatch_uid="omniira_knowledge_delete")
    memory_service.stamp_embedder_on_save(Knowledge)


def _save_scope_token(sender, instance, raw=False, **kwargs):
    """A row saved anywhere (the Django admin too) names its scope by the right token."""
    if raw:
        return
    target = instance.npc_id if instance.scope == "npc" else instance.room_id
    try:
        instance.scope_token = scope_token(instance.scope, target, instance.scope_name)
    except ValueError:
        instance.scope_token = instance.scope_token or WORLD_TOKEN


# ---------------------------------------------------------------- what a turn may show


def _condition(text: str) -> list:
    if text not in _conditions:
        try:
            _conditions[text] = parse_condition(text)
        except ConditionError:  # written before a check existed: never told
            _conditions[text] = []
    return _conditions[text]


def _lock_check(speaker):
    from evennia.locks.lockhandler import check_lockstring

    def check(lock: str) -> bool:
        try:
            return bool(check_lockstring(speaker, f"knowledge:{lock}"))
        except Exception:  # a lock function that fails tells nothing
            log.warning("knowledge condition lock:%s could not be checked", lock)
            return False

    return check


def relationship_of(npc, speaker) -> dict:
    """The NPC's dimensions towards `speaker` (empty: none yet, the defaults apply)."""
    if speaker is None:
        return {}
    dimensions = Relationship.DIMENSIONS
    row = (
        Relationship.objects.filter(npc_id=npc.id, subject_id=speaker.id)
        .values_list(*dimensions)
        .first()
    )
    return dict(zip(dimensions, row)) if row else {}


def may_tell(npc, speaker, record: KnowledgeRecord, relationship=None) -> tuple[bool, str]:
    """Whether guarded `record` holds for `speaker` (its condition), and why, in words."""
    if speaker is None:
        return False, "no speaker"
    if relationship is None:
        relationship = relationship_of(npc, speaker)
    return holds(_condition(record.condition), relationship, _lock_check(speaker))


def _guard(index: KnowledgeIndex, record: KnowledgeRecord, conf) -> Guard:
    reply = record.reply or (
        conf.KNOWLEDGE_WONT_DISCUSS_LINE if record.guard == "wont_discuss" else ""
    )
    words = tuple(t.lower() for t in record.topics) or (
        (record.text.lower(),) if record.guard == "wont_discuss" else ()
    )
    return Guard(
        id=record.id,
        kind=record.guard,
        key=record.key,
        words=words,
        reply=reply,
        vector=index.topic_vectors.get(record.id),
        label=record.key,
        topic=record.text if record.guard == "wont_discuss" else "",
    )


def _shadowed(groups: list[KnowledgeIndex]) -> frozenset:
    """Rows a more specific scope of the NPC overrides by key (its own fact wins the world's)."""
    seen, hidden = set(), set()
    for group in groups:
        for record in group.records:
            if record.key in seen:
                hidden.add(record.id)
        seen |= set(group.row_of_key)
    return frozenset(hidden)


NAMES_SECONDS = 60.0  # how long the memory NPCs' names are kept before they are read again
_names: list = [0.0, frozenset()]


def npc_names() -> frozenset:
    """Every memory NPC's name, lower-cased (names at a claim's start: "Wren keeps the forge"),
    read at most once a minute."""
    if time.monotonic() - _names[0] > NAMES_SECONDS:
        keys = (o.key.lower() for o in memory_service.memory_npcs(located=False))
        _names[:] = [time.monotonic(), frozenset(w for key in keys for w in key.split())]
    return _names[1]


def view_for(npc, speaker, line: str = "", conf=None, now: float | None = None):
    """
    What `npc` knows and may tell `speaker`, for `line` (see `selection.KnowledgeView`); None
    when the NPC knows nothing (no knowledge block, no rule about unknown world questions).
    """
    conf = conf or get_settings()
    now = time.time() if now is None else now
    groups = [g for g in (index_for(t) for t in tokens_for(npc)) if len(g)]
    if not groups:
        return None
    names = {npc.key.lower(), *(w.lower() for r in _rooms(npc) for w in r.key.split())}
    names |= npc_names()
    view = KnowledgeView(
        groups=groups,
        shadowed=_shadowed(groups),
        names=frozenset(names).union(*(g.names for g in groups)),
    )
    allowed, relationship = set(), None
    for group in groups:
        for row in group.guarded.tolist():
            record = group.records[row]
            if record.expired(now) or record.id in view.shadowed:
                continue
            if relationship is None:  # read once, for the first guarded fact
                relationship = relationship_of(npc, speaker)
            told, why = may_tell(npc, speaker, record, relationship)
            if told:
                allowed.add(record.id)
                continue
            view.withheld.append(Withheld(record.id, record.guard, why, record.key))
            view.guards.append(_guard(group, record, conf))
    view.allowed = frozenset(allowed)
    if line:
        names = {npc.key, getattr(speaker, "key", "")} - {""}
        searched = " ".join(searched_terms(groups, without_names(line, names)))
        view.lexical = memory_service.search_knowledge(
            [g.token for g in groups], searched, conf.LEXICAL_DEPTH
        )
        view.searched = searched
    return view


COMMON_SHARE = 0.2  # a word in more of an NPC's facts than this ranks none of them
COMMON_MIN_FACTS = 20


def searched_terms(groups: list[KnowledgeIndex], text: str) -> list[str]:
    """
    The full-text terms of `text` for the NPC's knowledge: its words, without those found in
    more than COMMON_SHARE of the facts it knows (once it knows COMMON_MIN_FACTS): as the
    pair-aware memory query leaves out the pair's common words, a word every fact holds
    ("costs" in a price list) finds nothing in particular and makes the index rank them all.
    """
    terms = memory_service.query_terms(text)
    total = sum(len(g) for g in groups)
    if total < COMMON_MIN_FACTS:
        return terms
    limit = COMMON_SHARE * total
    return [t for t in terms if sum(g.frequency[stem(t)] for g in groups) <= limit]


# ---------------------------------------------------------------- claims against knowledge


def doubt_for(npc, speaker=None):
    """
    A check for notes written about `speaker` (memory/write.write_reply's `doubt`): the
    contradiction record of a value against what `npc` knows (secrets too: a flag tells
    nothing), or None. None when the NPC knows nothing.
    """
    view = view_for(npc, None)
    if view is None:
        return None
    view.allowed = frozenset(r.id for g in view.groups for r in g.records if r.guard == "secret")
    ignore = (npc.key, getattr(speaker, "key", ""))

    def doubt(value: str) -> dict | None:
        found = answers.doubts(view, value, time.time(), ignore)
        return found[0].as_record() if found else None

    return doubt


def note_claims(npc, speaker, found: list[Contradiction], game_day: int) -> list:
    """
    What `speaker` claimed against `npc`'s knowledge, kept as uncertain memories about them
    (one per fact, key `claim_<fact key>`): the prompt shows them as doubtful, `@memory
    inspect` as uncertain, and no reflection takes them for the truth.
    """
    keys = dict(
        Knowledge.objects.filter(id__in=[c.knowledge_id for c in found]).values_list("id", "key")
    )
    written = []
    for item in found:
        note = Note(
            speaker,
            f'{speaker.key} claimed: "{item.claim.rstrip(".!")}."',
            key=f"claim_{keys.get(item.knowledge_id, item.knowledge_id)}",
            importance=4,
            source=Source.SELF,
            game_day=game_day,
            from_player=True,
            speaker=speaker,
            uncertain=True,
            doubt=item.as_record(),
        )
        written.append(write_note(npc, note))
        health.incr("knowledge_claims_doubted")
    return written


# ---------------------------------------------------------------- gossip and world events


def _lineages(view: KnowledgeView | None) -> set[int]:
    if view is None:
        return set()
    return {r.lineage for g in view.groups for r in g.records} | {
        r.id for g in view.groups for r in g.records
    }


def shareable(teller, listener, conf=None) -> list[KnowledgeRecord]:
    """
    What `teller` may pass on to `listener` (the seed's rules): not guarded, not the world's
    (everyone knows it), not expired, important enough (KNOWLEDGE_GOSSIP_IMPORTANCE), sure
    enough after one more hop (KNOWLEDGE_MIN_CONFIDENCE), fewer than GOSSIP_MAX_HOPS tellings
    from its source, the listener not among its tellers and not knowing it already, not
    written to the NPC as "you". Best first: events, then importance, then confidence.
    """
    conf = conf or get_settings()
    view = view_for(teller, listener, conf=conf)
    if view is None:
        return []
    known = _lineages(view_for(listener, teller, conf=conf))
    now = time.time()
    found = [
        r
        for r in view.shown(now)
        if not r.guard
        and r.scope != "world"
        and r.importance >= conf.KNOWLEDGE_GOSSIP_IMPORTANCE
        and r.confidence - conf.KNOWLEDGE_CONFIDENCE_DECAY >= conf.KNOWLEDGE_MIN_CONFIDENCE
        and r.hops < conf.GOSSIP_MAX_HOPS
        and listener.id not in r.chain
        and r.lineage not in known
        # A fact written to the NPC ("Your forge is on the square") is its own, not news.
        and not answers.addressed_to_npc(r.text)
    ]
    # What happened (an event: news a player told, a world event) before standing lore: it is
    # what people pass on, and one fact a talk (KNOWLEDGE_GOSSIP_PER_TALK) would else be a price.
    return sorted(found, key=lambda r: (r.category != "event", -r.importance, -r.confidence, r.id))


def share(teller, listener, conf=None) -> list[Knowledge]:
    """
    `teller` tells `listener` up to KNOWLEDGE_GOSSIP_PER_TALK facts (`shareable`), each kept
    as the listener's own, heard from the teller: its chain grows by the teller, its
    confidence falls by KNOWLEDGE_CONFIDENCE_DECAY, its expiry and vectors come along.
    """
    conf = conf or get_settings()
    told = []
    for record in shareable(teller, listener, conf)[: conf.KNOWLEDGE_GOSSIP_PER_TALK]:
        source = Knowledge.objects.filter(id=record.id).first()
        if source is None:
            continue
        row = write_fact(
            Fact(
                npc_scope(listener),
                source.text,
                key=source.key,
                category=source.category,
                importance=source.importance,
                expires=source.expires_at,
                topics=tuple(source.topics or ()),
                source="gossip",
                teller=teller,
                chain=(*record.chain, teller.id),
                confidence=round(record.confidence - conf.KNOWLEDGE_CONFIDENCE_DECAY, 3),
                root_id=record.lineage,
                embedding=from_blob(source.embedding),
                topic_embedding=from_blob(source.topic_embedding),
            ),
            embed=False,
        )
        if row is not None:
            told.append(row)
            health.incr("knowledge_gossiped")
    cap_learned(listener, conf.KNOWLEDGE_PER_NPC)
    return told


def hear_news(npc, speaker, line: str, conf=None) -> list:
    """
    News a player tells `npc` about someone else (knowledge/news.py), kept as knowledge it was
    told: "Ada says Harlan the miller broke his leg.", category event, teller the player, the
    confidence of one telling, KNOWLEDGE_NEWS_DAYS game days to live, important enough to pass
    on (KNOWLEDGE_GOSSIP_IMPORTANCE). News against what the NPC knows is not kept (the claim
    is noted as uncertain by the turn); a teller keeps at most KNOWLEDGE_NEWS_PER_TELLER items
    with one NPC (the oldest go). Written off the reactor (`write_later`); Deferreds returned.
    """
    conf = conf or get_settings()
    if not conf.KNOWLEDGE_NEWS_DAYS or not getattr(speaker, "key", ""):
        return []
    items = news.news_in(line, speaker.key, npc.key, set(npc_names()))
    doubt = doubt_for(npc, speaker) if items else None
    pending = []
    for sentence in items:
        if doubt is not None and doubt(sentence):
            continue
        text = news.told_text(speaker.key, sentence)
        fact = Fact(
            npc_scope(npc),
            text,
            key=("news_" + slug_key(sentence))[:60],
            category="event",
            importance=conf.KNOWLEDGE_GOSSIP_IMPORTANCE,
            expires=as_expiry(f"{conf.KNOWLEDGE_NEWS_DAYS} game days"),
            source="told",
            teller=speaker,
            chain=(speaker.id,),
            confidence=round(1.0 - conf.KNOWLEDGE_CONFIDENCE_DECAY, 3),
        )
        health.incr("news_heard")
        pending.append(write_later(fact).addCallback(_keep_news, npc, speaker, conf))
    return pending


def _keep_news(row, npc, speaker, conf):
    """After one more item from `speaker`: their oldest beyond KNOWLEDGE_NEWS_PER_TELLER go."""
    told = Knowledge.objects.filter(
        scope_token=scope_token("npc", npc.id), source="told", teller=speaker
    ).order_by("-created_at", "-id")
    extra = list(told.values_list("id", flat=True)[conf.KNOWLEDGE_NEWS_PER_TELLER :])
    if extra:
        Knowledge.objects.filter(id__in=extra).delete()
    cap_learned(npc, conf.KNOWLEDGE_PER_NPC)
    return row


def witnessed(event, npcs, expires=None, importance=None, category: str = "event") -> list:
    """
    A world event (`rollover.service.log_world_event`) becomes the knowledge of the NPCs who
    saw it (`npcs`, memory NPCs only): one fact each (key `event_<id>`), observed, with the
    builder's expiry (a datetime, a timedelta, seconds, or a span like "3 game days").
    """
    importance = importance or get_settings().KNOWLEDGE_EVENT_IMPORTANCE
    expiry = as_expiry(expires)
    rows = []
    for npc in npcs:
        if not getattr(npc, "is_omniira_npc", False):
            continue
        row = write_fact(
            Fact(
                npc_scope(npc),
                event.text,
                key=f"event_{event.id}",
                category=category,
                importance=importance,
                expires=expiry,
                source="observed",
            )
        )
        if row is not None:
            rows.append(row)
            cap_learned(npc, get_settings().KNOWLEDGE_PER_NPC)
    return rows


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


def cap_learned(npc, keep: int) -> int:
    """Keep at most `keep` facts an NPC saw or heard (expired first, then the least important,
    then the oldest, go); what a builder wrote is never dropped."""
    rows = Knowledge.objects.filter(scope_token=scope_token("npc", npc.id)).exclude(
        source="authored"
    )
    now = timezone.now()
    expired = list(rows.filter(expires_at__lte=now).values_list("id", flat=True))
    extra = max(0, rows.count() - len(expired) - keep)
    dropped = expired + list(
        rows.exclude(id__in=expired)
        .order_by("importance", "created_at", "id")
        .values_list("id", flat=True)[:extra]
    )
    if dropped:
        Knowledge.objects.filter(id__in=dropped).delete()
    return len(dropped)


# ---------------------------------------------------------------- knowledge files


@dataclass
class LoadPlan:
    """What loading a file will do: the facts to write (changed or new), those unchanged, the
    rows of the same file no longer in it, and each entry's problem."""

    name: str
    facts: list[Fact] = field(default_factory=list)
    unchanged: int = 0
    stale: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    added: int = 0
    updated: int = 0
    removed: int = 0

    def summary(self) -> str:
        parts = [
            f"{self.added} added",
            f"{self.updated} updated",
            f"{self.unchanged} unchanged",
            f"{self.removed} removed",
        ]
        text = f"Knowledge from {self.name}: " + ", ".join(parts) + "."
        if self.problems:
            text += f" {len(self.problems)} entr{'y' if len(self.problems) == 1 else 'ies'} "
            text += "skipped:\n  " + "\n  ".join(self.problems[:20])
        return text


class LoadError(ValueError):
    pass


def read_file(path, anywhere: bool = False) -> tuple[str, str]:
    """(text, name) of a knowledge file; LoadError when it cannot be read. Relative paths are
    the game folder's; unless `anywhere`, a path outside it is refused (a builder in the game
    names lore, not the server's files)."""
    base = Path(getattr(settings, "GAME_DIR", ".")).resolve()
    target = Path(path)
    target = (target if target.is_absolute() else base / target).resolve()
    if target.suffix.lower() not in (".json", ".yaml", ".yml"):
        raise LoadError("a knowledge file ends in .json, .yaml or .yml")
    if not anywhere and base not in target.parents:
        raise LoadError(f"{path}: knowledge files are read from inside the game folder only")
    try:
        return target.read_text(encoding="utf-8"), target.name
    except OSError as err:
        raise LoadError(f"cannot read {target.name}: {err.strerror}") from None


def plan_load(text: str, name: str, fmt: str | None = None, prune: bool = True) -> LoadPlan:
    """Read a knowledge file's `text` into a LoadPlan (on the reactor: scopes are looked up)."""
    try:
        entries, problems = files.parse(text, fmt or files.format_of(name))
    except files.FileError as err:
        raise LoadError(f"{name}: {err}") from None
    plan = LoadPlan(name=name, problems=problems)
    wanted = set()
    for entry in entries:
        try:
            fact = _fact_of(entry, name)
        except (ScopeError, FactError, ValueError) as err:
            plan.problems.append(f"{entry.key}: {err}")
            continue
        wanted.add((fact.scope.token, entry.key))
        if _unchanged(fact):
            plan.unchanged += 1
        else:
            plan.facts.append(fact)
    if prune:
        rows = Knowledge.objects.filter(loaded_from=name).values_list("id", "scope_token", "key")
        plan.stale = [i for i, token, key in rows if (token, key) not in wanted]
    return plan


def _fact_of(entry, name: str) -> Fact:
    expires = parse_expiry(entry.expires, game_day_seconds()) if entry.expires else None
    return Fact(
        resolve_scope(entry.scope),
        entry.text,
        key=entry.key,
        category=entry.category,
        importance=entry.importance,
        expires=expires,
        guard=entry.guard,
        condition=entry.condition,
        reply=entry.reply,
        topics=tuple(entry.topics),
        loaded_from=name,
    )


def _unchanged(fact: Fact) -> bool:
    """The row is already as the file says (its expiry span aside: it counts from the first
    load), so it is not written or embedded again."""
    row = Knowledge.objects.filter(scope_token=fact.scope.token, key=fact.key).first()
    if row is None or row.embedding is None:
        return False
    values = cleaned(fact)
    same = all(getattr(row, k) == v for k, v in values.items())
    if getattr(fact.expires, "at", None) is not None:
        same = same and row.expires_at == _set_expiry_value(fact.expires)
    elif fact.expires is None:
        same = same and row.expires_at is None
    return same and row.loaded_from == fact.loaded_from


def _set_expiry_value(expires) -> datetime:
    at = expires.from_now(timezone.now())
    return at if timezone.is_aware(at) else at.replace(tzinfo=dt_timezone.utc)


def apply_load(plan: LoadPlan) -> LoadPlan:
    """Write a plan whose facts are embedded (`embed_pending`), in one transaction."""
    with transaction.atomic():
        for fact in plan.facts:
            existed = Knowledge.objects.filter(scope_token=fact.scope.token, key=fact.key).exists()
            if write_fact(fact, embed=fact.embedding is None) is not None:
                plan.updated += existed
                plan.added += not existed
        if plan.stale:
            plan.removed = Knowledge.objects.filter(id__in=plan.stale).delete()[0]
    health.incr("knowledge_loaded", plan.added + plan.updated)
    return plan


def load_file(path, prune: bool = True, anywhere: bool = True) -> LoadPlan:
    """Load a knowledge file now, on this thread: the management command and a world build,
    which may name any path (`@memory know load` reads the game folder only)."""
    text, name = read_file(path, anywhere=anywhere)
    plan = plan_load(text, name, prune=prune)
    embed_pending(plan.facts)
    return apply_load(plan)


def load_file_later(path, prune: bool = True):
    """`load_file` with the embeddings made in the worker pool: a Deferred of the LoadPlan.
    For `@memory know load`: only a file inside the game folder."""
    text, name = read_file(path)
    plan = plan_load(text, name, prune=prune)
    return defer_interactive(embed_pending, plan.facts).addCallback(lambda _: apply_load(plan))


# ---------------------------------------------------------------- builders' reading


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
