"""The rooms an NPC walks: each room's place, the exits between them, a room found by name."""

from __future__ import annotations

from django.db.models import Q

from omniira_evennia.life.decisions import Routes, explore
from omniira_evennia.life.schedule import Place, match_place, place_words


def place_of(room) -> Place:
    return Place(room.key, tuple(room.aliases.all()), room.id)


class WalkMap:
    """The rooms an NPC can walk to from where it stands; searched on first use only."""

    def __init__(self, npc, limit: int):
        self.npc, self.limit = npc, limit
        self.rooms = {npc.location.id: npc.location}
        self._routes: Routes | None = None
        self._places: list[Place] | None = None

    @property
    def routes(self) -> Routes:
        if self._routes is None:
            self._routes = explore(self.npc.location.id, self._neighbours, self.limit)
        return self._routes

    def _neighbours(self, room_id):
        for exit_obj in self.rooms[room_id].exits:
            dest = exit_obj.destination
            if dest is None or not exit_obj.access(self.npc, "traverse"):
                continue
            self.rooms.setdefault(dest.id, dest)
            yield exit_obj, dest.id

    def find(self, name: str, exact: bool = False) -> Place | None:
        """The nearest reachable room `name` means (the NPC's own room first)."""
        if self._places is None:
            self._places = [place_of(self.rooms[i]) for i in self.routes.order]
        return match_place(name, self._places, exact=exact)


def room_anywhere(name: str):
    """A room anywhere in the world that `name` means (reachable or not), or None."""
    from evennia.objects.models import ObjectDB
    from evennia.objects.objects import DefaultRoom

    words = place_words(name)
    if not words:
        return None
    query = Q()
    for word in words:
        query |= Q(db_key__icontains=word) | Q(
            db_tags__db_key__icontains=word, db_tags__db_tagtype="alias"
        )
    rooms = [
        obj
        for obj in ObjectDB.objects.filter(query, db_location__isnull=True).distinct()[:200]
        if obj.is_typeclass(DefaultRoom, exact=False)
    ]
    found = match_place(name, [place_of(room) for room in rooms])
    return next((room for room in rooms if found and room.id == found.id), None)
