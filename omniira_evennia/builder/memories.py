"""`@memory` on memories: inspect, clear, concerns, inject, lock, audit, trace, search, erase."""

from __future__ import annotations

from omniira_evennia.builder.text import memory_line
from omniira_evennia.memory import service as memory_service
from omniira_evennia.memory.embeddings import embed_or_none
from omniira_evennia.memory.handler import handler_of
from omniira_evennia.models import AuditLog, Concern, Memory, Relationship, Source
from omniira_evennia.runtime.runner import defer_interactive
from omniira_evennia.vocabulary import FEELINGS


def memory_id(text: str) -> int | None:
    """The memory id a builder typed ("42" or "#42"), or None when it is not one."""
    text = (text or "").strip().lstrip("#")
    return int(text) if text.isdigit() else None


def memory_by_id(text: str) -> Memory | None:
    wanted = memory_id(text)
    if wanted is None:
        return None
    return Memory.objects.select_related("provenance", "npc", "subject").filter(id=wanted).first()


def inspect_text(npc, subject=None, named: str = "") -> str:
    """What `npc` remembers (about `subject`, typed as `named`), grouped by subject, each group
    with the NPC's standing towards them."""
    rows = handler_of(npc).by(about=subject).select_related("provenance", "subject")
    rows = list(rows.order_by("subject__db_key", "learned_at")[:200])
    if not rows:
        return f"{npc.key} remembers nothing" + (f" about {named.strip()}." if named else ".")
    out, current = [f"|w{npc.key}|n remembers ({len(rows)}):"], None
    for memory in rows:
        if memory.subject_id != current:
            current = memory.subject_id
            # Read, not `npc.memory.relationship`: that would make a row for a mere look.
            rel = Relationship.objects.filter(npc=npc, subject_id=current).first()
            mood = (
                f"  trust {rel.trust:.2f}, friendliness {rel.friendliness:.2f}, "
                f"fear {rel.fear:.2f}"
                if rel
                else ""
            )
            out.append(f"|cAbout {memory.subject.db_key}|n{mood}")
        out.append(memory_line(memory))
    return "\n".join(out)


def clear(npc, subject=None):
    """`@memory clear`: the question to ask, and what deletes on yes (the unlocked memories,
    through `npc.memory.forget`, and the concerns, those `subject` raised when given)."""
    memories = Memory.objects.filter(npc=npc, locked=False)
    concerns = Concern.objects.filter(npc=npc)
    what = f"everything {npc.key} remembers"
    if subject is not None:
        memories = memories.filter(subject=subject)
        concerns = concerns.filter(source=subject)
        what = f"what {npc.key} remembers about {subject.key}"
    question = (
        f"Delete {memories.count()} memories and {concerns.count()} concerns ({what}; locked "
        "memories are kept)? [y/N]"
    )

    def act() -> str:
        deleted = handler_of(npc).forget(about=subject)
        worries, _ = concerns.delete()
        return f"Deleted {deleted} memories and {worries} concerns."

    return question, act


def concerns_text(npc) -> str:
    rows = Concern.objects.filter(npc=npc).select_related("source").order_by("-created_at")
    if not rows:
        return f"Nothing is on {npc.key}'s mind."
    out = [f"|w{npc.key}|n has on their mind:"]
    for concern in rows:
        flags = [f"worry {concern.intensity}/5", f"day {concern.game_day}"]
        flags.append(f"raised by {concern.source.key}" if concern.source else "unprompted")
        if concern.suspect:
            flags.append("|rsuspect: never shown to the model|n")
        if concern.resolved:
            flags.append("resolved")
        out.append(f"  {concern.topic} ({', '.join(flags)})")
    return "\n".join(out)


def inject_fields(options: dict) -> dict:
    """`@memory inject`'s /importance and /feeling as `remember` arguments; a ValueError says
    what is wrong."""
    importance = options.get("importance", "5")
    if not importance.isdigit() or not 1 <= int(importance) <= 10:
        raise ValueError("Importance must be a whole number from 1 to 10.")
    feeling = options.get("feeling")
    if feeling is not None and feeling.lower() not in FEELINGS:
        raise ValueError(f"Feeling must be one of: {', '.join(FEELINGS)}.")
    return {"importance": int(importance), "feeling": feeling}


def inject_later(npc, subject, text: str, **fields):
    """Write a builder's memory (source "admin"); a Deferred of what to tell the builder. The
    embedding is computed in the worker pool; the write happens back on the reactor."""

    def done(memory):
        if memory is None:
            return "A locked memory with that key refused the write."
        return f"{npc.key} now remembers about {subject.key}:\n{memory_line(memory)}"

    deferred = handler_of(npc).remember_later(subject, text, source=Source.ADMIN, **fields)
    return deferred.addCallback(done).addErrback(
        lambda failure: f"Nothing written: {failure.getErrorMessage()}"
    )


def set_lock(memory: Memory, locked: bool) -> str:
    """Lock a memory (never overwritten by NPCs, expired or evicted) or unlock it."""
    Memory.objects.filter(id=memory.id).update(locked=locked)
    memory_service.invalidate(memory.npc_id)
    return f"Memory #{memory.id} {'locked' if locked else 'unlocked'}."


