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
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Count, F, Q
from django.utils import timezone
from twisted.internet import defer, task

from omniira_evennia.conf import get_settings
from omniira_evennia.knowledge.service import witnessed
from omniira_evennia.llm.client import get_client
from omniira_evennia.llm.service import Job, run_job
from omniira_evennia.memory import service as memory_service
from omniira_evennia.memory.embeddings import get_embedder, to_blob
from omniira_evennia.memory.retrieval import importance_multiplier
from omniira_evennia.memory.service import write_belief, write_diary
from omniira_evennia.models import (
    AuditLog,
    Concern,
    Conversation,
    ConversationTurn,
    DailyWork,
    LLMUsage,
    Memory,
    PlaceVisit,
    Reflection,
    WorldEvent,
)
from omniira_evennia.rollover.diary import DaySignals, DiaryInput, run_diary
from omniira_evennia.rollover.reflection import (
    RECENT_MEMORIES,
    ReflectionInput,
    render_memory,
    run_reflection,
)
from omniira_evennia.runtime import backoff, clock, health, runner
from omniira_evennia.runtime.claims import claim_once

log = logging.getLogger(__name__)

LAST_DAY_KEY = "omniira_last_rollover_day"


# ---------------------------------------------------------------- claims


ROLLOVER_RETRIES_PER_TICK = 4  # failed pieces of work tried again per tick


def claim(kind: str, npc, game_day: int, target_id: int = 0) -> bool:
    """
    Own one piece of the day's work. False if it ran (or is running) already, or failed and
    waits for its next try (`retry_due`).
    """
    try:
        with transaction.atomic():
            DailyWork.objects.create(kind=kind, npc=npc, target_id=target_id, game_day=game_day)
        return True
    except IntegrityError:
        same = DailyWork.objects.filter(kind=kind, npc=npc, target_id=target_id, game_day=game_day)
        # A check that found nothing to do made no call; it may be looked at again. Failed
        # work whose wait is over is tried again.
        if claim_once(same, "status", ["empty"], "running"):
            return True
        due = same.filter(Q(retry_at__isnull=True) | Q(retry_at__lte=timezone.now()))
        if claim_once(due, "status", ["retry"], "running"):
            DailyWork.objects.filter(pk__in=same.values("pk")).update(attempts=F("attempts") + 1)
            return True
        return False


def _mark(kind, npc, game_day, status, target_id=0):
    DailyWork.objects.filter(kind=kind, npc=npc, target_id=target_id, game_day=game_day).update(
        status=status
    )


def _failed(kind, npc, game_day, error: str, target_id=0) -> str:
    """
    Work that failed waits to be tried again ("retry", after `backoff.retry_delay`) until it
    was tried RETRY_ATTEMPTS times, then stays "failed" (`retry_failed` runs it again).
    Returns the status it is left in.
    """
    conf = get_settings()
    rows = DailyWork.objects.filter(kind=kind, npc=npc, target_id=target_id, game_day=game_day)
    tried = rows.values_list("attempts", flat=True).first() or 1
    again = tried < conf.RETRY_ATTEMPTS
    delay = timedelta(seconds=backoff.retry_delay(tried, conf))
    rows.update(
        status="retry" if again else "failed",
        retry_at=timezone.now() + delay if again else None,
        last_error=str(error)[:200],
    )
    return "retry" if again else "failed"


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


def retry_failed(game_day: int | None = None) -> int:
    """Let work that failed for good (on `game_day`, or any day) be tried again now."""
    rows = DailyWork.objects.filter(status__in=["failed", "retry"])
    if game_day is not None:
        rows = rows.filter(game_day=game_day)
    return rows.update(status="retry", attempts=0, retry_at=None)


def reset_unfinished_claims() -> int:
    """At start: a claim still "running" wrote nothing (its worker died); let it run again."""
    count, _ = DailyWork.objects.filter(status="running").delete()
    return count


# ---------------------------------------------------------------- forgetting


def retention_score(importance, hearsay, felt, age_days, half_life_days) -> float:
    """Higher is kept longer: the retrieval multipliers times an exponential recency decay."""
    score = importance_multiplier(importance) * (0.8 if hearsay else 1.0) * (1.1 if felt else 1)
    return score * 0.5 ** (max(0.0, age_days) / half_life_days)


