"""The objects the builder's pages list and name: the memory NPCs, object names by id."""

from __future__ import annotations

from omniira_evennia.memory import service as memory_service


def memory_npcs():
    """Every memory NPC, in a room or not, by name."""
    return sorted(memory_service.memory_npcs(located=False), key=lambda npc: npc.key.lower())


def names(ids) -> dict[int, str]:
    """Object names by id (objects since deleted are left out)."""
    from evennia.objects.models import ObjectDB

    return dict(ObjectDB.objects.filter(id__in=set(ids)).values_list("id", "db_key"))