def audit_text() -> str:
    rows = list(AuditLog.objects.select_related("npc", "speaker")[:30])
    suspect = Memory.objects.filter(suspect=True).count()
    if not rows:
        return "No audit entries: nothing has been flagged."
    lines = [f"Suspect memories: {suspect}. Latest audit entries:"]
    for row in rows:
        who = " -> ".join(o.db_key for o in (row.speaker, row.npc) if o is not None)
        memory = f" memory #{row.memory_id}" if row.memory_id else ""
        lines.append(
            f"  {row.created_at:%m-%d %H:%M} {row.kind}{memory} [{who or '-'}] "
            f"{', '.join(row.labels)}: {row.excerpt[:80]}"
        )
    return "\n".join(lines)


def trace_text(memory: Memory) -> str:
    """Where a memory came from (firsthand, or the chain of tellers) and what it used to say."""
    from evennia.objects.models import ObjectDB

    if not memory.provenance_id:
        text = (
            f"Memory #{memory.id} is firsthand: {memory.npc.db_key} learned it directly "
            f"({memory.source}): {memory.value}"
        )
    else:
        chain = memory.chain or [memory.provenance_id]
        names = ObjectDB.objects.in_bulk(chain)
        path = " -> ".join(names[i].db_key if i in names else f"#{i} (gone)" for i in chain)
        text = (
            f"Memory #{memory.id} about {memory.subject.db_key}: {memory.value}\n"
            f"  origin: {names[chain[0]].db_key if chain[0] in names else '#' + str(chain[0])}\n"
            f"  told along: {path} -> {memory.npc.db_key} ({memory.hops} hop"
            f"{'s' if memory.hops != 1 else ''})"
        )
    for old in memory.history or []:
        text += f"\n  used to be (until {old.get('until', '?')[:16]}, {old.get('source')}): "
        text += str(old.get("value"))
    return text


def diary_text(npc) -> str:
    """The NPC's last ten diary entries, oldest first."""
    entries = list(handler_of(npc).diary().reverse()[:10])
    if not entries:
        return f"{npc.key} has written no diary entries yet."
    return f"|w{npc.key}'s diary|n\n" + "\n".join(
        f"  day {e.game_day}: {e.entry}" for e in reversed(entries)
    )


def beliefs_text(npc) -> str:
    rows = (
        handler_of(npc).beliefs().select_related("target").order_by("target__db_key", "created_at")
    )
    if not rows:
        return f"{npc.key} has formed no beliefs yet."
    return f"|w{npc.key} believes|n\n" + "\n".join(
        f"  about {r.target.db_key} (day {r.game_day}, imp {r.importance}): {r.belief}"
        for r in rows
    )


def _embed_then(text: str, then):
    """Embed `text` in the worker pool, then `then(vector)` back on the reactor: a Deferred
    of its text (or of why there is none)."""

    def done(vectors):
        if vectors[0] is None:
            return "The embedding model is not available; see the server log."
        return then(vectors[0])

    return (
        defer_interactive(embed_or_none, [text])
        .addCallback(done)
        .addErrback(lambda failure: f"Search failed: {failure.getErrorMessage()}")
    )


def search_later(npc, text: str):
    """`npc`'s ten memories closest in meaning to `text`: a Deferred of the text."""

    def show(vector) -> str:
        found = memory_service.nearest_memories(npc.id, vector, limit=10)
        rows = Memory.objects.select_related("provenance", "subject").in_bulk(
            [memory_id for memory_id, _ in found]
        )
        if not found:
            return f"{npc.key} remembers nothing with a vector to compare."
        return f"|w{npc.key}|n's memories closest to '{text}':\n" + "\n".join(
            f"  {sim:.2f} about {rows[mid].subject.db_key}:{memory_line(rows[mid])}"
            for mid, sim in found
            if mid in rows
        )

    return _embed_then(text, show)


def who_knows_later(text: str):
    """Which NPCs remember something like `text` (each one's closest memory): a Deferred."""

    def show(vector) -> str:
        found = memory_service.who_knows(vector, limit=10)
        rows = Memory.objects.select_related("npc", "provenance", "subject").in_bulk(
            [memory_id for memory_id, _, _ in found]
        )
        if not found:
            return f"No NPC remembers anything like '{text}'."
        return f"NPCs who remember something like '{text}':\n" + "\n".join(
            f"  |w{rows[mid].npc.db_key}|n {sim:.2f} about "
            f"{rows[mid].subject.db_key}:{memory_line(rows[mid])}"
            for mid, _, sim in found
            if mid in rows
        )

    return _embed_then(text, show)


def erase(player, by):
    """`@memory erase` (a privacy request): the question, with what would go, and what erases
    on yes (`memory.erasure`, the one registry of where player data lives)."""
    counts = memory_service.erasure_counts(player)
    summary = ", ".join(f"{n} {what}" for what, n in counts.items() if n) or "nothing"
    question = (
        f"Erase everything stored about {player.key} ({summary})? This cannot be undone. [y/N]"
    )

    def act() -> str:
        erased = memory_service.erase_player(player, by=by)
        return f"Erased {sum(erased.values())} rows about {player.key}."

    return question, act
