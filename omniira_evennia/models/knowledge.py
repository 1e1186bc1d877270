"""What NPCs know about the world (issue #25): one row per fact and scope."""

from django.db import models
from django.utils import timezone

from omniira_evennia.fields import EmbeddingField


class Knowledge(models.Model):
    """
    What NPCs know about the world (issue #25), beside what they remember of people: one fact,
    for one NPC, every NPC in a room, a zone or with a tag, or the whole world (stored once,
    not copied per NPC). A secret is told only where its `condition` holds; a won't-discuss
    topic is met with `reply`. `scope_token` names who knows it in one indexed column (the
    full-text index's owner too): see knowledge/facts.scope_token.
    """

    class Scope(models.TextChoices):
        NPC = "npc"
        ROOM = "room"
        ZONE = "zone"
        TAG = "tag"
        WORLD = "world"

    class Category(models.TextChoices):
        PLACE = "place"
        PEOPLE = "people"
        TRADE = "trade", "trade and wares"
        EVENT = "event", "world event"
        LORE = "lore"
        FACTION = "faction"

    class Guard(models.TextChoices):
        OPEN = "", "open"
        SECRET = "secret"
        WONT_DISCUSS = "wont_discuss", "will not discuss"

    class Origin(models.TextChoices):
        AUTHORED = "authored", "authored by a builder"
        OBSERVED = "observed", "witnessed (a world event)"
        TOLD = "told", "told by a player (news)"
        GOSSIP = "gossip", "heard from another NPC"

    key = models.CharField(max_length=64)
    text = models.CharField(max_length=500)
    category = models.CharField(max_length=16, choices=Category.choices, default=Category.LORE)
    scope = models.CharField(max_length=8, choices=Scope.choices, default=Scope.WORLD)
    npc = models.ForeignKey(
        "objects.ObjectDB", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    room = models.ForeignKey(
        "objects.ObjectDB", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    scope_name = models.CharField(max_length=100, blank=True)  # the zone or the tag
    scope_token = models.CharField(max_length=24, db_index=True)
    importance = models.SmallIntegerField(default=5)
    # 1.0 for what a builder wrote or an NPC saw; less by KNOWLEDGE_CONFIDENCE_DECAY per
    # gossip hop (the seed's design), and a rumour below KNOWLEDGE_MIN_CONFIDENCE stops.
    confidence = models.FloatField(default=1.0)
    source = models.CharField(max_length=16, choices=Origin.choices, default=Origin.AUTHORED)
    teller = models.ForeignKey(
        "objects.ObjectDB", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    hops = models.SmallIntegerField(default=0)
    chain = models.JSONField(default=list, blank=True)
    # The fact this one was heard from, first told (gossip copies share it: who already knows).
    root = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    guard = models.CharField(max_length=16, choices=Guard.choices, blank=True, default="")
    condition = models.CharField(max_length=200, blank=True)
    reply = models.CharField(max_length=300, blank=True)
    topics = models.JSONField(default=list, blank=True)  # words and aliases of its subject
    expires_at = models.DateTimeField(null=True, blank=True)
    embedding = EmbeddingField(null=True, blank=True)  # of the text (retrieval)
    topic_embedding = EmbeddingField(null=True, blank=True)  # of the topics (guards)
    embedder = models.CharField(max_length=100, null=True, blank=True, default=None)
    loaded_from = models.CharField(max_length=200, blank=True)  # the knowledge file's name
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["scope_token", "key"], name="omniira_knowledge_key"),
            models.Index(fields=["loaded_from"], name="omniira_knowledge_file"),
        ]
        ordering = ["scope", "category", "key", "id"]
        verbose_name_plural = "knowledge"

    def __str__(self):
        return f"{self.key}: {self.text[:60]}"
