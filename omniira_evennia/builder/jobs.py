"""The builder's background work: conversation reviews, the rollover now, re-embedding."""

from __future__ import annotations

from django.utils import timezone

from omniira_evennia.builder.text import ago, span
from omniira_evennia.conf import get_settings
from omniira_evennia.conversation import service as conversations
from omniira_evennia.memory import service as memory_service
from omniira_evennia.models import Conversation
from omniira_evennia.rollover.service import retry_due, retry_failed, run_rollover
from omniira_evennia.runtime import clock

# ---------------------------------------------------------------- reviews


def requeue_reviews_text(npc, start_due) -> str:
    """Queue the NPC's failed reviews again and start those due now (`start_due`: the
    conversation lifecycle's `process_ended`, which conversation.service does not offer yet)."""
    queued = conversations.requeue_reviews(npc)
    started = [d for d in start_due() if d is not None]
    return (
        f"{queued} review{'s' if queued != 1 else ''} of {npc.key}'s conversations "
        f"queued again; {len(started)} started now."
    )


def _review_state(conv, npc, now) -> str:
    state = {
        "pending": "review pending (queued for the next tick)",
        "running": "review running (the NPC is reading it over)",
        "done": f"reviewed: kept {conv.extracted_count} new memories",
        "failed": (
            f"review failed {conv.attempts} times ({conv.last_error or 'see the log'}); "
            f"'@memory reviews {npc.key} = retry' runs it again"
        ),
        "skipped": "no review: the player said nothing",
    }.get(conv.extraction, conv.extraction)
    if conv.extraction == "pending" and conv.attempts:
        times = f"{conv.attempts} time{'s' if conv.attempts > 1 else ''}"
        when = (
            f"tried again in {span((conv.retry_at - now).total_seconds())}"
            if conv.retry_at and conv.retry_at > now
            else "tried again at the next tick"
        )
        state = f"review failed {times} ({conv.last_error}); {when}"
    return state


def reviews_text(npc) -> str:
    """The NPC's latest conversations with players and how their review went."""
    rows = list(
        Conversation.objects.filter(npc=npc)
        .exclude(extraction=Conversation.Extraction.NONE)
        .select_related("speaker")
        .order_by("-last_turn_at")[:15]
    )
    if not rows:
        return f"{npc.key} has had no conversations with players yet."
    conf, now = get_settings(), timezone.now()
    out = [f"|w{npc.key}|n's conversations and their reviews (newest first):"]
    for conv in rows:
        who = conv.speaker.key if conv.speaker else "someone gone"
        if conv.ended_at is None:
            idle = int(conf.CONVERSATION_IDLE_SECONDS // 60)
            out.append(
                f"  with {who}: open, last line {ago(conv.last_turn_at, now)}; reviewed "
                f"once it ends (goodbye, leaving, or {idle} min quiet)"
            )
            continue
        state = _review_state(conv, npc, now)
        out.append(f"  with {who}: ended {ago(conv.ended_at, now)} ({conv.end_reason}), {state}")
        for refused in (conv.rejected or [])[:5]:
            out.append(f"      refused {refused['value']!r}: {refused['reason']}")
    return "\n".join(out)


# ---------------------------------------------------------------- the rollover


def rollover_report_text(summary: dict) -> str:
    """What a rollover wrote, per NPC, from `run_rollover`'s summary."""
    lines = [
        f"Rollover of game day {summary['game_day']} done in {summary['seconds']} s: "
        f"{summary['jobs']} jobs, forgot {summary['expired']} expired and "
        f"{summary['evicted']} excess memories."
    ]
    for report in summary.get("npcs", []):
        diary = "yes" if report["diary"] == "written" else f"no ({report['diary']})"
        beliefs = str(report["beliefs"])
        if report.get("beliefs_note"):
            beliefs += f" ({report['beliefs_note']})"
        lines.append(f"  {report['npc']}: diary {diary}; beliefs {beliefs}")
    return "\n".join(lines)


def retry_rollover_text(game_day: int | None = None) -> str:
    """Queue the diaries and reflections that failed for good again, and start those due."""
    again = retry_failed(game_day)
    started = retry_due()
    return (
        f"{again} failed diar{'y' if again == 1 else 'ies'} or reflections queued "
        f"again; {len(started)} started now (the rest follow with the ticker)."
    )


def start_rollover(game_day: int | None, report) -> None:
    """Run the day's rollover (default: today's game day) for every memory NPC now; `report`
    is told what started, and, when every job is done, what each NPC got."""
    day = clock.current_game_day() if game_day is None else game_day
    npcs = memory_service.memory_npcs()
    conf = get_settings()
    report(
        f"Rollover of game day {day} started for {len(npcs)} NPCs: forgetting, "
        + ("beliefs of headline NPCs, " if conf.REFLECTIONS else "no beliefs (REFLECTIONS off), ")
        + ("diaries." if conf.DIARIES else "no diaries (DIARIES off).")
        + " The report follows when every job is done."
    )
    run_rollover(day, npcs=npcs, per_npc=True).addCallback(
        lambda summary: report(rollover_report_text(summary))
    ).addErrback(lambda failure: report(f"The rollover failed: {failure.getErrorMessage()}"))


# ---------------------------------------------------------------- re-embedding


def reembed_text(action: str, report) -> str | None:
    """`@memory reembed` with "status", "stop" or "" (start, unless one is running; `report`
    hears its progress); the text to show, None when the job reports by itself."""
    job = memory_service.current_reembed_job()
    if action == "status":
        pending = memory_service.pending_counts()
        line = job.status_line() if job is not None else "No re-embedding has run yet."
        return f"{line}\nStill to re-embed: " + (
            ", ".join(f"{k} {v}" for k, v in pending.items()) or "nothing"
        )
    if action == "stop":
        if job is None or not job.running:
            return "No re-embedding is running."
        job.cancel()
        return "Re-embedding stops after the batch in flight."
    if job is not None and job.running:
        return f"Already running: {job.status_line()}"
    memory_service.start_reembed(report=report)
    return None
