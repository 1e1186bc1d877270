"""
`@memory`, the builder's command to inspect and steer NPC memory: it parses its arguments and
shows what the builder's verbs (`omniira_evennia.builder`) return; a bad argument gets its
usage line. Add `OmniiraAdminCmdSet` to your CharacterCmdSet (the demo does).
"""

from __future__ import annotations

from collections.abc import Iterator

from evennia.commands.cmdset import CmdSet
from evennia.commands.default.muxcommand import MuxCommand

from omniira_evennia.builder import jobs, know, memories
from omniira_evennia.builder.confirm import confirmed
from omniira_evennia.builder.jobs import rollover_report_text  # noqa: F401  (0.2 import path)
from omniira_evennia.builder.stats import stats_text
from omniira_evennia.builder.text import memory_line as _line  # noqa: F401  (0.2 import path)
from omniira_evennia.builder.why import why_text
from omniira_evennia.commands import CmdRecall
from omniira_evennia.conversation.service import process_ended
from omniira_evennia.knowledge import service as knowledge
from omniira_evennia.memory.service import erase_player  # noqa: F401  (0.2 import path)


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

    def rhs_subject(self):
        """(found, subject): the object named after "=", None when none was named; found is
        False (and the builder told why) when a name found nothing."""
        if not self.rhs:
            return True, None
        subject = self.find_object(self.rhs)
        return subject is not None, subject

    def memory_named(self, sub):
        """The memory whose id follows the subcommand; says why when there is none."""
        memory = memories.memory_by_id(self.target)
        if memory is None:
            wanted = memories.memory_id(self.target)
            if wanted is None:
                self.usage(sub)
            else:
                self.caller.msg(f"No memory #{wanted}.")
        return memory

    def later(self, deferred):
        """Tell the builder what a background verb says when it is done."""
        deferred.addCallback(self.caller.msg)

    def func(self) -> Iterator[object]:  # a generator: some verbs ask a question (yield)
        words = (self.lhs or "").split(None, 1)
        if not words:
            self.usage()
            return
        sub = words[0].lower()
        self.target = words[1] if len(words) > 1 else ""
        handler = SUBCOMMANDS.get(sub)
        if handler is None:
            self.caller.msg(f"Unknown @memory subcommand '{sub}'.")
            self.usage()
            return
        result = handler(self)
        if hasattr(result, "__next__"):  # subcommands that ask a question
            yield from result


def usage_lines(help_text: str) -> dict[str, str]:
    """Each subcommand's usage line(s), read from the help's Usage block, so that what a wrong
    argument shows and what `help @memory` shows cannot drift apart."""
    usage = {}
    block = help_text.split("Usage:", 1)[1].split("Examples:", 1)[0]
    for line in filter(None, (line.strip() for line in block.splitlines())):
        sub = line.split()[1]  # after "@memory" and its switches
        usage[sub] = f"{usage[sub]} | {line}" if sub in usage else line
    return usage


USAGE = usage_lines(CmdMemory.__doc__)

# ---------------------------------------------------------------- the subcommands (cmd: a CmdMemory)


def do_reembed(cmd):
    action = cmd.target.strip().lower()
    if action not in ("", "status", "stop"):
        cmd.usage("reembed")
        return
    text = jobs.reembed_text(action, report=cmd.caller.msg)
    if text:
        cmd.caller.msg(text)


def do_reviews(cmd):
    npc = cmd.target_npc("reviews")
    if npc is not None:
        retry = (cmd.rhs or "").strip().lower() == "retry"
        cmd.caller.msg(
            jobs.requeue_reviews_text(npc, process_ended) if retry else jobs.reviews_text(npc)
        )


def do_rollover(cmd):
    words = cmd.target.split()
    if words[:1] == ["retry"]:
        if words[1:] and not words[1].isdigit():
            cmd.usage("rollover")
        else:
            cmd.caller.msg(jobs.retry_rollover_text(int(words[1]) if words[1:] else None))
        return
    day = cmd.target.strip()
    if day and not day.isdigit():
        cmd.usage("rollover")
        return
    jobs.start_rollover(int(day) if day else None, report=cmd.caller.msg)


def do_why(cmd):
    npc = cmd.target_npc("why")
    if npc is None:
        return
    question, speaker, missed = (cmd.rhs or "").strip(), cmd.caller, None
    if " about " in question:
        question, _, name = question.rpartition(" about ")
        if " not " in name:
            name, _, missed = name.partition(" not ")
        speaker = cmd.find_object(name.strip())
        if speaker is None:
            return
    if not question.strip():
        cmd.usage("why")
        return
    cmd.caller.msg(why_text(npc, question.strip(), speaker, missed))


def do_inspect(cmd):
    npc = cmd.target_npc("inspect")
    found, subject = cmd.rhs_subject() if npc is not None else (False, None)
    if found:
        cmd.caller.msg(memories.inspect_text(npc, subject, named=cmd.rhs or ""))


def do_clear(cmd):
    npc = cmd.target_npc("clear")
    found, subject = cmd.rhs_subject() if npc is not None else (False, None)
    if found:
        question, act = memories.clear(npc, subject)
        cmd.caller.msg((yield from confirmed(question, act, "Nothing deleted.")))


def do_erase(cmd):
    if not cmd.caller.check_permstring("Admin"):
        cmd.caller.msg("Only an Admin may erase a player's data.")
        return
    player = cmd.find_object(cmd.target) if cmd.target else None
    if player is None:
        if not cmd.target:
            cmd.usage("erase")
        return
    question, act = memories.erase(player, by=cmd.caller)
    cmd.caller.msg((yield from confirmed(question, act, "Nothing erased.")))


def do_concerns(cmd):
    npc = cmd.target_npc("concerns")
    if npc is not None:
        cmd.caller.msg(memories.concerns_text(npc))


