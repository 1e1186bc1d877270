"""
`@memory`, the builder's command to inspect and steer NPC memory (a thin command over
`omniira_evennia.operations`, the memory handler and the erasure registry).

Add `OmniiraAdminCmdSet` to your CharacterCmdSet (the demo does). Every subcommand answers bad
arguments with its usage line.
"""

from __future__ import annotations

from django.utils import timezone
from evennia.commands.cmdset import CmdSet
from evennia.commands.default.muxcommand import MuxCommand

from omniira_evennia.api import remember_later
from omniira_evennia.commands import CmdRecall
from omniira_evennia.conf import get_settings
from omniira_evennia.conversation import service as conversations
from omniira_evennia.conversation.lifecycle import process_ended
from omniira_evennia.knowledge import service as knowledge
from omniira_evennia.memory import reembed, store
from omniira_evennia.memory.embeddings import embed_or_none
from omniira_evennia.memory.erasure import erase_player, erasure_counts
from omniira_evennia.memory.safety import neutralize_markup
from omniira_evennia.models import (
    AuditLog,
    Concern,
    Conversation,
    DiaryEntry,
    Knowledge,
    Memory,
    Reflection,
    Relationship,
    Source,
)
from omniira_evennia.operations import (
    KNOW_SWITCHES,
    know_fields,
    knowledge_line,
    stats_text,
    trace_text,
    why_text,
)
from omniira_evennia.rollover.service import retry_due, retry_failed, run_rollover
from omniira_evennia.runtime import clock
from omniira_evennia.runtime.runner import defer_interactive
from omniira_evennia.vocabulary import FEELINGS

USAGE = {
    "inspect": "@memory inspect <npc> [= <subject>]",
    "clear": "@memory clear <npc> [= <subject>]",
    "inject": "@memory[/importance=N][/feeling=F] inject <npc> = <subject> : <text>",
    "lock": "@memory lock <memory id>",
    "unlock": "@memory unlock <memory id>",
    "audit": "@memory audit",
    "stats": "@memory stats",
    "trace": "@memory trace <memory id>",
    "diary": "@memory diary <npc>",
    "beliefs": "@memory beliefs <npc>",
    "search": "@memory search <npc> = <text>",
    "whoknows": "@memory whoknows <text>",
    "erase": "@memory erase <player>",
    "why": "@memory why <npc> = <question> [about <player> [not <memory id or words>]]",
    "reembed": "@memory reembed [status|stop]",
    "concerns": "@memory concerns <npc>",
    "reviews": "@memory reviews <npc> [= retry]",
    "rollover": "@memory rollover [<game day> | retry [<game day>]]",
    "know": (
        "@memory know list <scope> | "
        "@memory[/options] know add <scope> = <text> [=> <reply>] | "
        "@memory[/options] know edit <scope> = <key> [: <text> [=> <reply>]] | "
        "@memory know forget <scope> [= <key>] | @memory know load <file>"
    ),
}


def _line(memory: Memory) -> str:
    flags = []
    if memory.provenance_id:
        flags.append(f"heard from {memory.provenance.db_key}")
    if memory.feeling:
        flags.append(memory.feeling)
    if memory.locked:
        flags.append("|ylocked|n")
    if memory.suspect:
        flags.append("|rsuspect|n")
    extra = f" ({', '.join(flags)})" if flags else ""
    markup = get_settings().LLM_MARKUP  # stored text is shown without links or MXP
    line = (
        f"  |w#{memory.id}|n [{memory.source}, imp {memory.importance}]{extra} "
        f"{memory.key}: {neutralize_markup(memory.value, markup)}"
    )
    for old in memory.history or []:
        shown = neutralize_markup(str(old.get("value")), markup)
        line += f"\n      |xused to be (until {old.get('until', '?')[:16]}): {shown}|n"
    return line


