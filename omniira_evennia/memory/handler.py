"""
`npc.memory`: an NPC's memory as an Evennia handler, the idiom of Evennia's own `TraitHandler`
and `CooldownHandler`. `MemoryNPCMixin` puts it on the NPC with `lazy_property`:

    maren.memory.remember(ada, "Ada mends clocks in Vellmoor.", key="trade", importance=6)
    maren.memory.recall("what does Ada do for a living?", about=ada)
    maren.memory.about(ada)                 # every memory about Ada, oldest first
    maren.memory.forget(about=ada, key="trade")
    maren.memory.beliefs(about=ada)         # daily reflections
    maren.memory.diary()                    # diary entries
    maren.memory.relationship(ada)          # trust, fear, respect, ... (0-1)

Calls run on the reactor thread (scripts, commands, `py`): they touch the database, and
`remember`/`recall`/`search` embed their text (about a millisecond with the default embedder).
`remember_later` embeds in the background pool and returns a Deferred.
"""

from __future__ import annotations

import time
from typing import Any

from django.db.models import QuerySet

from omniira_evennia.conf import get_settings
from omniira_evennia.memory import fulltext, relationship_store, store
from omniira_evennia.memory.embeddings import embed_or_none
from omniira_evennia.memory.fusion import LexicalHits
from omniira_evennia.memory.selection import line_vectors, select_for_line, why_not
from omniira_evennia.memory.write import Note, write_note
from omniira_evennia.models import DiaryEntry, Memory, Reflection, Source
from omniira_evennia.runtime.clock import current_game_day
from omniira_evennia.runtime.runner import defer_interactive


def object_id(obj) -> int:
    """An object or its id."""
    return obj if isinstance(obj, int) else obj.id


