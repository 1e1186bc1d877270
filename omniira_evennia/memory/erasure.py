"""
Erasure of a player's data (a privacy request), driven by one registry of where player data
lives: the same list gives the counts a builder confirms and performs the deletion, so a new
table holding player data is added in one place and cannot be counted but left behind.

Two kinds of entry:

- rows *about* the player (their memories, lines, the opinions of them...): deleted;
- rows about something else whose text *names* the player (by their key or an alias, as a
  whole word, any case): deleted, or rewritten without the sentences that name them where the
  rest of the row is the NPC's own and still worth keeping (a diary day, an audit excerpt, a
  world event). A rewritten row's vector is dropped with the old text (NULL: `@memory reembed`
  computes a new one), so no vector of what was erased stays.

Afterwards the full-text index is merged at once (SQLite FTS5 keeps a deleted row's terms in its
segments until a merge) with `secure_delete` on, and a tombstone (`Erasure`) records the time,
so work that began before it and finishes after it cannot write about the player again
(memory/write.py, `late_write`).
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable

from django.contrib.admin.models import LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import connection, transaction
from django.db.models import Q, QuerySet, TextField
from django.db.models.functions import Cast
from django.utils import timezone

from omniira_evennia.memory import fulltext, store
from omniira_evennia.memory.lateness import (  # noqa: F401  (re-exported)
    ERASED_MARK,
    mention_pattern,
    names_of,
    without_mentions,
)
from omniira_evennia.models import (
    AuditLog,
    Concern,
    Conversation,
    ConversationTurn,
    DiaryEntry,
    Erasure,
    Knowledge,
    Memory,
    Opinion,
    Plan,
    Reflection,
    Relationship,
    WorldEvent,
)

# ---------------------------------------------------------------- the registry


@dataclass(frozen=True)
class Rewrite:
    """
    How a row naming the player is rewritten rather than deleted: `field` loses the sentences
    naming them; `vectors` are set to NULL with the old text; a row left with nothing is
    deleted (`empty` None) or keeps `empty` as its text.
    """

    field: str
    vectors: tuple[str, ...] = ()
    empty: str | None = None


@dataclass(frozen=True)
class PlayerData:
    """
    One place that holds player data: a label for builders and the rows for a player. With
    `text`, only the rows among them whose text fields name the player count (they are
    rewritten by `rewrite`, or deleted).
    """

    label: str
    rows: Callable[[object], QuerySet]
    text: tuple[str, ...] = ()
    rewrite: Rewrite | None = None

    def affected(self, player, names: list[str]) -> QuerySet:
        rows = self.rows(player)
        if not self.text:
            return rows
        pattern = mention_pattern(names)
        if pattern is None:
            return rows.none()
        # A cheap filter in the database (any name, any field), then the exact word match.
        columns = {f: f"_erasure_{f}" for f in self.text}
        rows = rows.annotate(**{c: Cast(f, TextField()) for f, c in columns.items()})
        wide = Q()
        for name in names:
            for column in columns.values():
                wide |= Q(**{f"{column}__icontains": name})
        ids = [
            row[0]
            for row in rows.filter(wide).values_list("pk", *columns.values())
            if any(pattern.search(str(value or "")) for value in row[1:])
        ]
        return rows.model.objects.filter(pk__in=ids)

    def count(self, player, names: list[str]) -> int:
        return self.affected(player, names).count()

    def erase(self, player, names: list[str]) -> int:
        rows = self.affected(player, names)
        if self.rewrite is None:
            return rows.delete()[0]
        rewrite, pattern, done = self.rewrite, mention_pattern(names), 0
        for row in rows:
            text = without_mentions(getattr(row, rewrite.field), pattern)
            if not text and rewrite.empty is None:
                row.delete()
            else:
                setattr(row, rewrite.field, text or rewrite.empty)
                for name in rewrite.vectors:
                    setattr(row, name, None)
                # save(), not update(): the full-text triggers and the pinned prompts follow.
                row.save(update_fields=[rewrite.field, *rewrite.vectors])
            done += 1
        return done


def _about(player) -> Q:
    return Q(subject=player) | Q(origin=player)


# Our tables whose rows are about a player, by the field naming them: a Django admin log entry
# of an edit to one of these rows carries its text (`object_repr`, the row's str()).
_ROWS_ABOUT = (
    (Memory, ("subject", "origin")),
    (Opinion, ("target",)),
    (Reflection, ("target",)),
    (Concern, ("source",)),
    (Plan, ("to", "origin")),
    (ConversationTurn, ("speaker",)),
    (Relationship, ("subject",)),
)


def _admin_log_about(player) -> QuerySet:
    """Django admin log entries of edits to rows about `player` (before those rows go)."""
    wanted = Q(pk__in=[])
    for model, fields in _ROWS_ABOUT:
        about = Q()
        for name in fields:
            about |= Q(**{name: player})
        ids = [str(pk) for pk in model.objects.filter(about).values_list("pk", flat=True)]
        if ids:
            kind = ContentType.objects.get_for_model(model)
            wanted |= Q(content_type=kind, object_id__in=ids)
    return LogEntry.objects.filter(wanted)


REGISTRY: list[PlayerData] = [
    # First, while the rows they point at still exist: the admin log keeps each edited row's
    # text in `object_repr` (issue #26, point 11).
    PlayerData("admin log entries about them", _admin_log_about),
    PlayerData("memories", lambda p: Memory.objects.filter(subject=p)),
    # What NPCs learned from the player's words about others (and passed on as gossip).
    PlayerData("memories from their words", lambda p: Memory.objects.filter(origin=p)),
    PlayerData("conversation lines", lambda p: ConversationTurn.objects.filter(speaker=p)),
    PlayerData("opinions", lambda p: Opinion.objects.filter(target=p)),
    PlayerData("relationships", lambda p: Relationship.objects.filter(subject=p)),
    PlayerData("beliefs", lambda p: Reflection.objects.filter(target=p)),
    PlayerData("concerns", lambda p: Concern.objects.filter(source=p)),
    PlayerData("plans", lambda p: Plan.objects.filter(Q(to=p) | Q(origin=p))),
    PlayerData("audit entries", lambda p: AuditLog.objects.filter(speaker=p)),
    # Text about something else that names the player. Deleted where the row is one fact or
    # one utterance, which without the player's name would misquote or mean nothing: a memory
    # (its earlier values included), a line said (NPC-to-NPC talk, another player's words), an
    # opinion, a belief, a concern raised by someone else, a plan.
    PlayerData(
        "memories naming them",
        lambda p: Memory.objects.exclude(_about(p)),
        text=("value", "history"),
    ),
    PlayerData(
        "lines naming them",
        lambda p: ConversationTurn.objects.exclude(speaker=p),
        text=("text",),
    ),
    PlayerData(
        "opinions naming them", lambda p: Opinion.objects.exclude(target=p), text=("opinion",)
    ),
    PlayerData(
        "beliefs naming them", lambda p: Reflection.objects.exclude(target=p), text=("belief",)
    ),
    PlayerData(
        "concerns naming them", lambda p: Concern.objects.exclude(source=p), text=("topic",)
    ),
    PlayerData(
        "plans naming them",
        lambda p: Plan.objects.exclude(Q(to=p) | Q(origin=p)),
        text=("summary", "to_name", "target", "by"),
    ),
    # What NPCs know about the world whose text names the player (a world event they saw,
    # gossip of it, a builder's lore, a guarded topic's line or words): one fact, deleted, and
    # every telling of it with it (issue #25).
    PlayerData(
        "knowledge naming them",
        lambda p: Knowledge.objects.all(),
        text=("text", "reply", "topics", "condition"),
    ),
    PlayerData(
        "admin log entries naming them",
        lambda p: LogEntry.objects.all(),
        text=("object_repr", "change_message"),
    ),
    # Rewritten: a diary day is many sentences of the NPC's own life, an audit row is the
    # record of someone else's manipulation attempt, a world event is game code's; each keeps
    # what does not name the player. The diary's vector goes with its old text.
    PlayerData(
        "diary entries naming them",
        lambda p: DiaryEntry.objects.all(),
        text=("entry",),
        rewrite=Rewrite("entry", vectors=("embedding", "embedder")),
    ),
    PlayerData(
        "audit excerpts naming them",
        # Erasure records name the builder who asked, by key, and the player by id only.
        lambda p: AuditLog.objects.exclude(speaker=p).exclude(kind="erasure"),
        text=("excerpt",),
        rewrite=Rewrite("excerpt", empty=ERASED_MARK),
    ),
    PlayerData(
        "world events naming them",
        lambda p: WorldEvent.objects.all(),
        text=("text",),
        rewrite=Rewrite("text"),
    ),
]


def erasure_counts(player) -> dict[str, int]:
    """How many rows of each kind `erase_player` would delete or rewrite."""
    names = names_of(player)
    return {entry.label: entry.count(player, names) for entry in REGISTRY}


@contextmanager
def _secure_delete():
    """SQLite: deleted content is overwritten with zeros, not left in free pages of the file."""
    if connection.vendor != "sqlite":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA secure_delete")
        before = cursor.fetchone()[0]
        cursor.execute("PRAGMA secure_delete = ON")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA secure_delete = {int(before)}")


def erase_player(player, by=None) -> dict[str, int]:
    """
    Delete everything stored about `player` and rewrite or delete what names them (every
    REGISTRY entry); purge the full-text index; leave a tombstone; audit that it happened.
    """
    names = names_of(player)
    with transaction.atomic(), _secure_delete():
        # Conversations with the player end now and are never reviewed; a review already
        # running sees its claim gone and writes nothing (conversation.lifecycle.extract).
        Conversation.objects.filter(speaker=player, ended_at__isnull=True).update(
            ended_at=timezone.now(), end_reason="erased"
        )
        Conversation.objects.filter(
            speaker=player,
            extraction__in=[Conversation.Extraction.PENDING, Conversation.Extraction.RUNNING],
        ).update(extraction=Conversation.Extraction.SKIPPED)
        erased = {entry.label: entry.erase(player, names) for entry in REGISTRY}
        # After the deletes: a reply or job finishing from now on is late (write.late_write).
        Erasure.objects.create(player_id=player.id)
        # A contentless FTS5 table keeps a deleted row's terms until its segments merge.
        fulltext.purge()
        store.audit(
            "erasure",
            [f"{k}:{v}" for k, v in erased.items() if v],
            speaker=None,
            npc=None,
            excerpt=f"erased data about #{player.id} at the request of "
            f"{by.key if by else 'game code'}",
        )
    store.invalidate()  # every NPC's cached matrix: rows naming the player may be anywhere
    return erased