def forget(now=None) -> dict[str, int]:
    """Delete expired memories and evict the lowest-scoring beyond each (npc, subject) cap."""
    conf = get_settings()
    now = now or timezone.now()
    expired = Memory.objects.filter(expires_at__lte=now, locked=False)
    npc_ids = set(expired.values_list("npc_id", flat=True))
    expired_count, _ = expired.delete()
    evicted = 0
    over = (
        Memory.objects.values("npc_id", "subject_id")
        .annotate(n=Count("id"))
        .filter(n__gt=conf.MEMORY_CAP_PER_SUBJECT)
    )
    for group in over:
        rows = list(
            Memory.objects.filter(
                npc_id=group["npc_id"], subject_id=group["subject_id"]
            ).values_list("id", "importance", "provenance_id", "feeling", "learned_at", "locked")
        )
        unlocked = [r for r in rows if not r[5]]
        excess = len(rows) - conf.MEMORY_CAP_PER_SUBJECT
        unlocked.sort(
            key=lambda r: retention_score(
                r[1],
                r[2] is not None,
                bool(r[3]),
                (now - r[4]).total_seconds() / 86400,
                conf.RETENTION_HALF_LIFE_DAYS,
            )
        )
        doomed = [r[0] for r in unlocked[:excess]]
        evicted += Memory.objects.filter(id__in=doomed).delete()[0]
        npc_ids.add(group["npc_id"])
    for npc_id in npc_ids:
        memory_service.invalidate(npc_id)
    health.incr("memories_expired", expired_count)
    health.incr("memories_evicted", evicted)
    return {"expired": expired_count, "evicted": evicted}


def evict_beliefs(cap: int) -> int:
    """Beyond `cap` beliefs one NPC holds about one target (BELIEFS_PER_TARGET), the least
    important and then the oldest go: a reflection adds up to two a night, for months."""
    evicted = 0
    over = (
        Reflection.objects.values("npc_id", "target_id")
        .annotate(n=Count("id"))
        .filter(n__gt=cap)
        .order_by()
    )
    for group in over:
        ids = list(
            Reflection.objects.filter(npc_id=group["npc_id"], target_id=group["target_id"])
            .order_by("importance", "created_at", "id")
            .values_list("id", flat=True)
        )
        evicted += Reflection.objects.filter(id__in=ids[: len(ids) - cap]).delete()[0]
    health.incr("beliefs_evicted", evicted)
    return evicted


# ---------------------------------------------------------------- inputs (on the reactor)


def _is_headline(npc) -> bool:
    return bool(npc.attributes.get("npc_headline", default=False))


def reflection_targets(npc, threshold: int) -> list[tuple[int, int]]:
    """(target id, new memory count) for targets with at least `threshold` new memories."""
    targets = []
    # order_by() clears Meta.ordering, which would otherwise defeat distinct().
    subjects = (
        Memory.objects.filter(npc=npc)
        .exclude(subject=npc)
        .order_by()
        .values_list("subject_id", flat=True)
        .distinct()
    )
    for subject_id in subjects:
        last = (
            Reflection.objects.filter(npc=npc, target_id=subject_id)
            .order_by("-created_at")
            .values_list("created_at", flat=True)
            .first()
        )
        new = grounded_memories(npc, subject_id)
        if last is not None:
            new = new.filter(learned_at__gt=last)
        count = new.count()
        if count >= threshold:
            targets.append((subject_id, count))
    return targets


def grounded_memories(npc, subject_id):
    """The memories a belief may be drawn from: those resting on what was said or written by
    a builder or the NPC itself (memory/grounding.py), never a suspect one."""
    return Memory.objects.filter(
        npc=npc, subject_id=subject_id, grounding__isnull=False, suspect=False
    )


def reflection_input(npc, target, count) -> ReflectionInput:
    rows = list(
        grounded_memories(npc, target.id)
        .select_related("provenance")
        .order_by("-learned_at")[:RECENT_MEMORIES]
    )
    lines = [
        render_memory(m.value, m.feeling or None, m.provenance.db_key if m.provenance_id else None)
        for m in reversed(rows)
    ]
    beliefs = list(
        Reflection.objects.filter(npc=npc, target=target)
        .order_by("-created_at")
        .values_list("belief", flat=True)[:10]
    )
    inp = ReflectionInput(npc.id, target.id, npc.key, target.key, lines, beliefs, count)
    inp.memory_values = [m.value for m in reversed(rows)]
    return inp


