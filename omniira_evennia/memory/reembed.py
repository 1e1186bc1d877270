"""
Re-embedding stored vectors with the configured embedder (issue #19).

Every memory, reflection and diary entry records the embedder that made its vector (the
`embedder` column, 0008). When the configured embedder changes (a new default, another model,
an embeddings endpoint), rows made by another one, rows never recorded (made before 0008) and
rows whose embedding failed are *pending*: `pending_counts()` counts them, `reembed_warning()`
words it for the system check, and a re-embed job redoes them:

    from omniira_evennia.memory import reembed
    job = reembed.start_reembed(report=caller.msg)   # in the game: `@memory reembed`
    job.status_line()                                # progress, at any time
    job.cancel()                                     # stops after the current batch

The job runs in batches: the rows are read on the reactor thread (keyset order: NPC by NPC, so
each NPC's matrix cache is dropped only while its own rows change), embedded in the background
worker pool, and written back on the reactor (ORM writes stay there), each batch in one
transaction. A row is written only if its text is unchanged since it was read and it is still
pending, so a memory rewritten meanwhile by the game keeps its own (already current) vector.
Done rows are marked with the embedder's name, which makes the job resumable: after a restart,
an error or `cancel()`, the next job picks up the rows still pending. Retrieval keeps working
throughout: done rows are searched with their new vectors, pending ones with their old vectors
where the embedder declares them comparable (all-MiniLM-L6-v2 fp32 and int8 are), else as
rows without a vector (recency and full-text lanes only) until they are done.

`reembed_now()` is the same work without a reactor, for the management command
`omniira_reembed` (best with the server stopped: a running server keeps the matrices it has
cached until they are reloaded).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Callable

from django.db import transaction
from django.db.models import Count, Q

from omniira_evennia import models
from omniira_evennia.memory import embeddings, store
from omniira_evennia.runtime import health, runner

log = logging.getLogger("omniira.reembed")

BATCH_SIZE = 64
REPORT_EVERY_SECONDS = 5.0


@dataclass(frozen=True)
class Table:
    label: str  # plural, for messages
    model_name: str
    text_field: str
    per_npc: bool  # keyset by (npc, id) and drop the NPC's matrix cache after a batch

    @property
    def model(self):
        return getattr(models, self.model_name)


TABLES = (
    Table("memories", "Memory", "value", True),
    Table("reflections", "Reflection", "belief", False),
    Table("diary entries", "DiaryEntry", "entry", False),
)


def _pending(table: Table, name: str):
    """Rows not (yet) embedded by `name`: another embedder, unrecorded, or no vector."""
    return table.model.objects.filter(Q(embedder__isnull=True) | ~Q(embedder=name))


def pending_counts(name: str | None = None) -> dict[str, int]:
    """Rows per table still to re-embed for `name` (default: the configured embedder)."""
    name = name or embeddings.embedder_name()
    return {table.label: _pending(table, name).count() for table in TABLES}


def pending_by_embedder(name: str | None = None) -> dict[str, int]:
    """
    Pending rows of all tables by the embedder that made their vector: its name, "unrecorded"
    (a vector from before 0008) or "no vector" (its embedding failed or never ran).
    """
    name = name or embeddings.embedder_name()
    found: dict[str, int] = {}
    for table in TABLES:
        pending = _pending(table, name)
        missing = pending.filter(embedding__isnull=True).count()
        if missing:
            found["no vector"] = found.get("no vector", 0) + missing
        rows = (
            pending.filter(embedding__isnull=False)
            .values("embedder")
            .annotate(n=Count("id"))
            .order_by()
        )
        for row in rows:
            key = row["embedder"] or "unrecorded"
            found[key] = found.get(key, 0) + row["n"]
    return found


def reembed_warning() -> str | None:
    """
    One sentence for the system check when rows are pending, else None. Safe before 0008 is
    applied (the check also runs at `migrate`): returns None when the column is missing.
    """
    from django.db import DatabaseError

    try:
        name = embeddings.embedder_name()
    except Exception:  # the embedder itself is broken: embedder_problems() says why
        return None
    try:
        counts = pending_counts(name)
        if not any(counts.values()):
            return None
        sources = pending_by_embedder(name)
    except DatabaseError:
        return None
    what = ", ".join(f"{n} {label}" for label, n in counts.items() if n)
    made_by = ", ".join(f"{source}: {n}" for source, n in sorted(sources.items()))
    return (
        f"{what} have no vector from the configured embedder {name} ({made_by}). Until they "
        "are re-embedded, similarity search uses their vectors only where the embedders are "
        "comparable. Run `@memory reembed` in the game (or `evennia omniira_reembed` with the "
        "server stopped)."
    )


@dataclass
class Progress:
    embedder: str
    total: int = 0
    done: int = 0
    skipped: int = 0  # changed or already done meanwhile
    batches: int = 0
    started: float = field(default_factory=time.monotonic)
    finished: bool = False
    cancelled: bool = False
    error: str | None = None

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-6)
        rate = self.done / elapsed
        share = f"{100 * self.done / self.total:.0f}%" if self.total else "100%"
        if self.error:
            state = f"failed: {self.error}"
        elif self.cancelled:
            state = "cancelled"
        else:
            state = "done" if self.finished else "running"
        left = self.total - self.done - self.skipped
        eta = f", about {left / rate:.0f} s left" if rate > 0 and not self.finished else ""
        return (
            f"re-embed with {self.embedder}: {self.done}/{self.total} rows ({share}) in "
            f"{elapsed:.1f} s, {rate:.0f} rows/s{eta}; {state}"
        )


class ReembedJob:
    """One pass over the pending rows of every table. Drive it with `run()` or `run_sync()`."""

    def __init__(
        self,
        embedder=None,
        batch_size: int = BATCH_SIZE,
        report: Callable[[str], object] | None = None,
        pause: float = 0.0,
        report_every: float = REPORT_EVERY_SECONDS,
    ):
        self.embedder = embedder if embedder is not None else embeddings.get_embedder()
        self.name = embeddings.embedder_name(self.embedder)
        self.batch_size = batch_size
        self.report = report
        self.pause = pause
        self.report_every = report_every
        self.progress = Progress(self.name)
        self.deferred = None
        self._cancel = False
        self._last_report = 0.0

    # ------------------------------------------------------------ steps (reactor / main thread)

    def _start(self) -> None:
        self.progress.total = sum(pending_counts(self.name).values())
        self._say(f"re-embedding {self.progress.total} rows with {self.name}", force=True)

    def _batches(self):
        """(table, rows) batches of pending rows: rows are (id, text, npc_id)."""
        for table in TABLES:
            cursor = None
            while True:
                queryset = _pending(table, self.name)
                order = ("npc_id", "id") if table.per_npc else ("id",)
                if cursor is not None:
                    if table.per_npc:
                        npc_id, row_id = cursor
                        queryset = queryset.filter(
                            Q(npc_id__gt=npc_id) | Q(npc_id=npc_id, id__gt=row_id)
                        )
                    else:
                        queryset = queryset.filter(id__gt=cursor)
                rows = list(
                    queryset.order_by(*order).values_list("id", table.text_field, "npc_id")[
                        : self.batch_size
                    ]
                )
                if not rows:
                    break
                last = rows[-1]
                cursor = (last[2], last[0]) if table.per_npc else last[0]
                yield table, rows

    def _embed(self, texts: list[str]):
        """In the worker: the vectors of one batch (no ORM here)."""
        vectors = self.embedder.embed(texts)
        if len(vectors) != len(texts):
            raise RuntimeError(f"{self.name} returned {len(vectors)} vectors for {len(texts)}")
        return vectors

    def _write(self, table: Table, rows, vectors) -> None:
        written = 0
        with transaction.atomic():
            for (row_id, text, _npc), vector in zip(rows, vectors):
                written += (
                    _pending(table, self.name)
                    .filter(id=row_id, **{table.text_field: text})
                    .update(embedding=embeddings.to_blob(vector), embedder=self.name)
                )
        if table.per_npc:
            for npc_id in {row[2] for row in rows}:
                store.invalidate(npc_id)
        self.progress.done += written
        self.progress.skipped += len(rows) - written
        self.progress.batches += 1
        health.incr("reembedded", written)
        self._say(self.progress.line())

    def _say(self, text: str, force: bool = False) -> None:
        now = time.monotonic()
        if self.report is None or (not force and now - self._last_report < self.report_every):
            return
        self._last_report = now
        try:
            self.report(text)
        except Exception:  # a reporter that went away (a builder logged off)
            log.exception("re-embed progress report failed")

    def _finish(self, error: BaseException | None = None) -> None:
        if error is not None:
            self.progress.error = f"{type(error).__name__}: {error}"
            log.error("re-embedding stopped: %s", self.progress.error)
        elif self._cancel:
            self.progress.cancelled = True
        else:
            self.progress.finished = True
        self._say(self.progress.line(), force=True)

    def cancel(self) -> None:
        """Stop after the batch in flight (the rows done so far stay done)."""
        self._cancel = True

    @property
    def running(self) -> bool:
        p = self.progress
        return not (p.finished or p.cancelled or p.error)

    def status_line(self) -> str:
        return self.progress.line()

    # ------------------------------------------------------------ drivers

    def run(self):
        """Run in the game: a Deferred that fires with the Progress (never errbacks)."""
        from twisted.internet import defer, reactor, task

        defer_background = getattr(runner, "defer_background", None) or runner.defer_to_worker
        inline = getattr(runner, "_inline", False)

        @defer.inlineCallbacks
        def _loop():
            try:
                self._start()
                for table, rows in self._batches():
                    if self._cancel:
                        break
                    vectors = yield defer_background(self._embed, [row[1] for row in rows])
                    self._write(table, rows, vectors)
                    if self.pause > 0 and not inline:
                        yield task.deferLater(reactor, self.pause, lambda: None)
            except Exception as err:
                self._finish(err)
            else:
                self._finish()
            return self.progress

        self.deferred = _loop()
        return self.deferred

    def run_sync(self) -> Progress:
        """Run to the end on this thread (the management command; no reactor)."""
        try:
            self._start()
            for table, rows in self._batches():
                if self._cancel:
                    break
                self._write(table, rows, self._embed([row[1] for row in rows]))
        except Exception as err:
            self._finish(err)
        else:
            self._finish()
        return self.progress


_job: ReembedJob | None = None


def current_job() -> ReembedJob | None:
    """The job started by `start_reembed` in this process (running or finished), if any."""
    return _job


def start_reembed(
    report: Callable[[str], object] | None = None,
    *,
    batch_size: int = BATCH_SIZE,
    pause: float = 0.05,
    embedder=None,
) -> ReembedJob:
    """
    Start re-embedding every pending row with the configured embedder, in the background;
    returns the job (its `deferred` fires with the Progress when it ends). If a job is
    already running it is returned instead, and `report` is not attached to it. Reactor
    thread only. `report(line)` gets a start line, a progress line at most every 5 s and an
    end line; `pause` seconds between batches leave the worker pool and the database to the
    game.
    """
    global _job
    if _job is not None and _job.running:
        return _job
    _job = ReembedJob(embedder=embedder, batch_size=batch_size, report=report, pause=pause)
    _job.run()
    return _job


def reembed_now(
    report: Callable[[str], object] | None = print,
    *,
    batch_size: int = 128,
    embedder=None,
) -> Progress:
    """Re-embed every pending row now, on this thread (management command, scripts)."""
    return ReembedJob(embedder=embedder, batch_size=batch_size, report=report).run_sync()
