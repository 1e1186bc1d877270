"""
Database tables for NPC memory (paper appendix A, plus conversation turns and LLM usage).

NPCs and subjects are Evennia objects (`ObjectDB`): a subject is the player character or NPC a
memory is about. Embeddings are raw float32 bytes (384 dims for all-MiniLM-L6-v2).
"""

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


class ConversationTurn(models.Model):
    """One line of a conversation, as shown: NPC lines are stored after tag stripping."""

    class Role(models.TextChoices):
        SPEAKER = "speaker"  # the player (or NPC) talking to this NPC
        NPC = "npc"  # this NPC's reply

    npc = models.ForeignKey("objects.ObjectDB", on_delete=models.CASCADE, related_name="+")
    speaker = models.ForeignKey(
        "objects.ObjectDB", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    conversation_id = models.CharField(max_length=36, db_index=True)
    role = models.CharField(max_length=8, choices=Role.choices)
    text = models.TextField()
    game_day = models.IntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    # The verbatim lane (issue #16): a speaker's line keeps the vector its turn embedded anyway
    # (the retrieval query), so what was said can itself be recalled. Flagged lines are suspect.
    embedding = EmbeddingField(null=True, blank=True)
    embedder = models.CharField(max_length=100, null=True, blank=True, default=None)
    suspect = models.BooleanField(default=False)

    class Meta:
        indexes = [
            models.Index(fields=["npc", "speaker", "created_at"], name="omniira_turn_recent"),
            models.Index(fields=["game_day"], name="omniira_turn_day"),  # retention
        ]
        ordering = ["created_at", "id"]

    def __str__(self):
        return f"{self.role}: {self.text[:60]}"


class LLMUsage(models.Model):
    """One LLM call: which tier and feature, tokens, latency, cost, and whether it worked."""

    tier = models.CharField(max_length=16)
    feature = models.CharField(max_length=32)
    model = models.CharField(max_length=200, blank=True)
    npc = models.ForeignKey(
        "objects.ObjectDB", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Never negative (a check constraint in the database too): spend only grows (llm/guards).
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    latency_ms = models.IntegerField(default=0)
    cost_usd = models.FloatField(default=0.0)
    ok = models.BooleanField(default=True)
    error = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["created_at"], name="omniira_usage_time"),
            models.Index(fields=["tier", "feature"], name="omniira_usage_feature"),
        ]
        verbose_name_plural = "LLM usage"


class Conversation(models.Model):
    """
    One conversation between an NPC and a speaker (a player, or another NPC).

    It ends when the speaker leaves, says goodbye, idles past CONVERSATION_IDLE_SECONDS, or the
    server restarts. Extraction then runs once: `extraction` moves pending → running → done (or
    failed) with conditional updates, so a restart or a second end never extracts twice.
    """

    class Extraction(models.TextChoices):
        NONE = "none"  # not to be extracted (e.g. NPC-to-NPC: gossip extraction handles it)
        PENDING = "pending"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"
        SKIPPED = "skipped"

    conversation_id = models.CharField(max_length=36, unique=True)
    npc = models.ForeignKey("objects.ObjectDB", on_delete=models.CASCADE, related_name="+")
    speaker = models.ForeignKey(
        "objects.ObjectDB", null=True, on_delete=models.SET_NULL, related_name="+"
    )
    started_at = models.DateTimeField(default=timezone.now)
    last_turn_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.CharField(max_length=16, blank=True)
    extraction = models.CharField(
        max_length=8, choices=Extraction.choices, default=Extraction.PENDING
    )
    extracted_count = models.IntegerField(default=0)
    # What the review proposed and the write policy refused: [{"value", "reason"}] (issue #24).
    rejected = models.JSONField(default=list, blank=True)
    # A failed review is tried again (RETRY_ATTEMPTS times, backing off): how often it was
    # tried, when it may run next, and why it last failed.
    attempts = models.SmallIntegerField(default=0)
    retry_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=200, blank=True)

    class Meta:
        indexes = [models.Index(fields=["ended_at", "extraction"], name="omniira_conv_open")]

    def __str__(self):
        return f"{self.conversation_id} ({self.end_reason or 'open'})"


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


class PlaceVisit(models.Model):
    """Where an NPC went, per game day (the diary's "places visited today")."""

    npc = models.ForeignKey("objects.ObjectDB", on_delete=models.CASCADE, related_name="+")
    game_day = models.IntegerField()
    place = models.CharField(max_length=100)
    room = models.ForeignKey(
        "objects.ObjectDB", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    arrived_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["npc", "game_day"], name="omniira_visit_day")]
        ordering = ["arrived_at", "id"]


class WorldEvent(models.Model):
    """Something that happened in the world, naming the NPCs involved (logged by game code)."""

    game_day = models.IntegerField()
    text = models.CharField(max_length=500)
    npc_ids = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["game_day"], name="omniira_event_day")]
        ordering = ["created_at", "id"]


class DailyWork(models.Model):
    """
    A claim on one piece of rollover work (a diary, or a reflection on one target) for one game
    day. The unique constraint makes each run at most once, across restarts and re-runs.
    """

    kind = models.CharField(max_length=16)  # "diary" | "reflection"
    npc = models.ForeignKey("objects.ObjectDB", on_delete=models.CASCADE, related_name="+")
    target_id = models.IntegerField(default=0)  # 0 for work without a target
    game_day = models.IntegerField()
    status = models.CharField(max_length=8, default="running")  # running|done|empty|retry|failed
    created_at = models.DateTimeField(default=timezone.now)
    # Failed work is tried again ("retry" until `retry_at`), RETRY_ATTEMPTS times in all.
    attempts = models.SmallIntegerField(default=1)
    retry_at = models.DateTimeField(null=True, blank=True)
    last_error = models.CharField(max_length=200, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "npc", "target_id", "game_day"], name="omniira_daily_once"
            )
        ]


class AuditLog(models.Model):
    """A safety event: manipulation flagged on player text or a memory, or a privacy erasure."""

    kind = models.CharField(max_length=24)  # player_text | memory | erasure
    labels = models.JSONField(default=list, blank=True)
    npc = models.ForeignKey(
        "objects.ObjectDB", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    speaker = models.ForeignKey(
        "objects.ObjectDB", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    memory = models.ForeignKey(
        Memory, null=True, blank=True, on_delete=models.SET_NULL, related_name="audits"
    )
    excerpt = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            models.Index(fields=["kind", "created_at"], name="omniira_audit_kind"),
            models.Index(fields=["created_at"], name="omniira_audit_time"),  # retention
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.kind} {self.labels}: {self.excerpt[:60]}"


class Erasure(models.Model):
    """
    A player's data was erased at `erased_at` (memory/erasure.py): a tombstone, so results of
    work that began before then (a reply, a review, gossip, a rollover job) are dropped when they
    arrive afterwards instead of writing the player back (memory/write.py, `late_write`). Holds
    the character's id only, no text.
    """

    player_id = models.IntegerField(db_index=True)
    erased_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-erased_at", "-id"]

    def __str__(self):
        return f"#{self.player_id} erased at {self.erased_at:%Y-%m-%d %H:%M}"


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
