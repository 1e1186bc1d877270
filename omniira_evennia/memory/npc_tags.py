"""The memory NPCs' Evennia tag: found with one indexed query; 0.1's NPCs tagged once."""

from __future__ import annotations

from omniira_evennia.vocabulary import (
    NPC_TAG,
)


def memory_npcs(located: bool = True) -> list:
    """Every memory NPC (in a room, unless `located` is False), found by its tag."""
    from evennia.objects.models import ObjectDB

    rows = ObjectDB.objects.get_by_tag(key=NPC_TAG[0], category=NPC_TAG[1])
    if located:
        rows = rows.filter(db_location__isnull=False)
    return list(rows)


TAGGED_FLAG = "omniira_npc_tags"


def tag_untagged_npcs() -> int:
    """
    Once per database: tag the memory NPCs created before NPCs carried a tag (0.1). The one
    scan over every object; afterwards `memory_npcs` is an indexed lookup. Returns how many.
    """
    from evennia.objects.models import ObjectDB
    from evennia.server.models import ServerConfig

    if ServerConfig.objects.conf(TAGGED_FLAG, default=False):
        return 0
    tagged = 0
    for obj in ObjectDB.objects.all():
        if getattr(obj, "is_omniira_npc", False) and not obj.tags.has(
            NPC_TAG[0], category=NPC_TAG[1]
        ):
            obj.tags.add(*NPC_TAG)
            tagged += 1
    ServerConfig.objects.conf(TAGGED_FLAG, True)
    return tagged
