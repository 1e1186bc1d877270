"""The builder's verbs (`@memory`, the web inspector) as functions over `npc.memory` and the
capability services, returning text or plain data; `admin_commands.py` and `views.py` only
parse, call these and show what they return."""
