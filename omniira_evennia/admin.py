"""Django admin for every omniira model (Evennia serves it at /admin)."""

from django.contrib import admin

from omniira_evennia.knowledge import service as knowledge
from omniira_evennia.models import (
    AuditLog,
    Concern,
    Conversation,
    ConversationTurn,
    DailyWork,
    DiaryEntry,
    Erasure,
    Knowledge,
    LLMUsage,
    Memory,
    Opinion,
    PlaceVisit,
    Plan,
    Reflection,
    Relationship,
    WorldEvent,
)


@admin.register(Memory)
class MemoryAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "npc",
        "subject",
        "key",
        "value",
        "source",
        "provenance",
        "feeling",
        "importance",
        "hops",
        "locked",
        "suspect",
        "uncertain",
        "learned_at",
    )
    list_filter = ("source", "feeling", "locked", "suspect", "uncertain", "kind")
    search_fields = ("key", "value", "npc__db_key", "subject__db_key")
    raw_id_fields = ("npc", "subject", "provenance")
    exclude = ("embedding",)


@admin.register(Knowledge)
class KnowledgeAdmin(admin.ModelAdmin):
    """What NPCs know (issue #25). A save goes through the knowledge write path (the text
    policy, a condition that must parse, a new embedding when the text changed)."""

    list_display = (
        "id",
        "key",
        "text",
        "category",
        "scope",
        "npc",
        "room",
        "scope_name",
        "guard",
        "importance",
        "confidence",
        "source",
        "expires_at",
        "loaded_from",
    )
    list_filter = ("category", "scope", "guard", "source", "loaded_from")
    search_fields = ("key", "text", "scope_name", "npc__db_key", "room__db_key")
    raw_id_fields = ("npc", "room", "teller", "root")
    exclude = ("embedding", "topic_embedding", "embedder", "scope_token")
    readonly_fields = ("source", "teller", "hops", "chain", "root", "confidence")

    def save_model(self, request, obj, form, change):
        saved = knowledge.save_from_admin(obj)
        if saved is not None:
            obj.pk = saved.pk


@admin.register(Reflection)
class ReflectionAdmin(admin.ModelAdmin):
    list_display = ("npc", "target", "belief", "importance", "game_day", "created_at")
    list_filter = ("game_day",)
    search_fields = ("belief", "npc__db_key", "target__db_key")
    raw_id_fields = ("npc", "target")
    exclude = ("embedding",)


@admin.register(DiaryEntry)
class DiaryEntryAdmin(admin.ModelAdmin):
    list_display = ("npc", "game_day", "entry", "importance")
    list_filter = ("game_day",)
    search_fields = ("entry", "npc__db_key")
    raw_id_fields = ("npc",)
    exclude = ("embedding",)


@admin.register(Relationship)
class RelationshipAdmin(admin.ModelAdmin):
    list_display = (
        "npc",
        "subject",
        "trust",
        "friendliness",
        "fear",
        "respect",
        "loyalty",
        "romance",
        "version",
        "updated_at",
    )
    search_fields = ("npc__db_key", "subject__db_key")
    raw_id_fields = ("npc", "subject")


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin):
    list_display = (
        "conversation_id",
        "npc",
        "speaker",
        "started_at",
        "ended_at",
        "end_reason",
        "extraction",
        "extracted_count",
    )
    list_filter = ("end_reason", "extraction")
    search_fields = ("conversation_id", "npc__db_key", "speaker__db_key")
    raw_id_fields = ("npc", "speaker")


@admin.register(ConversationTurn)
class ConversationTurnAdmin(admin.ModelAdmin):
    list_display = ("created_at", "npc", "speaker", "role", "text", "conversation_id")
    list_filter = ("role",)
    search_fields = ("text", "npc__db_key", "speaker__db_key", "conversation_id")
    raw_id_fields = ("npc", "speaker")


@admin.register(LLMUsage)
class LLMUsageAdmin(admin.ModelAdmin):
    list_display = (
        "created_at",
        "tier",
        "feature",
        "model",
        "npc",
        "tokens_in",
        "tokens_out",
        "latency_ms",
        "cost_usd",
        "ok",
        "error",
    )
    list_filter = ("tier", "feature", "ok")
    search_fields = ("model", "error", "npc__db_key")
    raw_id_fields = ("npc",)


@admin.register(AuditLog)
class AuditLogAdmin(admin.ModelAdmin):
    list_display = ("created_at", "kind", "labels", "npc", "speaker", "excerpt")
    list_filter = ("kind",)
    search_fields = ("excerpt", "npc__db_key", "speaker__db_key")
    raw_id_fields = ("npc", "speaker", "memory")


@admin.register(Erasure)
class ErasureAdmin(admin.ModelAdmin):
    """Tombstones of erased players (ids and times only): read-only, since deleting one would
    let late work write the player back."""

    list_display = ("player_id", "erased_at")
    search_fields = ("player_id",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


for model, fields in (
    (Opinion, ("npc", "target", "opinion", "updated_at")),
    (Concern, ("npc", "topic", "intensity", "resolved", "created_at")),
    (Plan, ("npc", "action", "target", "by", "summary", "status", "created_at")),
    (PlaceVisit, ("npc", "game_day", "place", "arrived_at")),
    (WorldEvent, ("game_day", "text", "created_at")),
    (DailyWork, ("kind", "npc", "target_id", "game_day", "status", "created_at")),
):
    admin.site.register(
        model,
        type(
            f"{model.__name__}Admin",
            (admin.ModelAdmin,),
            {
                "list_display": fields,
                "raw_id_fields": tuple(
                    f
                    for f in ("npc", "target", "to", "room", "source")
                    if f in {x.name for x in model._meta.get_fields()}
                    and model._meta.get_field(f).is_relation
                ),
            },
        ),
    )
