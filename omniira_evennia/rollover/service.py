"""
The game-day rollover (paper section 5): forgetting, reflection, diaries.

The ticker notices when the game day (Evennia game time) has moved past the last day rolled
over, persists the new day first (so a restart resumes rather than repeats), and runs
`run_rollover` for the day that ended. Each piece of work, a diary or a reflection on one
target, is claimed in `DailyWork` before its LLM call; the writes and the "done" mark share a
transaction, so a day's work runs at most once, across restarts and manual re-runs. Work runs
through the worker pool with at most ROLLOVER_CONCURRENCY jobs in flight; the reactor only
gathers inputs and writes results.
"""

from __future__ import annotations

import logging
import time

from django.db.models import Q
from django.utils import timezone
from twisted.internet import defer, task

from omniira_evennia.conf import get_settings
from omniira_evennia.llm.client import get_client
from omniira_evennia.llm.service import Job, run_job
from omniira_evennia.memory import service as memory_service
from omniira_evennia.memory.embeddings import get_embedder, to_blob
from omniira_evennia.memory.service import write_belief, write_diary
from omniira_evennia.models import DailyWork

# Claims, forgetting and the day's records live in their own modules; their names stay
# importable from here (the shell, tests and games found them here before).
from omniira_evennia.rollover.claims import (  # noqa: F401
    claim,
    mark_work,
    reset_unfinished_claims,
    retry_failed,
    work_failed,
)
from omniira_evennia.rollover.day_records import (  # noqa: F401
    day_signals,
    grounded_memories,
    is_headline,
    log_world_event,
    places_visited,
    record_visit,
    reflection_input,
    reflection_targets,
    world_events_by_npc,
)
from omniira_evennia.rollover.diary import DiaryInput, run_diary
from omniira_evennia.rollover.forgetting import (  # noqa: F401
    apply_retention,
    evict_beliefs,
    forget,
    retention_score,
)
from omniira_evennia.rollover.reflection import run_reflection
from omniira_evennia.runtime import clock, health, runner

log = logging.getLogger(__name__)

LAST_DAY_KEY = "omniira_last_rollover_day"
ROLLOVER_RETRIES_PER_TICK = 4  # failed pieces of work tried again per tick


# ---------------------------------------------------------------- claims


# ---------------------------------------------------------------- forgetting


# ---------------------------------------------------------------- inputs (on the reactor)


# ---------------------------------------------------------------- jobs


def _note(report: dict | None, key: str, value) -> None:
    """Record an outcome in a rollover's per-NPC report (see `run_rollover`), if kept."""
    if report is not None:
        report[key] = value


def _already(kind: str, npc, game_day: int, target_id: int = 0) -> str:
    status = (
        DailyWork.objects.filter(kind=kind, npc=npc, target_id=target_id, game_day=game_day)
        .values_list("status", flat=True)
        .first()
    )
    return f"already {status or 'claimed'} for day {game_day}"


def reflection_job(npc, target, count, game_day, report: dict | None = None):
    """
    `report`, if given, gets the outcome: "beliefs" grows by the beliefs written, and a
    reflection that wrote none adds why to its "notes".
    """
    notes = report.setdefault("notes", []) if report is not None else []
    if not claim("reflection", npc, game_day, target.id):
        notes.append(f"about {target.key}: {_already('reflection', npc, game_day, target.id)}")
        return defer.succeed(0)
    inp = reflection_input(npc, target, count)
    client, embedder = get_client(), get_embedder()

    def _apply(result) -> int:
        if result.error:
            health.incr("reflection_failures")
            state = work_failed("reflection", npc, game_day, result.error, target.id)
            notes.append(f"about {target.key}: failed ({result.error}); {_next(state)}")
            return 0
        for belief, vector in zip(result.beliefs, result.vectors):
            write_belief(
                npc,
                target,
                belief.belief,
                grounds=inp.memory_values,
                importance=belief.importance,
                memories_count=count,
                embedding=to_blob(vector),
                game_day=game_day,
            )
        mark_work("reflection", npc, game_day, "done", target.id)
        health.incr("reflections")
        if report is not None:
            report["beliefs"] = report.get("beliefs", 0) + len(result.beliefs)
        if not result.beliefs:
            notes.append(f"about {target.key}: the model drew no belief")
        return len(result.beliefs)

    return run_job(
        Job(
            kind="reflection",
            label=f"{npc.key} about {target.key} (day {game_day})",
            work=lambda: run_reflection(inp, client, embedder),
            apply=_apply,
            npc=npc,
            on_failure=lambda: notes.append(
                f"about {target.key}: failed; "
                + _next(work_failed("reflection", npc, game_day, "the job crashed", target.id))
            ),
        )
    )


