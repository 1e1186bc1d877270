"""Conversations and their lines, LLM usage, the day's records, audit rows and erasures."""

from django.db import models
from django.utils import timezone

from omniira_evennia.fields import EmbeddingField
from omniira_evennia.models.memories import Memory


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
