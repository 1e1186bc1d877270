"""Knowledge files: read, planned (added, changed, pruned) and applied through the write path."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from datetime import timezone as dt_timezone
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from omniira_evennia.knowledge import files
from omniira_evennia.knowledge.facts import parse_expiry, scope_token
from omniira_evennia.knowledge.scopes import ScopeError, resolve_scope
from omniira_evennia.knowledge.writing import (
    Fact,
    FactError,
    cleaned,
    embed_pending,
    game_day_seconds,
    write_fact,
)
from omniira_evennia.models import Knowledge
from omniira_evennia.runtime import health
from omniira_evennia.runtime.runner import defer_interactive


@dataclass
class LoadPlan:
    """What loading a file will do: the facts to write (changed or new), those unchanged, the
    rows of the same file no longer in it, and each entry's problem."""

    name: str
    facts: list[Fact] = field(default_factory=list)
    unchanged: int = 0
    stale: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    added: int = 0
    updated: int = 0
    removed: int = 0

    def summary(self) -> str:
        parts = [
            f"{self.added} added",
            f"{self.updated} updated",
            f"{self.unchanged} unchanged",
            f"{self.removed} removed",
        ]
        text = f"Knowledge from {self.name}: " + ", ".join(parts) + "."
        if self.problems:
            text += f" {len(self.problems)} entr{'y' if len(self.problems) == 1 else 'ies'} "
            text += "skipped:\n  " + "\n  ".join(self.problems[:20])
        return text


class LoadError(ValueError):
    pass


def read_file(path, anywhere: bool = False) -> tuple[str, str]:
    """(text, name) of a knowledge file; LoadError when it cannot be read. Relative paths are
    the game folder's; unless `anywhere`, a path outside it is refused (a builder in the game
    names lore, not the server's files)."""
    base = Path(getattr(settings, "GAME_DIR", ".")).resolve()
    target = Path(path)
    target = (target if target.is_absolute() else base / target).resolve()
    if target.suffix.lower() not in (".json", ".yaml", ".yml"):
        raise LoadError("a knowledge file ends in .json, .yaml or .yml")
    if not anywhere and base not in target.parents:
        raise LoadError(f"{path}: knowledge files are read from inside the game folder only")
    try:
        return target.read_text(encoding="utf-8"), target.name
    except OSError as err:
        raise LoadError(f"cannot read {target.name}: {err.strerror}") from None


def plan_load(text: str, name: str, fmt: str | None = None, prune: bool = True) -> LoadPlan:
    """Read a knowledge file's `text` into a LoadPlan (on the reactor: scopes are looked up)."""
    try:
        entries, problems = files.parse(text, fmt or files.format_of(name))
    except files.FileError as err:
        raise LoadError(f"{name}: {err}") from None
    plan = LoadPlan(name=name, problems=problems)
    wanted = set()
    for entry in entries:
        try:
            fact = _fact_of(entry, name)
        except (ScopeError, FactError, ValueError) as err:
            plan.problems.append(f"{entry.key}: {err}")
            continue
        wanted.add((fact.scope.token, entry.key))
        if _unchanged(fact):
            plan.unchanged += 1
        else:
            plan.facts.append(fact)
    if prune:
        rows = Knowledge.objects.filter(loaded_from=name).values_list("id", "scope_token", "key")
        plan.stale = [i for i, token, key in rows if (token, key) not in wanted]
    return plan


def _fact_of(entry, name: str) -> Fact:
    expires = parse_expiry(entry.expires, game_day_seconds()) if entry.expires else None
    return Fact(
        resolve_scope(entry.scope),
        entry.text,
        key=entry.key,
        category=entry.category,
        importance=entry.importance,
        expires=expires,
        guard=entry.guard,
        condition=entry.condition,
        reply=entry.reply,
        topics=tuple(entry.topics),
        loaded_from=name,
    )


def _unchanged(fact: Fact) -> bool:
    """The row is already as the file says (its expiry span aside: it counts from the first
    load), so it is not written or embedded again."""
    row = Knowledge.objects.filter(scope_token=fact.scope.token, key=fact.key).first()
    if row is None or row.embedding is None:
        return False
    values = cleaned(fact)
    same = all(getattr(row, k) == v for k, v in values.items())
    if getattr(fact.expires, "at", None) is not None:
        same = same and row.expires_at == _set_expiry_value(fact.expires)
    elif fact.expires is None:
        same = same and row.expires_at is None
    return same and row.loaded_from == fact.loaded_from


def _set_expiry_value(expires) -> datetime:
    at = expires.from_now(timezone.now())
    return at if timezone.is_aware(at) else at.replace(tzinfo=dt_timezone.utc)


def apply_load(plan: LoadPlan) -> LoadPlan:
    """Write a plan whose facts are embedded (`embed_pending`), in one transaction."""
    with transaction.atomic():
        for fact in plan.facts:
            existed = Knowledge.objects.filter(scope_token=fact.scope.token, key=fact.key).exists()
            if write_fact(fact, embed=fact.embedding is None) is not None:
                plan.updated += existed
                plan.added += not existed
        if plan.stale:
            plan.removed = Knowledge.objects.filter(id__in=plan.stale).delete()[0]
    health.incr("knowledge_loaded", plan.added + plan.updated)
    return plan


def load_file(path, prune: bool = True, anywhere: bool = True) -> LoadPlan:
    """Load a knowledge file now, on this thread: the management command and a world build,
    which may name any path (`@memory know load` reads the game folder only)."""
    text, name = read_file(path, anywhere=anywhere)
    plan = plan_load(text, name, prune=prune)
    embed_pending(plan.facts)
    return apply_load(plan)


def load_file_later(path, prune: bool = True):
    """`load_file` with the embeddings made in the worker pool: a Deferred of the LoadPlan.
    For `@memory know load`: only a file inside the game folder."""
    text, name = read_file(path)
    plan = plan_load(text, name, prune=prune)
    return defer_interactive(embed_pending, plan.facts).addCallback(lambda _: apply_load(plan))
