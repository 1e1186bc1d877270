"""
`npc.memory` with what the NPC knows about the world (issue #25): the memory handler
(`memory/handler.py`) plus knowledge, so game code and builders reach both in one place:

    maren.memory.know("A mug of cider costs two copper.", key="cider", category="trade")
    maren.memory.know("The harvest fair is on the green.", scope="world", category="event",
                      expires="3 game days")
    maren.memory.know("Maren waters the plum wine.", key="watered_wine", secret=True,
                      condition="trust >= 0.8", topics=["watered", "water down"],
                      reply="My wine? Best in the lane, love.")
    maren.memory.knowledge()                          # every fact she knows through
    maren.memory.knowledge("what does cider cost?", about=ada)  # what a turn would show Ada
    maren.memory.forget_knowledge("cider")

Reactor thread only: these read and write the database, and `know` embeds its text (about a
millisecond with the default embedder).
"""

from __future__ import annotations

import time

from omniira_evennia.conf import get_settings
from omniira_evennia.knowledge import service
from omniira_evennia.knowledge.selection import select_knowledge
from omniira_evennia.memory.embeddings import embed_or_none
from omniira_evennia.memory.fusion import without_names
from omniira_evennia.memory.handler import MemoryHandler
from omniira_evennia.models import Knowledge


class KnowledgeHandler(MemoryHandler):
    """An NPC's memory (`MemoryHandler`) and its knowledge of the world."""

    def _scope(self, scope):
        if scope is None:
            return service.npc_scope(self.obj)
        if isinstance(scope, service.Scope):
            return scope
        return service.resolve_scope(scope)

    def know(
        self,
        text: str,
        *,
        key: str | None = None,
        category: str = "lore",
        scope=None,
        importance: int = 5,
        expires=None,
        secret: bool = False,
        wont_discuss: bool = False,
        condition: str = "",
        reply: str = "",
        topics=(),
        embed: bool = True,
    ) -> Knowledge | None:
        """
        Write a fact the NPC knows (through the knowledge write path, `service.write_fact`).

        Args:
            text: what is known (a won't-discuss entry: the topic itself).
            key: a stable key within its scope; the same key replaces the text.
            category: place, people, trade, event, lore or faction.
            scope: None (this NPC only), "world", "room:<name>", "zone:<name>",
                "tag:<name>", "npc:<name>", or a `service.Scope`.
            importance: 1-10. expires: a datetime, a timedelta, seconds, or a span ("7d",
                "3 game days"); None: never.
            secret: told only where `condition` holds ("trust >= 0.8", "lock:perm(Builder)");
                never, without one. wont_discuss: the NPC says `reply` instead.
            topics: words and aliases of the subject (how a guarded topic is recognised).

        Returns:
            The Knowledge row (None: refused by the policy).
        """
        return service.know(
            self._scope(scope),
            text,
            key=key,
            category=category,
            importance=importance,
            expires=expires,
            secret=secret,
            wont_discuss=wont_discuss,
            condition=condition,
            reply=reply,
            topics=topics,
            embed=embed,
        )

    def knowledge(self, query: str | None = None, about=None) -> list[Knowledge]:
        """
        What the NPC knows. Without `query`: every fact it knows through (its own, its tags',
        its rooms' and zones', the world's), secrets and expired ones included. With `query`:
        what a turn would put in the prompt if `about` (a character; None: no one, so no
        secret) said it now, best first.
        """
        if query is None:
            return list(service.rows_of(npc=self.obj).order_by("scope", "category", "key"))
        conf = get_settings()
        view = service.view_for(self.obj, about, query, conf)
        if view is None:
            return []
        names = {self.obj.key, getattr(about, "key", "")} - {""}
        [vector] = embed_or_none([without_names(query, names) or query])
        chosen = select_knowledge(view, vector, query, conf, now=time.time())
        rows = Knowledge.objects.in_bulk([r.id for r in chosen])
        return [rows[r.id] for r in chosen if r.id in rows]

    def forget_knowledge(self, key: str | None = None, scope=None) -> int:
        """Delete facts of a scope (default: this NPC's own), or one by `key`. Returns how many."""
        return service.forget(self._scope(scope), key)
