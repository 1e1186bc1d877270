"""
What NPCs know about the world (issue #25), beside what they remember of people.

A builder authors knowledge as data (`@memory know`, `npc.memory.know`, a knowledge file, the
Django admin): a text, a category, a scope (one NPC; every NPC in a room, a zone or with a tag;
the whole world, stored once), an importance, an optional expiry, and two kinds of guarded
knowledge: secrets (never told unless the builder's condition holds) and topics the NPC will
not discuss (met with the builder's line). A turn retrieves it like memories and shows it as a
block of its own; a player's claim against it is kept as uncertain; gossip passes on what is
not guarded, less sure each hop; world events become the knowledge of those who saw them.

- `facts`: records, scopes and their tokens, categories, conditions (plain);
- `selection`: the per-scope index and the fused scorer over it (plain);
- `guards`: secrets withheld, won't-discuss topics matched by words and meaning (plain);
- `contradiction`: the rule that finds a claim against what is known (plain);
- `files`: the knowledge file format (plain);
- `service`: the ORM side (the one write path, caches, a turn's view, gossip, world events,
  loading files); `handler`: `npc.memory.know` and `npc.memory.knowledge`.

The layer sits over `memory` (it uses its text policy, embeddings and scorer) and under
`conversation` (a turn shows it): docs/architecture.md.
"""