def _span(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h"


def _ago(when, now) -> str:
    return f"{_span((now - when).total_seconds())} ago"


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


class CmdMemory(MuxCommand):
    """
    inspect and steer what NPCs remember

    Usage:
      @memory inspect <npc> [= <subject>]
      @memory clear <npc> [= <subject>]
      @memory[/importance=N][/feeling=F] inject <npc> = <subject> : <text>
      @memory lock <memory id>
      @memory unlock <memory id>
      @memory audit
      @memory stats
      @memory trace <memory id>
      @memory diary <npc>
      @memory beliefs <npc>
      @memory search <npc> = <text>
      @memory whoknows <text>
      @memory erase <player>
      @memory why <npc> = <question> [about <player> [not <memory id or words>]]
      @memory reembed [status|stop]
      @memory concerns <npc>
      @memory reviews <npc> [= retry]
      @memory rollover [<game day> | retry [<game day>]]
      @memory know list <scope>
      @memory[/options] know add <scope> = <text> [=> <reply>]
      @memory[/options] know edit <scope> = <key> [: <text> [=> <reply>]]
      @memory know forget <scope> [= <key>]
      @memory know load <file>

    Examples:
      @memory inspect Maren = Ada
      @memory/importance=8/feeling=anger inject Voss = Ada : Ada broke my anvil.
      @memory lock 42
      @memory trace 57
      @memory search Maren = the blue glass bottles
      @memory whoknows sickness on the river barges
      @memory why Maren = who am I looking for? about Ada
      @memory why Maren = what is my horse called? about Ada not Quinny
      @memory reviews Maren
      @memory rollover
      @memory/category=trade/key=cider know add Maren = A mug of cider costs two copper.
      @memory/category=event/expires=3gd know add world = The harvest fair is on the green.
      @memory/secret/if=trust>=0.8/topics=cellar,brandy know add Maren = Maren hides
        brandy under the cellar floor. => Nothing down there but barrels, {speaker}.
      @memory/wontdiscuss/topics=tomas,husband know add Maren = Tomas, Maren's late
        husband => I'll not speak of him, love.
      @memory know list Maren
      @memory know load world/knowledge.json

    inspect lists memories (source, provenance, feeling, importance). clear and
    erase ask for confirmation; erase removes everything stored about a player
    (a privacy request). inject writes a memory with source "admin". Locked
    memories are never overwritten by NPCs, expired or evicted. audit lists
    flagged memories and player lines; stats shows counts, self-tag cadence,
    tokens and cost by tier and feature, and health counters. trace follows a
    rumour back to where it started. search lists an NPC's memories closest in
    meaning to a text; whoknows finds which NPCs remember something like it.
    why shows what the NPC would bring to mind if the player (default: you)
    said the question now, and why: each memory's lane ranks (recency,
    embedding, full text), fused score and multipliers, the player's own
    earlier words, and the best memories left out. It runs the real retrieval.
    With "not <memory>" (its id, or words of it) it also says where that
    memory fell: within neither lane's depth (its ranks), under the similarity
    floor, outranked at fusion (its score against the last one taken), outside
    the recency window, excluded as suspect, another of its key taken, or cut
    by the prompt's budget.
    concerns lists what is on an NPC's mind, who raised it, and suspect ones
    (never shown to the model); clear also removes concerns (those the subject
    raised, with = <subject>). reembed re-embeds, in the background, every
    stored vector the configured embedder did not make (after changing
    EMBEDDER); retrieval keeps working on the rows already done, and a restart
    resumes where it stopped.

    reviews lists an NPC's latest conversations and their review: a
    conversation ends when the player says goodbye, leaves or stays quiet
    (CONVERSATION_IDLE_SECONDS), then the NPC reads it over once for anything it
    forgot to note (pending, running, done with the memories kept and the facts
    it refused as not resting on what the player said, failed, skipped). A
    review that fails is tried again by itself (RETRY_ATTEMPTS times, waiting
    longer each time, across restarts); "= retry" runs the failed ones again
    now. rollover runs the day's rollover now (default: today's game day):
    forgetting, headline NPCs' beliefs and every NPC's diary. It says what it
    started, and when done, per NPC: diary written or why not, and beliefs
    written or why none. Work already done that day is not redone; failed
    work is tried again by itself, and "rollover retry [<day>]" runs what
    failed for good again now.

    know is what NPCs know about the world, beside what they remember of
    people. A scope is an NPC's name (or npc <name>), room <name>, here (your
    room), zone <name> (rooms tagged with category "zone"), tag <name>[:cat]
    (NPCs with that tag) or world (every NPC; stored once). Options:
    /key=<key> (the same key replaces a fact), /category=place, people,
    trade, event, lore or faction, /importance=1-10, /expires=7d, 12h or 3gd
    (game days), /topics=a,b,two_words (words and aliases that name the
    subject), /secret (never told unless /if=<condition> holds for the
    speaker: trust>=0.8, lock:perm(Builder), joined by and), /wontdiscuss
    (the NPC says the line after => instead, without asking its model).
    list shows every fact an NPC knows through (secrets and expired ones
    marked); load reads a JSON or YAML knowledge file in the game folder
    (the same as `evennia omniira_knowledge_load`): entries of the same file
    no longer in it are removed. why also shows the knowledge a line brings
    up, what was withheld from the speaker and why, a topic the line meets,
    and a claim against what the NPC knows (kept as an uncertain memory).
    """

    key = "@memory"
    aliases = ["memory"]
    locks = "cmd:perm(Builder)"
    help_category = "Building"

    def usage(self, sub=None):
        lines = [USAGE[sub]] if sub in USAGE else list(USAGE.values())
        self.caller.msg("Usage:\n  " + "\n  ".join(lines))

    def find_object(self, name, what="character"):
        if not name:
            return None
        found = self.caller.search(name.strip(), global_search=True, quiet=True)
        if not found:
            self.caller.msg(f"No {what} called '{name.strip()}' found.")
            return None
        if len(found) > 1:
            self.caller.msg(f"More than one match for '{name.strip()}'; use #dbref.")
            return None
        return found[0]

    def find_npc(self, name):
        npc = self.find_object(name, "NPC")
        if npc is not None and not getattr(npc, "is_omniira_npc", False):
            self.caller.msg(f"{npc.key} is not an NPC with memory.")
            return None
        return npc

    def target_npc(self, sub):
        """The NPC named after the subcommand; shows the usage if none was named."""
        if not self.target:
            self.usage(sub)
            return None
        return self.find_npc(self.target)

    def memory_by_id(self, text):
        text = (text or "").strip().lstrip("#")
        if not text.isdigit():
            return None
        return (
            Memory.objects.select_related("provenance", "npc", "subject")
            .filter(id=int(text))
            .first()
        )

    def func(self):
        words = (self.lhs or "").split(None, 1)
        if not words:
            self.usage()
            return
        sub = words[0].lower()
        self.target = words[1] if len(words) > 1 else ""
        handler = getattr(self, f"do_{sub}", None)
        if handler is None:
            self.caller.msg(f"Unknown @memory subcommand '{sub}'.")
            self.usage()
            return
        result = handler()
        if hasattr(result, "__next__"):  # subcommands that ask a question
            yield from result

    # -------------------------------------------------------------- subcommands

    def do_reembed(self):
        action = self.target.strip().lower()
        job = reembed.current_job()
        if action == "status":
            pending = reembed.pending_counts()
            line = job.status_line() if job is not None else "No re-embedding has run yet."
            self.caller.msg(
                f"{line}\nStill to re-embed: "
                + (", ".join(f"{k} {v}" for k, v in pending.items()) or "nothing")
            )
        elif action == "stop":
            if job is None or not job.running:
                self.caller.msg("No re-embedding is running.")
            else:
                job.cancel()
                self.caller.msg("Re-embedding stops after the batch in flight.")
        elif action:
            self.usage("reembed")
        elif job is not None and job.running:
            self.caller.msg(f"Already running: {job.status_line()}")
        else:
            reembed.start_reembed(report=self.caller.msg)

    def do_reviews(self):
        npc = self.target_npc("reviews")
        if npc is None:
            return
        if (self.rhs or "").strip().lower() == "retry":
            queued = conversations.requeue_reviews(npc)
            started = [d for d in process_ended() if d is not None]
            self.caller.msg(
                f"{queued} review{'s' if queued != 1 else ''} of {npc.key}'s conversations "
                f"queued again; {len(started)} started now."
            )
            return
        rows = list(
            Conversation.objects.filter(npc=npc)
            .exclude(extraction=Conversation.Extraction.NONE)
            .select_related("speaker")
            .order_by("-last_turn_at")[:15]
        )
        if not rows:
            self.caller.msg(f"{npc.key} has had no conversations with players yet.")
            return
        conf, now = get_settings(), timezone.now()
        out = [f"|w{npc.key}|n's conversations and their reviews (newest first):"]
        for conv in rows:
            who = conv.speaker.key if conv.speaker else "someone gone"
            if conv.ended_at is None:
                idle = int(conf.CONVERSATION_IDLE_SECONDS // 60)
                out.append(
                    f"  with {who}: open, last line {_ago(conv.last_turn_at, now)}; reviewed "
                    f"once it ends (goodbye, leaving, or {idle} min quiet)"
                )
                continue
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
                    f"tried again in {_span((conv.retry_at - now).total_seconds())}"
                    if conv.retry_at and conv.retry_at > now
                    else "tried again at the next tick"
                )
                state = f"review failed {times} ({conv.last_error}); {when}"
            out.append(
                f"  with {who}: ended {_ago(conv.ended_at, now)} ({conv.end_reason}), {state}"
            )
            for refused in (conv.rejected or [])[:5]:
                out.append(f"      refused {refused['value']!r}: {refused['reason']}")
        self.caller.msg("\n".join(out))

    def do_rollover(self):
        day_text = self.target.strip()
        if day_text.split()[:1] == ["retry"]:
            rest = day_text.split()[1:]
            if rest and not rest[0].isdigit():
                self.usage("rollover")
                return
            again = retry_failed(int(rest[0]) if rest else None)
            started = retry_due()
            self.caller.msg(
                f"{again} failed diar{'y' if again == 1 else 'ies'} or reflections queued "
                f"again; {len(started)} started now (the rest follow with the ticker)."
            )
            return
        if day_text and not day_text.isdigit():
            self.usage("rollover")
            return
        day = int(day_text) if day_text else clock.current_game_day()
        npcs = store.memory_npcs()
        conf = get_settings()
        self.caller.msg(
            f"Rollover of game day {day} started for {len(npcs)} NPCs: forgetting, "
            + (
                "beliefs of headline NPCs, "
                if conf.REFLECTIONS
                else "no beliefs (REFLECTIONS off), "
            )
            + ("diaries." if conf.DIARIES else "no diaries (DIARIES off).")
            + " The report follows when every job is done."
        )

        def _report(summary):
            self.caller.msg(rollover_report_text(summary))

        run_rollover(day, npcs=npcs, per_npc=True).addCallback(_report).addErrback(
            lambda failure: self.caller.msg(f"The rollover failed: {failure.getErrorMessage()}")
        )

    def do_why(self):
        npc = self.target_npc("why")
        if npc is None:
            return
        question, speaker, missed = (self.rhs or "").strip(), self.caller, None
        if " about " in question:
            question, _, name = question.rpartition(" about ")
            if " not " in name:
                name, _, missed = name.partition(" not ")
            speaker = self.find_object(name.strip())
            if speaker is None:
                return
        if not question.strip():
            self.usage("why")
            return
        self.caller.msg(why_text(npc, question.strip(), speaker, missed))

    def do_inspect(self):
        npc = self.target_npc("inspect")
        if npc is None:
            return
        rows = Memory.objects.filter(npc=npc).select_related("provenance", "subject")
        if self.rhs:
            subject = self.find_object(self.rhs)
            if subject is None:
                return
            rows = rows.filter(subject=subject)
        rows = list(rows.order_by("subject__db_key", "learned_at")[:200])
        if not rows:
            self.caller.msg(
                f"{npc.key} remembers nothing"
                + (f" about {self.rhs.strip()}." if self.rhs else ".")
            )
            return
        out, current = [f"|w{npc.key}|n remembers ({len(rows)}):"], None
        for memory in rows:
            if memory.subject_id != current:
                current = memory.subject_id
                rel = Relationship.objects.filter(npc=npc, subject_id=current).first()
                mood = (
                    f"  trust {rel.trust:.2f}, friendliness {rel.friendliness:.2f}, "
                    f"fear {rel.fear:.2f}"
                    if rel
                    else ""
                )
                out.append(f"|cAbout {memory.subject.db_key}|n{mood}")
            out.append(_line(memory))
        self.caller.msg("\n".join(out))

    def do_clear(self):
        npc = self.target_npc("clear")
        if npc is None:
            return
        rows = Memory.objects.filter(npc=npc, locked=False)
        what = f"everything {npc.key} remembers"
        if self.rhs:
            subject = self.find_object(self.rhs)
            if subject is None:
                return
            rows = rows.filter(subject=subject)
            what = f"what {npc.key} remembers about {subject.key}"
        concerns = Concern.objects.filter(npc=npc)
        if self.rhs:
            concerns = concerns.filter(source=subject)
        count, worries = rows.count(), concerns.count()
        answer = yield (
            f"Delete {count} memories and {worries} concerns ({what}; locked memories are "
            "kept)? [y/N]"
        )
        if answer.strip().lower() not in ("y", "yes"):
            self.caller.msg("Nothing deleted.")
            return
        deleted, _ = rows.delete()
        worries, _ = concerns.delete()
        store.invalidate(npc.id)
        self.caller.msg(f"Deleted {deleted} memories and {worries} concerns.")

    def do_concerns(self):
        npc = self.target_npc("concerns")
        if npc is None:
            return
        rows = Concern.objects.filter(npc=npc).select_related("source").order_by("-created_at")
        if not rows:
            self.caller.msg(f"Nothing is on {npc.key}'s mind.")
            return
        out = [f"|w{npc.key}|n has on their mind:"]
        for concern in rows:
            flags = [f"worry {concern.intensity}/5", f"day {concern.game_day}"]
            flags.append(f"raised by {concern.source.key}" if concern.source else "unprompted")
            if concern.suspect:
                flags.append("|rsuspect: never shown to the model|n")
            if concern.resolved:
                flags.append("resolved")
            out.append(f"  {concern.topic} ({', '.join(flags)})")
        self.caller.msg("\n".join(out))

    def do_inject(self):
        npc = self.find_npc(self.target) if self.target else None
        if npc is None or not self.rhs or ":" not in self.rhs:
            if npc is not None or not self.target:
                self.usage("inject")
            return
        subject_name, text = (part.strip() for part in self.rhs.split(":", 1))
        if not text or not subject_name:
            self.usage("inject")
            return
        subject = self.find_object(subject_name)
        if subject is None:
            return
        options = dict(s.split("=", 1) for s in self.switches if "=" in s)
        unknown = [s for s in self.switches if s.split("=")[0] not in ("importance", "feeling")]
        if unknown:
            self.caller.msg(f"Unknown switch(es): {', '.join(unknown)}.")
            self.usage("inject")
            return
        importance = options.get("importance", "5")
        if not importance.isdigit() or not 1 <= int(importance) <= 10:
            self.caller.msg("Importance must be a whole number from 1 to 10.")
            return
        feeling = options.get("feeling")
        if feeling is not None and feeling.lower() not in FEELINGS:
            self.caller.msg(f"Feeling must be one of: {', '.join(FEELINGS)}.")
            return

        def _done(memory):
            if memory is None:
                self.caller.msg("A locked memory with that key refused the write.")
                return
            self.caller.msg(f"{npc.key} now remembers about {subject.key}:\n{_line(memory)}")

        # The embedding is computed in the worker pool; the write happens back on the reactor.
        remember_later(
            npc, subject, text, importance=int(importance), feeling=feeling, source=Source.ADMIN
        ).addCallback(_done).addErrback(
            lambda failure: self.caller.msg(f"Nothing written: {failure.getErrorMessage()}")
        )

    def _set_lock(self, locked: bool):
        memory = self.memory_by_id(self.target)
        if memory is None:
            if self.target.strip().lstrip("#").isdigit():
                self.caller.msg(f"No memory #{self.target.strip().lstrip('#')}.")
            else:
                self.usage("lock" if locked else "unlock")
            return
        Memory.objects.filter(id=memory.id).update(locked=locked)
        store.invalidate(memory.npc_id)
        self.caller.msg(f"Memory #{memory.id} {'locked' if locked else 'unlocked'}.")

    def do_lock(self):
        self._set_lock(True)

    def do_unlock(self):
        self._set_lock(False)

    def do_audit(self):
        rows = list(AuditLog.objects.select_related("npc", "speaker")[:30])
        suspect = Memory.objects.filter(suspect=True).count()
        if not rows:
            self.caller.msg("No audit entries: nothing has been flagged.")
            return
        lines = [f"Suspect memories: {suspect}. Latest audit entries:"]
        for row in rows:
            who = " -> ".join(o.db_key for o in (row.speaker, row.npc) if o is not None)
            memory = f" memory #{row.memory_id}" if row.memory_id else ""
            lines.append(
                f"  {row.created_at:%m-%d %H:%M} {row.kind}{memory} [{who or '-'}] "
                f"{', '.join(row.labels)}: {row.excerpt[:80]}"
            )
        self.caller.msg("\n".join(lines))

    def do_stats(self):
        self.caller.msg(stats_text())

    def do_trace(self):
        memory = self.memory_by_id(self.target)
        if memory is not None:
            self.caller.msg(trace_text(memory))
        elif self.target.strip().lstrip("#").isdigit():
            self.caller.msg(f"No memory #{self.target.strip().lstrip('#')}.")
        else:
            self.usage("trace")

    def do_diary(self):
        npc = self.target_npc("diary")
        if npc is None:
            return
        entries = DiaryEntry.objects.filter(npc=npc).order_by("-game_day")[:10]
        if not entries:
            self.caller.msg(f"{npc.key} has written no diary entries yet.")
            return
        self.caller.msg(
            f"|w{npc.key}'s diary|n\n"
            + "\n".join(f"  day {e.game_day}: {e.entry}" for e in reversed(list(entries)))
        )

    def do_beliefs(self):
        npc = self.target_npc("beliefs")
        if npc is None:
            return
        rows = (
            Reflection.objects.filter(npc=npc)
            .select_related("target")
            .order_by("target__db_key", "created_at")
        )
        if not rows:
            self.caller.msg(f"{npc.key} has formed no beliefs yet.")
            return
        self.caller.msg(
            f"|w{npc.key} believes|n\n"
            + "\n".join(
                f"  about {r.target.db_key} (day {r.game_day}, imp {r.importance}): {r.belief}"
                for r in rows
            )
        )

    # -------------------------------------------------------------- what NPCs know

    def know_scope(self, text):
        """A knowledge scope as a builder names it (see the help); None, said why, if none."""
        text = (text or "").strip()
        first, _, rest = text.partition(" ")
        kind = first.lower()
        try:
            if kind == "here":
                room = self.caller.location
                if room is None or room.location is not None:
                    self.caller.msg("You are not in a room.")
                    return None
                return knowledge.room_scope(room)
            if kind == "world" and not rest:
                return knowledge.world()
            if kind in ("room", "zone", "tag", "npc") and rest.strip():
                return knowledge.resolve_scope(f"{kind}:{rest}")
        except knowledge.ScopeError as err:
            self.caller.msg(str(err))
            return None
        npc = self.find_npc(text) if text else None
        if npc is None and not text:
            self.usage("know")
        return knowledge.npc_scope(npc) if npc is not None else None

    def know_options(self) -> dict | None:
        """The know switches as Fact fields; None (and why) when one is wrong."""
        fields, unknown = {}, []
        for switch in self.switches:
            name, _, value = switch.partition("=")
            name = name.lower()
            if name not in KNOW_SWITCHES:
                unknown.append(switch)
            fields[name] = value.strip()
        if unknown:
            self.caller.msg(f"Unknown switch(es): {', '.join(unknown)}.")
            return None
        try:
            return know_fields(fields)
        except ValueError as err:
            self.caller.msg(str(err))
            return None

    def do_know(self):
        action, _, rest = self.target.strip().partition(" ")
        method = {
            "list": self.know_list,
            "add": self.know_add,
            "edit": self.know_edit,
            "forget": self.know_forget,
            "load": self.know_load,
        }.get(action.lower())
        if method is None:
            self.usage("know")
            return None
        return method(rest.strip())

    def know_list(self, where):
        scope = self.know_scope(where)
        if scope is None:
            return
        if scope.kind == "npc":
            rows = knowledge.rows_of(npc=scope.npc)
        else:
            rows = knowledge.rows_of(scope)
        rows = list(rows.order_by("scope", "category", "key")[:200])
        if not rows:
            self.caller.msg(f"Nothing is known in {scope.label} yet.")
            return
        out = [f"|wWhat {scope.label} knows|n ({len(rows)}):"]
        out += [knowledge_line(row) for row in rows]
        self.caller.msg("\n".join(out))

    def know_text(self, rhs):
        """(text, reply) from "<text> [=> <reply>]"."""
        text, _, reply = (rhs or "").partition("=>")
        return text.strip(), reply.strip()

    def know_add(self, where):
        scope = self.know_scope(where)
        options = self.know_options() if scope is not None else None
        if options is None:
            return
        text, reply = self.know_text(self.rhs)
        if not text:
            self.usage("know")
            return
        if reply:
            options["reply"] = reply
        self.know_write(knowledge.Fact(scope, text, **options), "knows")

    def know_write(self, fact, verb):
        def _done(row):
            if row is None:
                self.caller.msg("Nothing written: the text reads like an instruction.")
                return
            self.caller.msg(f"{fact.scope.label} now {verb}:\n{knowledge_line(row)}")

        try:
            knowledge.cleaned(fact)  # say what is wrong now, not from the worker
        except knowledge.FactError as err:
            self.caller.msg(f"Nothing written: {err}")
            return
        # The embedding is computed in the worker pool; the write happens back on the reactor.
        knowledge.write_later(fact).addCallback(_done).addErrback(
            lambda failure: self.caller.msg(f"Nothing written: {failure.getErrorMessage()}")
        )

    def know_edit(self, where):
        scope = self.know_scope(where)
        options = self.know_options() if scope is not None else None
        if options is None:
            return
        key, _, rest = (self.rhs or "").partition(":")
        row = Knowledge.objects.filter(scope_token=scope.token, key=key.strip()).first()
        if row is None:
            self.caller.msg(f"{scope.label} has no fact with the key {key.strip()!r}.")
            return
        text, reply = self.know_text(rest)
        fact = knowledge.fact_of_row(row, scope)
        for name, value in {**options, "text": text, "reply": reply}.items():
            if value not in ("", None) or name in options:
                setattr(fact, name, value)
        self.know_write(fact, "knows (edited)")

    def know_forget(self, where):
        scope = self.know_scope(where)
        if scope is None:
            return
        key = (self.rhs or "").strip()
        rows = Knowledge.objects.filter(scope_token=scope.token)
        count = rows.filter(key=key).count() if key else rows.count()
        if not count:
            self.caller.msg(f"Nothing to forget in {scope.label}.")
            return
        if not key:
            answer = yield f"Forget all {count} facts of {scope.label}? [y/N]"
            if answer.strip().lower() not in ("y", "yes"):
                self.caller.msg("Nothing forgotten.")
                return
        self.caller.msg(f"Forgot {knowledge.forget(scope, key or None)} fact(s) of {scope.label}.")

    def know_load(self, path):
        if not path:
            self.usage("know")
            return
        try:
            deferred = knowledge.load_file_later(path)
        except knowledge.LoadError as err:
            self.caller.msg(str(err))
            return
        self.caller.msg(f"Loading {path} (the embeddings are made in the background)...")
        deferred.addCallback(lambda plan: self.caller.msg(plan.summary())).addErrback(
            lambda failure: self.caller.msg(f"Loading failed: {failure.getErrorMessage()}")
        )

    def _embed_then(self, text, then):
        """Embed `text` in the worker pool, then call `then(vector)` back on the reactor."""

        def _done(vectors):
            if vectors[0] is None:
                self.caller.msg("The embedding model is not available; see the server log.")
                return
            then(vectors[0])

        defer_interactive(embed_or_none, [text]).addCallback(_done).addErrback(
            lambda failure: self.caller.msg(f"Search failed: {failure.getErrorMessage()}")
        )

    def do_search(self):
        npc = self.target_npc("search")
        if npc is None:
            return
        text = (self.rhs or "").strip()
        if not text:
            self.usage("search")
            return

        def _show(vector):
            found = store.nearest_memories(npc.id, vector, limit=10)
            rows = Memory.objects.select_related("provenance", "subject").in_bulk(
                [memory_id for memory_id, _ in found]
            )
            if not found:
                self.caller.msg(f"{npc.key} remembers nothing with a vector to compare.")
                return
            self.caller.msg(
                f"|w{npc.key}|n's memories closest to '{text}':\n"
                + "\n".join(
                    f"  {sim:.2f} about {rows[mid].subject.db_key}:{_line(rows[mid])}"
                    for mid, sim in found
                    if mid in rows
                )
            )

        self._embed_then(text, _show)

    def do_whoknows(self):
        text = " ".join(part for part in (self.target, self.rhs) if part).strip()
        if not text:
            self.usage("whoknows")
            return

        def _show(vector):
            found = store.who_knows(vector, limit=10)
            rows = Memory.objects.select_related("npc", "provenance", "subject").in_bulk(
                [memory_id for memory_id, _, _ in found]
            )
            if not found:
                self.caller.msg(f"No NPC remembers anything like '{text}'.")
                return
            self.caller.msg(
                f"NPCs who remember something like '{text}':\n"
                + "\n".join(
                    f"  |w{rows[mid].npc.db_key}|n {sim:.2f} about "
                    f"{rows[mid].subject.db_key}:{_line(rows[mid])}"
                    for mid, _, sim in found
                    if mid in rows
                )
            )

        self._embed_then(text, _show)

    def do_erase(self):
        if not self.caller.check_permstring("Admin"):
            self.caller.msg("Only an Admin may erase a player's data.")
            return
        player = self.find_object(self.target) if self.target else None
        if player is None:
            if not self.target:
                self.usage("erase")
            return
        counts = erasure_counts(player)
        summary = ", ".join(f"{n} {what}" for what, n in counts.items() if n) or "nothing"
        answer = yield (
            f"Erase everything stored about {player.key} ({summary})? "
            "This cannot be undone. [y/N]"
        )
        if answer.strip().lower() not in ("y", "yes"):
            self.caller.msg("Nothing erased.")
            return
        erased = erase_player(player, by=self.caller)
        self.caller.msg(f"Erased {sum(erased.values())} rows about {player.key}.")


class OmniiraAdminCmdSet(CmdSet):
    """`@memory` for builders and `recall` for players."""

    key = "omniira_admin"

    def at_cmdset_creation(self):
        self.add(CmdMemory())
        self.add(CmdRecall())
