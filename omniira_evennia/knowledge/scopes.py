"""Knowledge scopes (an NPC, a room, a zone, a tag, the world): named, resolved, an NPC's tokens."""

from __future__ import annotations

from dataclasses import dataclass

from omniira_evennia.knowledge.facts import WORLD_TOKEN, name_token, scope_token, tag_name
from omniira_evennia.models import Knowledge


@dataclass(frozen=True)
class Scope:
    """Who knows a fact: the scope's kind, its object or name, token and label."""

    kind: str
    token: str
    label: str
    npc: object = None
    room: object = None
    name: str = ""


class ScopeError(ValueError):
    pass


def world() -> Scope:
    return Scope("world", WORLD_TOKEN, "the world")


def npc_scope(npc) -> Scope:
    return Scope("npc", scope_token("npc", npc.id), npc.key, npc=npc)


def room_scope(room) -> Scope:
    return Scope("room", scope_token("room", room.id), room.key, room=room)


def named_scope(kind: str, name: str) -> Scope:
    name = " ".join(str(name).split())
    return Scope(kind, scope_token(kind, name=name), f"{kind} {name}", name=name)


def _find(name: str, want_room: bool):
    from evennia.objects.models import ObjectDB
    from evennia.utils.search import search_object

    name = name.strip()
    found = (
        list(ObjectDB.objects.filter(id=int(name.lstrip("#"))))
        if name.lstrip("#").isdigit()
        else list(search_object(name))
    )
    rooms = [o for o in found if o.location is None and o.destination is None]
    found = rooms if want_room else [o for o in found if getattr(o, "is_omniira_npc", False)]
    if len(found) != 1:
        what = "room" if want_room else "NPC with memory"
        raise ScopeError(f"{'no' if not found else 'more than one'} {what} called {name!r}")
    return found[0]


def resolve_scope(text: str) -> Scope:
    """A scope as written: world, npc:<name or #id>, room:<name or #id>, zone:<name>, tag:<name>."""
    kind, _, name = str(text or "world").strip().partition(":")
    kind = kind.strip().lower()
    if kind == "world" and not name:
        return world()
    if not name.strip():
        raise ScopeError(f"{kind}: which one? (npc:Maren, room:tavern, zone:harbour, tag:guild)")
    if kind == "npc":
        return npc_scope(_find(name, want_room=False))
    if kind == "room":
        return room_scope(_find(name, want_room=True))
    if kind in ("zone", "tag"):
        return named_scope(kind, name)
    raise ScopeError(f"unknown scope {kind!r}: world, npc, room, zone or tag")


def tokens_for(npc) -> list[str]:
    """The scopes `npc` knows through, most specific first: itself, its tags, its rooms (where
    it is and its home), their zones (tags of category "zone" on the room), the world."""
    tokens = [scope_token("npc", npc.id)]
    for key, category in npc.tags.all(return_key_and_category=True):
        tokens.append(name_token("t", tag_name(key, category)))
    rooms = rooms_of(npc)
    tokens += [scope_token("room", room.id) for room in rooms]
    for room in rooms:
        for zone in room.tags.get(category="zone", return_list=True) or []:
            tokens.append(name_token("z", zone))
    tokens.append(WORLD_TOKEN)
    return list(dict.fromkeys(tokens))


def rooms_of(npc) -> list:
    return [r for r in dict.fromkeys((npc.location, npc.home)) if r is not None]


def scope_label(row: Knowledge) -> str:
    """How `@memory know list` and the inspector name a row's scope."""
    if row.scope == "npc":
        return f"npc {row.npc.db_key if row.npc_id else '?'}"
    if row.scope == "room":
        return f"room {row.room.db_key if row.room_id else '?'}"
    if row.scope in ("zone", "tag"):
        return f"{row.scope} {row.scope_name}"
    return "world"
