from django.apps import AppConfig


class OmniiraConfig(AppConfig):
    name = "omniira_evennia"
    label = "omniira_evennia"
    verbose_name = "Omniira NPC memory"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.core.signals import setting_changed
        from django.db.models.signals import post_delete, post_migrate, post_save

        from omniira_evennia import checks  # noqa: F401  (registers the system checks)
        from omniira_evennia import conf, notices
        from omniira_evennia.conversation import service as conversations
        from omniira_evennia.knowledge import service as knowledge
        from omniira_evennia.llm import client as llm
        from omniira_evennia.memory import service as memory
        from omniira_evennia.runtime import blas, logs, runner

        def _settings_changed(setting, **kwargs):
            if setting == "OMNIIRA":
                conf.reset_settings()
                llm.reset_client()

        setting_changed.connect(_settings_changed, weak=False)
        conf.read_settings_from(_omniira_setting)
        from omniira_evennia.llm.service import spend_of_day

        llm.use_spend_loader(spend_of_day)  # budgets count today's recorded usage
        from omniira_evennia.memory import safety

        # The one choke point before any prompt leaves: the client redacts every message with
        # redact_pii (llm/client.py, "the prompt filter"); set here, as the llm layer may not
        # import memory.
        llm.set_prompt_filter(safety.redact_pii)
        memory.connect_signals()
        conversations.connect_signals()
        knowledge.connect_signals()
        _unpin_on_change()
        runner.install_orm_guard(_guard_mode())
        blas.limit_blas_threads(_blas_threads())
        logs.route_to_evennia()  # one logging path: stdlib logging into Evennia's log
        notices.connect()  # staff hear at login what the checks would say (notices.py)

        from omniira_evennia.models import Plan

        # Imported when called: movement needs Evennia's scripts, loaded after the apps.
        def _plan_saved(sender, instance, created=False, **kwargs):
            from omniira_evennia.life.service import on_plan_saved

            on_plan_saved(instance, created)

        def _plan_deleted(sender, instance, **kwargs):
            from omniira_evennia.life.service import forget_followers

            forget_followers(instance.npc_id)

        post_save.connect(_plan_saved, sender=Plan, weak=False, dispatch_uid="omniira_plan")
        post_delete.connect(_plan_deleted, sender=Plan, weak=False, dispatch_uid="omniira_plan_d")

        # A later migration that rebuilds a table (SQLite) drops the full-text triggers.
        post_migrate.connect(
            memory.ensure_fulltext_installed, sender=self, dispatch_uid="omniira_fts"
        )


def _raw_setting(name: str, default, valid):
    """An OMNIIRA value read at start, before the settings are validated: the default when it
    is not `valid` (an invalid OMNIIRA is reported by the checks, not here)."""
    from django.conf import settings

    value = (getattr(settings, "OMNIIRA", None) or {}).get(name, default)
    return value if valid(value) else default


def _guard_mode() -> str:
    """The worker ORM guard's mode (WORKER_ORM_GUARD)."""
    return _raw_setting("WORKER_ORM_GUARD", "log", lambda v: v in ("raise", "log", "off"))


def _blas_threads() -> int:
    """BLAS_THREADS (default 1)."""
    return _raw_setting(
        "BLAS_THREADS", 1, lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0
    )


def _unpin_on_change():
    """A conversation's pinned prompt is dropped when what it shows changes (service.unpin)."""
    from django.db.models.signals import post_delete, post_save

    from omniira_evennia.models import (
        Concern,
        ConversationTurn,
        DiaryEntry,
        Knowledge,
        Memory,
        Opinion,
        Reflection,
    )

    vectors_only = frozenset({"embedding", "embedder"})

    def unpin(sender, instance, created=False, update_fields=None, **kwargs):
        if update_fields and frozenset(update_fields) <= vectors_only:
            return  # a vector made later (write.embed_later) changes nothing a prompt shows
        if not created:  # imported when called: the service brings in Twisted's reactor
            from omniira_evennia.conversation.service import unpin

            unpin()

    for model in (Memory, Opinion, Concern, Reflection, DiaryEntry, ConversationTurn, Knowledge):
        uid = f"omniira_unpin_{model.__name__}"
        post_save.connect(unpin, sender=model, dispatch_uid=uid + "_save", weak=False)
        post_delete.connect(unpin, sender=model, dispatch_uid=uid + "_delete", weak=False)


def _omniira_setting():
    """The game's raw OMNIIRA dict (conf.get_settings validates it)."""
    from django.conf import settings

    return getattr(settings, "OMNIIRA", None)