def diary_job(npc, game_day, events=None, report: dict | None = None):
    """`report`, if given, gets the outcome as "diary": "written" or why not."""
    if not claim("diary", npc, game_day):
        _note(report, "diary", _already("diary", npc, game_day))
        return defer.succeed(0)
    signals = day_signals(npc, game_day, events)
    if signals.empty:
        mark_work("diary", npc, game_day, "empty")
        health.incr("diaries_skipped_quiet")
        _note(report, "diary", "a quiet day: no memories, places or events to write about")
        return defer.succeed(0)
    inp = DiaryInput(
        npc.id,
        npc.key,
        npc.attributes.get("npc_role", default="") or "",
        npc.attributes.get("npc_personality", default="") or "",
        game_day,
        signals,
    )
    client, embedder = get_client(), get_embedder()

    def _apply(result) -> int:
        if result.entry is None:
            health.incr("diary_failures")
            error = result.error or "no usable entry"
            state = work_failed("diary", npc, game_day, error)
            _note(report, "diary", f"failed ({error}); {_next(state)}")
            return 0
        write_diary(
            npc,
            game_day,
            result.entry.entry,
            importance=result.entry.importance,
            embedding=to_blob(result.vector),
        )
        mark_work("diary", npc, game_day, "done")
        health.incr("diaries")
        _note(report, "diary", "written")
        return 1

    return run_job(
        Job(
            kind="diary",
            label=f"{npc.key} (day {game_day})",
            work=lambda: run_diary(inp, client, embedder),
            apply=_apply,
            npc=npc,
            on_failure=lambda: _note(
                report,
                "diary",
                "failed (see the server log); "
                + _next(work_failed("diary", npc, game_day, "the job crashed")),
            ),
        )
    )


def _next(state: str) -> str:
    return "it will be tried again" if state == "retry" else "tried as often as allowed"


def _job_failed(failure, kind, npc, game_day, target_id=0, report=None):
    """Any error in a job (its reactor part or its worker part): mark it failed, go on."""
    log.error(f"omniira: {kind} for {npc.key} (day {game_day}) failed: {failure.getErrorMessage()}")
    if report is not None:
        if kind == "diary":
            report["diary"] = f"failed ({failure.getErrorMessage()})"
        else:
            report.setdefault("notes", []).append(f"failed ({failure.getErrorMessage()})")
    try:
        work_failed(kind, npc, game_day, failure.getErrorMessage(), target_id)
    except Exception:  # e.g. the database is locked; the claim is reset at the next start
        log.exception("omniira: could not mark the failed job")
    health.incr(f"{kind}_failures")
    return 0


def retry_due(now=None) -> list:
    """Run the day's failed work whose wait is over (the ticker calls this). Returns its
    Deferreds."""
    from evennia.objects.models import ObjectDB

    now = now or timezone.now()
    rows = list(
        DailyWork.objects.filter(status="retry")
        .filter(Q(retry_at__isnull=True) | Q(retry_at__lte=now))
        .values_list("kind", "npc_id", "target_id", "game_day")[:ROLLOVER_RETRIES_PER_TICK]
    )
    objects = ObjectDB.objects.in_bulk({r[1] for r in rows} | {r[2] for r in rows if r[2]})
    deferreds = []
    for kind, npc_id, target_id, game_day in rows:
        npc = objects.get(npc_id)
        if npc is None:
            continue
        if kind == "diary":
            deferreds.append(diary_job(npc, game_day))
        elif kind == "reflection" and objects.get(target_id) is not None:
            count = grounded_memories(npc, target_id).count()
            deferreds.append(reflection_job(npc, objects[target_id], count, game_day))
    return deferreds


def run_rollover(game_day: int | None = None, npcs=None, per_npc: bool = False) -> defer.Deferred:
    """
    Run the day's forgetting, reflections and diaries now (default: today). Fires with a
    summary dict once every job has finished. Safe to call again: claimed work is skipped.

    NPCs are planned one at a time by a Twisted cooperator (in 10 ms slices between which the
    reactor serves players), so the first job starts after one NPC's planning whatever the
    number of NPCs (`first_job_s` in the summary).

    With `per_npc`, the summary's "npcs" lists what was done for each NPC (`@memory rollover`
    shows it):
    {"npc": name, "diary": "written" or why not, "beliefs": how many were written,
    "beliefs_note": why none or some were not ("" if nothing to say)}.
    """
    conf = get_settings()
    day = clock.current_game_day() if game_day is None else game_day
    started = time.monotonic()
    forgotten = _forget_for_day(day, conf)
    plan = _DayPlan(conf, day, world_events_by_npc(day), started)

    def planning():
        for npc in npcs if npcs is not None else memory_service.memory_npcs():
            plan.plan(npc)
            yield None

    if runner.inline():  # tests run no reactor: plan everything now
        for _ in planning():
            pass
        planned = defer.succeed(None)
    else:
        planned = task.cooperate(planning()).whenDone()
    planned.addCallback(lambda _: defer.gatherResults(plan.jobs, consumeErrors=True))
    return planned.addCallback(plan.summary, forgotten, per_npc)