def do_inject(cmd):
    npc = cmd.find_npc(cmd.target) if cmd.target else None
    if npc is None or not cmd.rhs or ":" not in cmd.rhs:
        if npc is not None or not cmd.target:
            cmd.usage("inject")
        return
    subject_name, text = (part.strip() for part in cmd.rhs.split(":", 1))
    if not text or not subject_name:
        cmd.usage("inject")
        return
    subject = cmd.find_object(subject_name)
    if subject is None:
        return
    unknown = [s for s in cmd.switches if s.split("=")[0] not in ("importance", "feeling")]
    if unknown:
        cmd.caller.msg(f"Unknown switch(es): {', '.join(unknown)}.")
        cmd.usage("inject")
        return
    try:
        fields = memories.inject_fields(dict(s.split("=", 1) for s in cmd.switches if "=" in s))
    except ValueError as err:
        cmd.caller.msg(str(err))
        return
    cmd.later(memories.inject_later(npc, subject, text, **fields))


def do_lock(cmd, locked=True):
    memory = cmd.memory_named("lock" if locked else "unlock")
    if memory is not None:
        cmd.caller.msg(memories.set_lock(memory, locked))


def do_unlock(cmd):
    do_lock(cmd, locked=False)


def do_audit(cmd):
    cmd.caller.msg(memories.audit_text())


def do_stats(cmd):
    cmd.caller.msg(stats_text())


def do_trace(cmd):
    memory = cmd.memory_named("trace")
    if memory is not None:
        cmd.caller.msg(memories.trace_text(memory))


def do_diary(cmd):
    npc = cmd.target_npc("diary")
    if npc is not None:
        cmd.caller.msg(memories.diary_text(npc))


def do_beliefs(cmd):
    npc = cmd.target_npc("beliefs")
    if npc is not None:
        cmd.caller.msg(memories.beliefs_text(npc))


def do_search(cmd):
    npc = cmd.target_npc("search")
    text = (cmd.rhs or "").strip()
    if npc is not None and not text:
        cmd.usage("search")
    elif npc is not None:
        cmd.later(memories.search_later(npc, text))


def do_whoknows(cmd):
    text = " ".join(part for part in (cmd.target, cmd.rhs) if part).strip()
    if not text:
        cmd.usage("whoknows")
        return
    cmd.later(memories.who_knows_later(text))


# ---------------------------------------------------------------- what NPCs know


def do_know(cmd):
    action, _, rest = cmd.target.strip().partition(" ")
    method = KNOW_ACTIONS.get(action.lower())
    if method is None:
        cmd.usage("know")
        return None
    return method(cmd, rest.strip())


def know_scope(cmd, text):
    """A knowledge scope as a builder names it (see the help); None, said why, if none."""
    text = (text or "").strip()
    try:
        scope = know.named_scope(text, cmd.caller.location)
    except knowledge.ScopeError as err:
        cmd.caller.msg(str(err))
        return None
    if scope is not None or not text:
        if scope is None:
            cmd.usage("know")
        return scope
    npc = cmd.find_npc(text)
    return knowledge.npc_scope(npc) if npc is not None else None


def know_scope_and_options(cmd, where):
    """(scope, the switches as Fact fields), or None when either is wrong (said why)."""
    scope = know_scope(cmd, where)
    if scope is None:
        return None
    try:
        return scope, know.know_options(cmd.switches)
    except ValueError as err:
        cmd.caller.msg(str(err))
        return None


def know_list(cmd, where):
    scope = know_scope(cmd, where)
    if scope is not None:
        cmd.caller.msg(know.list_text(scope))


def know_add(cmd, where):
    chosen = know_scope_and_options(cmd, where)
    if chosen is None:
        return
    scope, options = chosen
    text, reply = know.split_reply(cmd.rhs)
    if not text:
        cmd.usage("know")
        return
    if reply:
        options["reply"] = reply
    cmd.later(know.write_later(knowledge.Fact(scope, text, **options), "knows"))


def know_edit(cmd, where):
    chosen = know_scope_and_options(cmd, where)
    if chosen is None:
        return
    scope, options = chosen
    key, _, rest = (cmd.rhs or "").partition(":")
    fact = know.edited_fact(scope, key.strip(), rest, options)
    if fact is None:
        cmd.caller.msg(f"{scope.label} has no fact with the key {key.strip()!r}.")
        return
    cmd.later(know.write_later(fact, "knows (edited)"))


def know_forget(cmd, where):
    scope = know_scope(cmd, where)
    if scope is None:
        return
    key = (cmd.rhs or "").strip()
    count = know.fact_count(scope, key)
    if not count:
        cmd.caller.msg(f"Nothing to forget in {scope.label}.")
    elif key:
        cmd.caller.msg(know.forget_text(scope, key))
    else:
        question = f"Forget all {count} facts of {scope.label}? [y/N]"
        act = lambda: know.forget_text(scope)  # noqa: E731
        cmd.caller.msg((yield from confirmed(question, act, "Nothing forgotten.")))


def know_load(cmd, path):
    if not path:
        cmd.usage("know")
        return
    know.load(path, report=cmd.caller.msg)


# "inspect" -> do_inspect, "know add" -> know_add: each function above is the (know) subcommand
# of its name.
SUBCOMMANDS = {name[3:]: f for name, f in list(globals().items()) if name.startswith("do_")}
KNOW_ACTIONS = {
    name: globals()[f"know_{name}"] for name in ("list", "add", "edit", "forget", "load")
}


class OmniiraAdminCmdSet(CmdSet):
    """`@memory` for builders and `recall` for players."""

    key = "omniira_admin"

    def at_cmdset_creation(self) -> None:
        self.add(CmdMemory())
        self.add(CmdRecall())