class MemoryHandler:
    """The memory of one NPC (`npc.memory`)."""

    def __init__(self, obj):
        self.obj = obj

    @property
    def npc_id(self) -> int:
        return object_id(self.obj)

    def remember(
        self,
        subject,
        value: str,
        *,
        key: str | None = None,
        importance: int = 5,
        feeling: str | None = None,
        source: str = Source.ADMIN,
        teller=None,
        kind: str = "event",
        embed: bool = True,
        embedding=None,
    ) -> Memory | None:
        """
        Remember `value` about `subject` (a character or NPC), through the one write path.

        Args:
            subject: who the memory is about (the NPC itself for its own life).
            value: the text remembered (personal data is redacted unless `source` is admin).
            key: a stable key; remembering the same key again replaces the value. Defaults to
                a slug of the value.
            importance: 1-10 (clamped). feeling: joy, anger, fear, trust, contempt, sorrow or
                surprise (anything else is dropped).
            source: "admin" (default), or "self", "extracted", "gossip", "self_committed".
            teller: who told the NPC (makes the memory hearsay).
            embed: compute the embedding now, on this thread (False: recency and full text
                only). embedding: a vector computed elsewhere (see `remember_later`).

        Returns:
            The Memory row, or None when a locked memory refused the write.
        """
        vector = embedding
        if vector is None and embed:
            vector = embed_or_none([value])[0]
        note = Note(
            subject,
            value,
            key=key,
            importance=importance,
            feeling=feeling,
            source=source,
            teller=teller,
            kind=kind,
            embedding=vector,
            game_day=current_game_day(),
        )
        return write_note(self.obj, note)

    def remember_later(self, subject, value: str, **kwargs):
        """
        `remember`, with the embedding computed off the reactor.

        Returns:
            A Deferred that fires on the reactor with the Memory row (or None).
        """

        def _write(vectors):
            return self.remember(subject, value, embedding=vectors[0], **kwargs)

        return defer_interactive(embed_or_none, [value]).addCallback(_write)

    def recall(self, query: str, about=None) -> list[Memory]:
        """
        What the NPC would bring to mind if `about` said `query` to it now: a conversation
        turn's own retrieval (`memory/selection.py`, the same function a turn and `@memory why`
        call): the pair-aware full-text query, the line embedded without the two names, the
        recency window, the same lanes, slots, suspect rule and prompt budget. A turn also
        shows beliefs and the speaker's own earlier words, which are not memories (`@memory
        why` lists them).

        Args:
            query: the line, as the speaker would say it.
            about: the speaker (only memories about them). Without it, memories about anyone,
                searched by the words of `query` as they are: there is no pair to leave out.

        Returns:
            Memory rows, oldest first (the order of the prompt).
        """
        conf = get_settings()
        subject_id = object_id(about) if about is not None else None
        names = {getattr(self.obj, "key", ""), getattr(about, "key", "")} - {""}
        vectors = line_vectors(query, names if about is not None else set(), conf)
        if about is not None:
            lexical = fulltext.lexical_hits(self.npc_id, subject_id, query, conf)
        elif conf.RETRIEVAL_MODE == "fused":
            ids = fulltext.search_memories(self.npc_id, query, None, conf.LEXICAL_DEPTH)
            lexical = LexicalHits(memories=ids) if ids is not None else None
        else:
            lexical = None
        index = store.load_index(self.npc_id)
        records = select_for_line(index, vectors.query, lexical, subject_id, conf, now=time.time())
        by_id = Memory.objects.in_bulk([r.id for r in records])
        return [by_id[r.id] for r in records if r.id in by_id]

    def why_not(self, query: str, about, memory) -> dict:
        """
        Where `memory` (a Memory, or its id) fell when `about` says `query`: the stage (see
        `memory.selection.STAGES`: not within either lane's depth, under the similarity floor,
        outranked at fusion, outside the recency window, excluded as suspect, another of its
        key taken, cut by the prompt budget, or chosen after all) and its ranks and scores.
        """
        conf = get_settings()
        memory_id = object_id(memory)
        subject_id = object_id(about)
        names = {getattr(self.obj, "key", ""), getattr(about, "key", "")} - {""}
        vectors = line_vectors(query, names, conf)
        lexical = fulltext.lexical_hits(self.npc_id, subject_id, query, conf)
        index = store.load_index(self.npc_id)
        now, explain = time.time(), {}
        chosen = [
            r.id
            for r in select_for_line(
                index, vectors.query, lexical, subject_id, conf, now=now, explain=explain
            )
        ]
        return why_not(
            index,
            memory_id,
            vectors.query,
            lexical,
            subject_id,
            conf,
            now=now,
            explain=explain,
            chosen=chosen,
        )

    def search(self, query: str, limit: int = 10, about=None) -> list[tuple[Memory, float]]:
        """
        Memories most similar to `query` by meaning alone (no recency, no weights).

        Returns:
            (Memory, cosine similarity) pairs, best first; exact on every database.
        """
        [vector] = embed_or_none([query])
        subject_id = object_id(about) if about is not None else None
        found = store.nearest_memories(self.npc_id, vector, limit, subject_id)
        rows = with_rows([memory_id for memory_id, _ in found])
        return [(rows[mid], score) for mid, score in found if mid in rows]

    def about(self, subject) -> QuerySet:
        """Every memory about `subject`, oldest first."""
        return Memory.objects.filter(npc_id=self.npc_id, subject_id=object_id(subject)).order_by(
            "learned_at"
        )

    def forget(self, about=None, key: str | None = None, *, include_locked=False) -> int:
        """
        Delete memories (about a subject, with a key, when given).

        Args:
            about: only memories about this subject. key: only this key.
            include_locked: also delete memories a builder locked.

        Returns:
            How many rows were deleted.
        """
        rows = Memory.objects.filter(npc_id=self.npc_id)
        if about is not None:
            rows = rows.filter(subject_id=object_id(about))
        if key is not None:
            rows = rows.filter(key=key)
        if not include_locked:
            rows = rows.filter(locked=False)
        count, _ = rows.delete()
        store.invalidate(self.npc_id)
        return count

    def beliefs(self, about=None) -> QuerySet:
        """The NPC's beliefs from daily reflection (about a subject, when given), oldest first."""
        rows = Reflection.objects.filter(npc_id=self.npc_id)
        if about is not None:
            rows = rows.filter(target_id=object_id(about))
        return rows.order_by("created_at")

    def diary(self) -> QuerySet:
        """The NPC's diary entries, oldest first."""
        return DiaryEntry.objects.filter(npc_id=self.npc_id).order_by("game_day")

    def relationship(self, subject) -> Any:
        """How the NPC stands towards `subject` (a `Relationship`: six dimensions in 0-1)."""
        return relationship_store.get_relationship(self.obj, subject)

    def by(self, *, feeling: str | None = None, source: str | None = None, about=None):
        """Memories filtered by feeling and/or source (e.g. source="gossip"), oldest first."""
        rows = Memory.objects.filter(npc_id=self.npc_id)
        if feeling is not None:
            rows = rows.filter(feeling=feeling)
        if source is not None:
            rows = rows.filter(source=source)
        if about is not None:
            rows = rows.filter(subject_id=object_id(about))
        return rows.order_by("learned_at")


def with_rows(ids) -> dict[int, Memory]:
    """Memory rows by id, with the objects they name loaded in the same query."""
    return Memory.objects.select_related("npc", "subject", "provenance").in_bulk(list(ids))


def handler_of(npc) -> MemoryHandler:
    """`npc.memory` for an NPC typeclass; a handler for anything else (an id, a bare object)."""
    existing = getattr(npc, "memory", None)
    return existing if isinstance(existing, MemoryHandler) else MemoryHandler(npc)