def world_events_by_npc(game_day: int) -> dict[int, list[str]]:
    """The day's world events by the NPCs they name, oldest first, in one query."""
    found: dict[int, list[str]] = {}
    for text, npc_ids in WorldEvent.objects.filter(game_day=game_day).values_list(
        "text", "npc_ids"
    ):
        for npc_id in npc_ids or []:
            found.setdefault(npc_id, []).append(text)
    return found


def day_signals(npc, game_day: int, events: dict[int, list[str]] | None = None) -> DaySignals:
    """
    What the NPC's diary is made of. `events` is `world_events_by_npc(game_day)`, read once
    per rollover: reading every event of the day for each NPC cost ~20 ms of reactor time per
    NPC with 500 NPCs and events (bench/rollover.py), and grew with their product.
    """
    memories = [
        f"about {m.subject.db_key}"
        + (f" (heard from {m.provenance.db_key})" if m.provenance_id else "")
        + f": {m.value}"
        for m in Memory.objects.filter(npc=npc, game_day=game_day)
        .select_related("subject", "provenance")
        .order_by("learned_at")[:30]
    ]
    concerns = Concern.objects.filter(npc=npc, resolved=False, suspect=False)
    places = places_visited(npc, game_day)
    if events is None:
        events = world_events_by_npc(game_day)
    since = timezone.now() - timedelta(days=1)
    return DaySignals(
        memories=memories,
        concerns_today=[c.topic for c in concerns.filter(created_at__gte=since)],
        places=places,
        events=list(events.get(npc.id, [])),
        standing_concerns=[c.topic for c in concerns.filter(created_at__lt=since)[:3]],
    )


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
            state = _failed("reflection", npc, game_day, result.error, target.id)
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
        _mark("reflection", npc, game_day, "done", target.id)
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
                + _next(_failed("reflection", npc, game_day, "the job crashed", target.id))
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
        _mark("diary", npc, game_day, "empty")
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
            state = _failed("diary", npc, game_day, error)
            _note(report, "diary", f"failed ({error}); {_next(state)}")
            return 0
        write_diary(
            npc,
            game_day,
            result.entry.entry,
            importance=result.entry.importance,
            embedding=to_blob(result.vector),
        )
        _mark("diary", npc, game_day, "done")
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
                + _next(_failed("diary", npc, game_day, "the job crashed")),
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
        _failed(kind, npc, game_day, failure.getErrorMessage(), target_id)
    except Exception:  # e.g. the database is locked; the claim is reset at the next start
        log.exception("omniira: could not mark the failed job")
    health.incr(f"{kind}_failures")
    return 0