def _forget_for_day(day: int, conf) -> dict:
    """The night's forgetting, each part allowed to fail without stopping the diaries."""
    try:
        forgotten = forget()
    except Exception:  # forgetting can wait a day; the diaries should not
        log.exception("omniira: forgetting failed during the rollover")
        health.incr("forget_failures")
        forgotten = {"expired": 0, "evicted": 0}
    forgotten["concerns_expired"] = memory_service.expire_concerns(day, conf.CONCERN_DAYS)
    forgotten["beliefs_evicted"] = evict_beliefs(conf.BELIEFS_PER_TARGET)
    try:
        forgotten["retention_deleted"] = apply_retention(day)
    except Exception:  # retention can wait a day too
        log.exception("omniira: retention failed during the rollover")
        health.incr("retention_failures")
        forgotten["retention_deleted"] = 0
    return forgotten


class _DayPlan:
    """One rollover's jobs, planned NPC by NPC, at most ROLLOVER_CONCURRENCY in flight."""

    def __init__(self, conf, day: int, events: dict, started: float):
        self.conf, self.day, self.events, self.started = conf, day, events, started
        self.semaphore = defer.DeferredSemaphore(conf.ROLLOVER_CONCURRENCY)
        self.jobs: list[defer.Deferred] = []
        self.counts = {"reflection_jobs": 0, "first_job_s": None}
        self.reports: list[dict] = []

    def add(self, job: defer.Deferred) -> None:
        if self.counts["first_job_s"] is None:
            self.counts["first_job_s"] = round(time.monotonic() - self.started, 3)
        self.jobs.append(job)

    def plan(self, npc) -> None:
        conf, day = self.conf, self.day
        report = {"npc": npc.key, "diary": "not written", "beliefs": 0, "notes": []}
        self.reports.append(report)
        if not conf.REFLECTIONS:
            report["notes"].append("reflections are off (REFLECTIONS)")
        elif not is_headline(npc):
            report["notes"].append("only headline NPCs reflect")
        else:
            self.plan_reflections(npc, report)
        if conf.DIARIES:
            self.add(
                self.semaphore.run(diary_job, npc, day, self.events, report).addErrback(
                    _job_failed, "diary", npc, day, 0, report
                )
            )
        else:
            report["diary"] = "diaries are off (DIARIES)"

    def plan_reflections(self, npc, report: dict) -> None:
        from evennia.objects.models import ObjectDB

        conf, day = self.conf, self.day
        targets = reflection_targets(npc, conf.REFLECTION_THRESHOLD)
        people = ObjectDB.objects.in_bulk([t for t, _ in targets])
        if not targets:
            report["notes"].append(
                f"no one with {conf.REFLECTION_THRESHOLD}+ new memories since the last "
                "belief about them (REFLECTION_THRESHOLD)"
            )
        for target_id, count in targets:
            if target_id in people:
                self.counts["reflection_jobs"] += 1
                self.add(
                    self.semaphore.run(
                        reflection_job, npc, people[target_id], count, day, report
                    ).addErrback(_job_failed, "reflection", npc, day, target_id, report)
                )

    def summary(self, results, forgotten: dict, per_npc: bool) -> dict:
        day = self.day
        summary = {
            "game_day": day,
            "jobs": len(self.jobs),
            **self.counts,
            "written": sum(r or 0 for r in results),
            "seconds": round(time.monotonic() - self.started, 2),
            **forgotten,
        }
        log.info(f"omniira: rollover of day {day}: {summary}")
        if not per_npc:
            return summary
        summary["npcs"] = [
            {
                "npc": r["npc"],
                "diary": r["diary"],
                "beliefs": r["beliefs"],
                "beliefs_note": "; ".join(r["notes"]),
            }
            for r in self.reports
        ]
        return summary


def check_rollover():
    """Called by the ticker: roll over the day that just ended, once."""
    from evennia.server.models import ServerConfig

    today = clock.current_game_day()
    last = ServerConfig.objects.conf(LAST_DAY_KEY, default=None)
    if last is None:
        ServerConfig.objects.conf(LAST_DAY_KEY, today)
        return None
    if today <= last:
        return None
    # Persist first: a restart in the middle resumes the claims, it does not start over.
    ServerConfig.objects.conf(LAST_DAY_KEY, today)
    return run_rollover(today - 1)
