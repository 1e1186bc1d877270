"""What the write policy keeps: memories, beliefs, diaries, opinions, concerns, plans, ties."""

from django.db import models
from django.utils import timezone

from omniira_evennia.fields import EmbeddingField

FEELING_CHOICES = [
    (f, f) for f in ("joy", "anger", "fear", "trust", "contempt", "sorrow", "surprise")
]


class Source(models.TextChoices):
    SELF = "self", "self-tagged"
    EXTRACTED = "extracted", "extracted after a conversation"
    GOSSIP = "gossip", "heard as gossip"
    SELF_COMMITTED = "self_committed", "a commitment the NPC made"
    ADMIN = "admin", "written by a builder"


class Memory(models.Model):
    """One thing an NPC remembers about a subject; unique per (npc, subject, key)."""

    npc = models.ForeignKey(
        "objects.ObjectDB", on_delete=models.CASCADE, related_name="omniira_memories"
    )
    subject = models.ForeignKey(
        "objects.ObjectDB", on_delete=models.CASCADE, related_name="omniira_memories_about"
    )
    key = models.CharField(max_length=64)
    value = models.CharField(max_length=500)
    learned_at = models.DateTimeField(default=timezone.now)
    game_day = models.IntegerField(default=0)
    embedding = EmbeddingField(null=True, blank=True)
    # Which embedder made `embedding` (embeddings.embedder_name); NULL: none recorded.
    embedder = models.CharField(max_length=100, null=True, blank=True, default=None)
    importance = models.SmallIntegerField(default=5)
    source = models.CharField(max_length=16, choices=Source.choices, default=Source.SELF)
    provenance = models.ForeignKey(
        "objects.ObjectDB",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="omniira_memories_told",
        help_text="Who told the NPC this; empty means firsthand.",
    )
    feeling = models.CharField(max_length=16, choices=FEELING_CHOICES, blank=True, default="")
    kind = models.CharField(max_length=32, default="event")
    expires_at = models.DateTimeField(null=True, blank=True)
    locked = models.BooleanField(default=False)
    # Hearsay: how many tellings away from the origin (1 = heard from the origin itself), and
    # the chain of NPC ids from the origin to the one who told this NPC.
    hops = models.SmallIntegerField(default=0)
    chain = models.JSONField(default=list, blank=True)
    # Instruction-like content or written during a manipulation attempt: kept, audited, and
    # shown as untrusted (or left out of prompts, setting SUSPECT_MEMORIES).
    suspect = models.BooleanField(default=False)
    # The player whose words this came from (told to this NPC, or to the first NPC of a gossip
    # chain): a player's claim stays a player's claim however far it travels (issue #17).
    origin = models.ForeignKey(
        "objects.ObjectDB", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Earlier values of this key, newest first: [{"value", "until" (ISO time), "source"}], at
    # most HISTORY_KEPT. A fact remembered again with a new value is updated, not erased.
    history = models.JSONField(default=list, blank=True)
    # What the memory rests on (issue #24, memory/grounding.py): {"line", "words"} of what was
    # said, or {"source": ...} for a builder's, game code's or the NPC's own; null: nothing
    # checked it (a belief is drawn only from memories that have it).
    grounding = models.JSONField(null=True, blank=True, default=None)
    # A player's claim that contradicts what the NPC knows (issue #25, knowledge/contradiction):
    # kept, shown to the model as doubtful, never taken for the truth.
    uncertain = models.BooleanField(default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["npc", "subject", "key"], name="omniira_memory_unique_key"
            )
        ]
        indexes = [
            models.Index(fields=["npc", "subject", "learned_at"], name="omniira_mem_recent"),
            models.Index(fields=["npc", "learned_at"], name="omniira_mem_npc_time"),
            models.Index(fields=["source"], name="omniira_mem_source"),
            models.Index(fields=["embedder"], name="omniira_mem_embedder"),
        ]
        ordering = ["learned_at", "id"]

    def __str__(self):
        return f"{self.key}: {self.value[:60]}"

    @property
    def is_hearsay(self) -> bool:
        return self.provenance_id is not None


class Reflection(models.Model):
    """A belief an NPC came to hold about a target at a daily reflection."""

    npc = models.ForeignKey("objects.ObjectDB", on_delete=models.CASCADE, related_name="+")
    target = models.ForeignKey("objects.ObjectDB", on_delete=models.CASCADE, related_name="+")
    belief = models.CharField(max_length=500)
    importance = models.SmallIntegerField(default=5)
    memories_count = models.IntegerField(default=0)
    embedding = EmbeddingField(null=True, blank=True)
    # Which embedder made `embedding` (embeddings.embedder_name); NULL: none recorded.
    embedder = models.CharField(max_length=100, null=True, blank=True, default=None)
    game_day = models.IntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["npc", "target", "created_at"], name="omniira_refl_target"),
        ]
        ordering = ["created_at", "id"]

    def __str__(self):
        return self.belief[:80]