def apply_retention(game_day: int, now=None) -> int:
    """
    Delete what is older than the retention settings (0: keep forever); returns how many rows.
    Usage and audit rows go by real days (the budget and the log are kept in real time, UTC),
    erasure records excepted (they prove a player's data was erased); conversation lines by
    game days, except those of conversations still open or not yet reviewed (the review reads
    them). The NPCs' matrices are dropped from the cache if a line went (the verbatim lane).
    """
    conf = get_settings()
    now = now or timezone.now()
    deleted = 0
    if conf.KEEP_USAGE_DAYS:
        cutoff = now - timedelta(days=conf.KEEP_USAGE_DAYS)
        deleted += LLMUsage.objects.filter(created_at__lt=cutoff).delete()[0]
    if conf.KEEP_AUDIT_DAYS:
        cutoff = now - timedelta(days=conf.KEEP_AUDIT_DAYS)
        old = AuditLog.objects.filter(created_at__lt=cutoff).exclude(kind="erasure")
        deleted += old.delete()[0]
    if conf.KEEP_TURNS_GAME_DAYS:
        unreviewed = Conversation.objects.filter(
            Q(ended_at__isnull=True)
            | Q(
                extraction__in=(
                    Conversation.Extraction.PENDING,
                    Conversation.Extraction.RUNNING,
                )
            )
        ).values("conversation_id")
        turns = ConversationTurn.objects.filter(
            game_day__lte=game_day - conf.KEEP_TURNS_GAME_DAYS
        ).exclude(conversation_id__in=unreviewed)
        gone = turns.delete()[0]
        if gone:
            memory_service.invalidate()
        deleted += gone
    if deleted:
        health.incr("retention_deleted", deleted)
    return deleted


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
    from evennia.objects.models import ObjectDB

    conf = get_settings()
    day = clock.current_game_day() if game_day is None else game_day
    started = time.monotonic()
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
    events = world_events_by_npc(day)
    semaphore = defer.DeferredSemaphore(conf.ROLLOVER_CONCURRENCY)
    jobs: list[defer.Deferred] = []
    counts = {"reflection_jobs": 0, "first_job_s": None}

    def add(job: defer.Deferred) -> None:
        if counts["first_job_s"] is None:
            counts["first_job_s"] = round(time.monotonic() - started, 3)
        jobs.append(job)

    reports: list[dict] = []

    def plan(npc) -> None:
        report = {"npc": npc.key, "diary": "not written", "beliefs": 0, "notes": []}
        reports.append(report)
        if not conf.REFLECTIONS:
            report["notes"].append("reflections are off (REFLECTIONS)")
        elif not _is_headline(npc):
            report["notes"].append("only headline NPCs reflect")
        else:
            targets = reflection_targets(npc, conf.REFLECTION_THRESHOLD)
            people = ObjectDB.objects.in_bulk([t for t, _ in targets])
            if not targets:
                report["notes"].append(
                    f"no one with {conf.REFLECTION_THRESHOLD}+ new memories since the last "
                    "belief about them (REFLECTION_THRESHOLD)"
                )
            for target_id, count in targets:
                if target_id in people:
                    counts["reflection_jobs"] += 1
                    add(
                        semaphore.run(
                            reflection_job, npc, people[target_id], count, day, report
                        ).addErrback(_job_failed, "reflection", npc, day, target_id, report)
                    )
        if conf.DIARIES:
            add(
                semaphore.run(diary_job, npc, day, events, report).addErrback(
                    _job_failed, "diary", npc, day, 0, report
                )
            )
        else:
            report["diary"] = "diaries are off (DIARIES)"

    def planning():
        for npc in npcs if npcs is not None else memory_service.memory_npcs():
            plan(npc)
            yield None

    def _summary(results):
        summary = {
            "game_day": day,
            "jobs": len(jobs),
            **counts,
            "written": sum(r or 0 for r in results),
            "seconds": round(time.monotonic() - started, 2),
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
            for r in reports
        ]
        return summary

    if runner.inline():  # tests run no reactor: plan everything now
        for _ in planning():
            pass
        planned = defer.succeed(None)
    else:
        planned = task.cooperate(planning()).whenDone()
    planned.addCallback(lambda _: defer.gatherResults(jobs, consumeErrors=True))
    return planned.addCallback(_summary)


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


def places_visited(npc, game_day: int) -> list[str]:
    """Where the NPC went that day, in order (a place entered twice in a row counts once)."""
    places = []
    for place in PlaceVisit.objects.filter(npc=npc, game_day=game_day).values_list(
        "place", flat=True
    ):
        if not places or places[-1] != place:
            places.append(place)
    return places


def record_visit(npc, room) -> None:
    if room is not None:
        PlaceVisit.objects.create(
            npc=npc, game_day=clock.current_game_day(), place=room.key[:100], room=room
        )


def log_world_event(
    text: str, npcs=(), *, room=None, expires=None, importance=None, category: str = "event"
) -> WorldEvent:
    """
    Record something that happened, naming the NPCs involved (for their diaries). It becomes
    the knowledge of those who witnessed it (issue #25): the NPCs named (objects, not ids)
    and the memory NPCs in `room`, each with a fact of `category` that expires when the
    builder says (`expires`: a datetime, a timedelta, seconds, or "3 game days"; None: never).
    """
    event = WorldEvent.objects.create(
        game_day=clock.current_game_day(),
        text=" ".join(str(text).split())[:500],
        npc_ids=[npc if isinstance(npc, int) else npc.id for npc in npcs],
    )
    present = list(room.contents) if room is not None else []
    seen = {obj.id: obj for obj in [*npcs, *present] if not isinstance(obj, int)}
    witnessed(event, seen.values(), expires=expires, importance=importance, category=category)
    return event
