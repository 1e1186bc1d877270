"""
The NPC typeclass in today's Evennia idioms (issue #28, point 5): it needs Evennia loaded, so it
lives with the integration tests (the unit tests run without Django or Evennia).
"""

import re


def test_every_npc_attribute_property_is_typed_and_hooks_say_what_they_return():
    """Issue #28, point 5: typed AttributeProperty as Evennia 6.1 offers it, written as string
    annotations so that Evennia 5.0 (not generic) loads the same class."""
    from evennia.typeclasses.attributes import AttributeProperty

    from omniira_evennia.typeclasses import MemoryNPCMixin

    fields = {k for k, v in vars(MemoryNPCMixin).items() if isinstance(v, AttributeProperty)}
    assert fields, "the mixin's identity fields are AttributeProperties"
    hints = MemoryNPCMixin.__annotations__
    for field_name in fields:
        assert re.fullmatch(r"AttributeProperty\[(str|bool|int)\]", hints.get(field_name, ""))
    for hook in ("at_talked_to", "at_msg_receive"):
        assert "return" in getattr(MemoryNPCMixin, hook).__annotations__