class DiaryEntry(models.Model):
    """An NPC's first-person diary entry for one game day."""

    npc = models.ForeignKey("objects.ObjectDB", on_delete=models.CASCADE, related_name="+")
    game_day = models.IntegerField()
    entry = models.TextField()
    importance = models.SmallIntegerField(default=5)
    embedding = EmbeddingField(null=True, blank=True)
    # Which embedder made `embedding` (embeddings.embedder_name); NULL: none recorded.
    embedder = models.CharField(max_length=100, null=True, blank=True, default=None)
    written_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["npc", "game_day"], name="omniira_diary_one_per_day")
        ]
        ordering = ["game_day"]
        verbose_name_plural = "diary entries"

    def __str__(self):
        return f"day {self.game_day}: {self.entry[:60]}"


class Opinion(models.Model):
    """What an NPC currently thinks of a target, in its own words; replaced, not appended."""

    npc = models.ForeignKey("objects.ObjectDB", on_delete=models.CASCADE, related_name="+")
    target = models.ForeignKey("objects.ObjectDB", on_delete=models.CASCADE, related_name="+")
    opinion = models.CharField(max_length=500)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["npc", "target"], name="omniira_opinion_unique")
        ]

    def __str__(self):
        return self.opinion[:80]


class Concern(models.Model):
    """Something on an NPC's mind, with an intensity 1-5."""

    npc = models.ForeignKey("objects.ObjectDB", on_delete=models.CASCADE, related_name="+")
    topic = models.CharField(max_length=200)
    intensity = models.SmallIntegerField(default=2)
    source = models.ForeignKey(
        "objects.ObjectDB", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    resolved = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)
    # Written during a flagged turn or reading like an instruction: kept for builders, never
    # shown to the model. Concerns expire CONCERN_DAYS game days after `game_day`.
    suspect = models.BooleanField(default=False)
    game_day = models.IntegerField(default=0)
    # Raised by someone in talk (a player, or another NPC): shown only in conversations with
    # `source`. Decided when written, never from whether the source is logged in.
    private = models.BooleanField(default=False)

    class Meta:
        indexes = [models.Index(fields=["npc", "resolved", "created_at"], name="omniira_concern")]
        ordering = ["-created_at"]

    def __str__(self):
        return self.topic


class Plan(models.Model):
    """A commitment an NPC made (travel_with / travel_to), as a structured plan."""

    class Status(models.TextChoices):
        OPEN = "open"
        DONE = "done"
        DROPPED = "dropped"

    npc = models.ForeignKey("objects.ObjectDB", on_delete=models.CASCADE, related_name="+")
    to = models.ForeignKey(
        "objects.ObjectDB", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    to_name = models.CharField(max_length=100, blank=True)
    to_kind = models.CharField(max_length=8, default="player")
    action = models.CharField(max_length=16)
    target = models.CharField(max_length=100, blank=True)
    by = models.CharField(max_length=100, blank=True)
    summary = models.CharField(max_length=500)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    game_day = models.IntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    # Whose turn the promise came from: what the NPC remembers of keeping it is about them,
    # from their words (capped, erased with them), never about someone the tag named.
    origin = models.ForeignKey(
        "objects.ObjectDB", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Made during a flagged turn or reading like an instruction (its memory is suspect too).
    suspect = models.BooleanField(default=False)

    class Meta:
        indexes = [models.Index(fields=["npc", "status"], name="omniira_plan_status")]

    def __str__(self):
        return self.summary[:80]


class Relationship(models.Model):
    """How an NPC stands towards a subject: six dimensions in 0-1, 0.5 is neutral."""

    DIMENSIONS = ("trust", "fear", "respect", "loyalty", "friendliness", "romance")

    npc = models.ForeignKey("objects.ObjectDB", on_delete=models.CASCADE, related_name="+")
    subject = models.ForeignKey("objects.ObjectDB", on_delete=models.CASCADE, related_name="+")
    trust = models.FloatField(default=0.5)
    fear = models.FloatField(default=0.0)
    respect = models.FloatField(default=0.5)
    loyalty = models.FloatField(default=0.5)
    friendliness = models.FloatField(default=0.5)
    romance = models.FloatField(default=0.0)
    version = models.IntegerField(default=0)  # optimistic concurrency
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["npc", "subject"], name="omniira_relationship_unique")
        ]

    def values(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in self.DIMENSIONS}
