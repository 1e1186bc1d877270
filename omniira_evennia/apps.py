from django.apps import AppConfig


class OmniiraConfig(AppConfig):
    name = "omniira_evennia"
    label = "omniira_evennia"
    verbose_name = "Omniira NPC memory"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.core.signals import setting_changed
        from django.db.models.signals import post_migrate

        from . import checks  # noqa: F401  (registers the system checks)
        from . import conf, fulltext, llm, store

        def _settings_changed(setting, **kwargs):
            if setting == "OMNIIRA":
                conf.reset_settings()
                llm.reset_client()

        setting_changed.connect(_settings_changed, weak=False)
        store.connect_signals()
        # A later migration that rebuilds a table (SQLite) drops the full-text triggers.
        post_migrate.connect(fulltext.ensure_installed, sender=self, dispatch_uid="omniira_fts")
