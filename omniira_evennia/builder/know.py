"""`@memory know`: scopes and switches as a builder types them, facts as lines, writes, loads."""

from __future__ import annotations

from django.utils import timezone
from twisted.internet import defer

from omniira_evennia.knowledge import service as knowledge
from omniira_evennia.knowledge.facts import CATEGORIES, parse_condition, parse_expiry
from omniira_evennia.models import Knowledge

KNOW_SWITCHES = (
    "key",
    "category",
    "importance",
    "expires",
    "topics",
    "secret",
    "if",
    "wontdiscuss",
    "open",
)


def know_fields(options: dict) -> dict:
    """`@memory know` switches (name -> value) as `knowledge.service.Fact` fields; a
    ValueError says what is wrong."""
    fields = {}
    if "key" in options:
        fields["key"] = options["key"]
    if "category" in options:
        if options["category"].lower() not in CATEGORIES:
            raise ValueError(f"Category must be one of: {', '.join(CATEGORIES)}.")
        fields["category"] = options["category"].lower()
    if "importance" in options:
        value = options["importance"]
        if not value.isdigit() or not 1 <= int(value) <= 10:
            raise ValueError("Importance must be a whole number from 1 to 10.")
        fields["importance"] = int(value)
    if "expires" in options:
        fields["expires"] = parse_expiry(options["expires"], knowledge.game_day_seconds())
    if "topics" in options:
        words = [t.replace("_", " ").strip() for t in options["topics"].split(",")]
        fields["topics"] = tuple(t for t in words if t)
    if "if" in options:
        parse_condition(options["if"])  # a ConditionError (a ValueError) says what is wrong
        fields["condition"] = options["if"]
    guards = [g for g in ("secret", "wontdiscuss", "open") if g in options]
    if len(guards) > 1:
        raise ValueError("Choose one of /secret, /wontdiscuss and /open.")
    if guards:
        fields["guard"] = {"secret": "secret", "wontdiscuss": "wont_discuss"}.get(guards[0], "")
    return fields


def knowledge_line(row: Knowledge) -> str:
    """One fact as `@memory know list` shows it."""
    flags = [row.category, f"imp {row.importance}", knowledge.scope_label(row)]
    if row.source != "authored":
        heard = f" from {row.teller.db_key}" if row.teller_id else ""
        flags.append(f"{row.source}{heard}, confidence {row.confidence:.1f}")
    if row.expires_at is not None:
        gone = row.expires_at <= timezone.now()
        flags.append(f"{'|rexpired|n' if gone else 'expires'} {row.expires_at:%Y-%m-%d %H:%M}")
    if row.guard == "secret":
        flags.append(f"|ysecret|n ({'if ' + row.condition if row.condition else 'never told'})")
    elif row.guard == "wont_discuss":
        flags.append("|ywon't discuss|n")
    line = f"  |w#{row.id}|n [{', '.join(flags)}] {row.key}: {row.text}"
    if row.topics:
        line += f"\n      |xtopics: {', '.join(row.topics)}|n"
    if row.reply:
        line += f"\n      |xsays instead: {row.reply}|n"
    return line


def named_scope(text: str, room) -> knowledge.Scope | None:
    """The scope a builder names: here (`room`), world, room/zone/tag/npc <name>; None when
    `text` is none of these (an NPC's name: the command finds it). A ScopeError says why not."""
    first, _, rest = text.partition(" ")
    kind = first.lower()
    if kind == "here":
        if room is None or room.location is not None:
            raise knowledge.ScopeError("You are not in a room.")
        return knowledge.room_scope(room)
    if kind == "world" and not rest:
        return knowledge.world()
    if kind in ("room", "zone", "tag", "npc") and rest.strip():
        return knowledge.resolve_scope(f"{kind}:{rest}")
    return None


def know_options(switches) -> dict:
    """The know switches as Fact fields; a ValueError says which is unknown or wrong."""
    fields, unknown = {}, []
    for switch in switches:
        name, _, value = switch.partition("=")
        name = name.lower()
        if name not in KNOW_SWITCHES:
            unknown.append(switch)
        fields[name] = value.strip()
    if unknown:
        raise ValueError(f"Unknown switch(es): {', '.join(unknown)}.")
    return know_fields(fields)


def split_reply(text: str) -> tuple[str, str]:
    """(text, reply) from "<text> [=> <reply>]"."""
    text, _, reply = (text or "").partition("=>")
    return text.strip(), reply.strip()


def list_text(scope) -> str:
    """Every fact NPCs know through `scope` (for an NPC: every scope it knows through)."""
    rows = knowledge.rows_of(npc=scope.npc) if scope.kind == "npc" else knowledge.rows_of(scope)
    rows = list(rows.order_by("scope", "category", "key")[:200])
    if not rows:
        return f"Nothing is known in {scope.label} yet."
    return "\n".join(
        [f"|wWhat {scope.label} knows|n ({len(rows)}):"] + [knowledge_line(row) for row in rows]
    )


def write_later(fact, verb: str):
    """Write `fact` through the knowledge write path: a Deferred of what to tell the builder
    (what is wrong with it is said now, not from the worker). The embedding is computed in the
    worker pool; the write happens back on the reactor."""

    def done(row):
        if row is None:
            return "Nothing written: the text reads like an instruction."
        return f"{fact.scope.label} now {verb}:\n{knowledge_line(row)}"

    try:
        knowledge.cleaned(fact)
    except knowledge.FactError as err:
        return defer.succeed(f"Nothing written: {err}")
    return (
        knowledge.write_later(fact)
        .addCallback(done)
        .addErrback(lambda failure: f"Nothing written: {failure.getErrorMessage()}")
    )


def edited_fact(scope, key: str, rest: str, options: dict):
    """The fact `key` of `scope` with the new text, reply and switches; None if there is none."""
    row = Knowledge.objects.filter(scope_token=scope.token, key=key).first()
    if row is None:
        return None
    text, reply = split_reply(rest)
    fact = knowledge.fact_of_row(row, scope)
    for name, value in {**options, "text": text, "reply": reply}.items():
        if value not in ("", None) or name in options:
            setattr(fact, name, value)
    return fact


def fact_count(scope, key: str = "") -> int:
    rows = Knowledge.objects.filter(scope_token=scope.token)
    return rows.filter(key=key).count() if key else rows.count()


def forget_text(scope, key: str = "") -> str:
    return f"Forgot {knowledge.forget(scope, key or None)} fact(s) of {scope.label}."


def load(path: str, report) -> None:
    """Load a knowledge file in the background; `report` hears that it started and its summary."""
    try:
        deferred = knowledge.load_file_later(path)
    except knowledge.LoadError as err:
        report(str(err))
        return
    report(f"Loading {path} (the embeddings are made in the background)...")
    deferred.addCallback(lambda plan: report(plan.summary())).addErrback(
        lambda failure: report(f"Loading failed: {failure.getErrorMessage()}")
    )
