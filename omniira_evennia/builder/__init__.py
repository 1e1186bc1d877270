"""The builder's verbs (`@memory`, the inspector) as functions over npc.memory and the services."""
