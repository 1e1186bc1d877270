"""NPC-to-NPC talk and gossip."""


def __getattr__(name):
    # Upgrade shim: games created before 0.2 stored the ticker's typeclass path as
    # "omniira_evennia.social.OmniiraTicker" (migration 0007 rewrites stored rows).
    if name == "OmniiraTicker":
        from omniira_evennia.scripts import OmniiraTicker  # lazy: keeps this package plain

        return OmniiraTicker
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
