"""
Django system checks, run by `evennia start`, `evennia migrate` and `evennia reboot`. Every
problem is reported at once, each with a stable id:

- omniira.E001  a value in settings.OMNIIRA does not validate (one error per value)
- omniira.E002  FALLBACK_TIER names no tier
- omniira.E003  the embedder cannot be created or does not fit (e.g. its dimension)
- omniira.W001  an LLM tier has no endpoint: NPCs answer with fallback lines (names the
                variables the server process sees: they are read when it starts)
- omniira.W002  an LLM endpoint does not answer
- omniira.W003  the fallback tier has no endpoint
- omniira.W004  SQLite has no FTS5: the full-text lane is off, retrieval uses the paper's scorer
- omniira.W005  a stored ticker has a typeclass path that no longer imports (run migrate)
- omniira.W006  stored vectors were made by another embedder: run `@memory reembed`
"""

from __future__ import annotations

import os

import httpx
from django.conf import settings
from django.core import checks
from django.db import DatabaseError, connection
from pydantic import ValidationError

from omniira_evennia.conf import TIER_NAMES, OmniiraSettings, build_settings
from omniira_evennia.memory import embeddings
from omniira_evennia.memory import service as memories

CONF_HINT = "See the settings table in omniira_evennia/README.md (Configuration)."
ENV_HINT = (
    "Set OMNIIRA_LLM_BASE_URL (and OMNIIRA_LLM_MODEL / OMNIIRA_LLM_API_KEY) or "
    "settings.OMNIIRA['TIERS'][<tier>]['base_url']. Environment variables are read when the "
    "server process starts: after changing them run `evennia reboot` (a reload keeps the old "
    "environment)."
)
TICKER_PATHS = {
    "omniira_ticker": "omniira_evennia.scripts.OmniiraTicker",
    "omniira_decisions": "omniira_evennia.scripts.OmniiraDecisionTicker",
}


def _seen_variables() -> str:
    """The OMNIIRA_* variables this process sees (secrets masked)."""
    names = sorted(name for name in os.environ if name.startswith("OMNIIRA_"))
    if not names:
        return "this process sees no OMNIIRA_* environment variables"
    shown = [name if "KEY" not in name else f"{name}=***" for name in names]
    return "this process sees " + ", ".join(shown)


def settings_problems(raw) -> tuple[OmniiraSettings | None, list[checks.CheckMessage]]:
    """The settings (or None) and every problem with them."""
    try:
        conf = build_settings(raw)
    except ValidationError as err:
        return None, [
            checks.Error(
                f"settings.OMNIIRA[{'.'.join(str(p) for p in e['loc'])!r}] is invalid: "
                f"{e['msg']} (got {e.get('input')!r})",
                hint=CONF_HINT,
                id="omniira.E001",
            )
            for e in err.errors()
        ]
    found: list[checks.CheckMessage] = []
    missing = [name for name in TIER_NAMES if not conf.TIERS[name].configured]
    if missing:
        found.append(
            checks.Warning(
                f"LLM tier(s) {', '.join(missing)} have no base_url, so NPCs answer with "
                f"in-character fallback lines; {_seen_variables()}.",
                hint=ENV_HINT,
                id="omniira.W001",
            )
        )
    fallback = conf.FALLBACK_TIER
    if fallback and fallback not in conf.TIERS:
        found.append(
            checks.Error(
                f"FALLBACK_TIER {fallback!r} is not a tier (tiers: {', '.join(conf.TIERS)}).",
                hint="Set FALLBACK_TIER to a tier name, or None for no fallback.",
                id="omniira.E002",
            )
        )
    elif fallback and not conf.TIERS[fallback].configured and fallback not in missing:
        found.append(
            checks.Warning(
                f"The fallback tier {fallback!r} has no base_url.",
                hint=ENV_HINT,
                id="omniira.W003",
            )
        )
    return conf, found


def endpoint_problems(conf: OmniiraSettings, timeout: float = 2.0) -> list[checks.CheckMessage]:
    """One GET of `<base_url>/models` per distinct endpoint; a warning for each that fails."""
    found = []
    urls = {t.base_url.rstrip("/") for t in conf.TIERS.values() if t.configured}
    for url in sorted(urls):
        tiers = [name for name, t in conf.TIERS.items() if (t.base_url or "").rstrip("/") == url]
        try:
            httpx.get(f"{url}/models", timeout=timeout).raise_for_status()
        except httpx.HTTPStatusError:
            continue  # it answered; some servers have no /models (the call path is what counts)
        except httpx.HTTPError as err:
            found.append(
                checks.Warning(
                    f"The LLM endpoint of tier(s) {', '.join(tiers)} does not answer "
                    f"({type(err).__name__}); NPCs will answer with fallback lines until it "
                    f"does; {_seen_variables()}.",
                    hint="Start the model server, or fix base_url. " + ENV_HINT,
                    id="omniira.W002",
                )
            )
    return found


def embedder_problems() -> list[checks.CheckMessage]:
    return [
        checks.Error(problem, hint=CONF_HINT, id="omniira.E003")
        for problem in embeddings.embedder_problems()
    ]


def database_problems() -> list[checks.CheckMessage]:
    found = []
    if connection.vendor == "sqlite" and not memories.fulltext_available(connection):
        found.append(
            checks.Warning(
                "This SQLite has no FTS5: the full-text lane is off and retrieval uses the "
                "paper's scorer only.",
                hint="Use a Python whose sqlite3 has FTS5 (the python.org and Debian builds do).",
                id="omniira.W004",
            )
        )
    try:
        from evennia.scripts.models import ScriptDB  # checks run before Evennia is set up

        stale = ScriptDB.objects.filter(db_key__in=TICKER_PATHS).values_list(
            "db_key", "db_typeclass_path"
        )
        for key, path in stale:
            if path != TICKER_PATHS[key]:
                found.append(
                    checks.Warning(
                        f"The script {key!r} is stored with the old path {path!r}.",
                        hint="Run `evennia migrate` (migration 0007 rewrites it).",
                        id="omniira.W005",
                    )
                )
    except DatabaseError:  # not migrated yet: nothing is stored
        pass
    pending = memories.reembed_warning()
    if pending:
        found.append(
            checks.Warning(
                pending,
                hint="In game: `@memory reembed` (or `evennia omniira_reembed`).",
                id="omniira.W006",
            )
        )
    return found


@checks.register("omniira")
def check_omniira(app_configs=None, databases=None, **kwargs):
    conf, found = settings_problems(getattr(settings, "OMNIIRA", None))
    if conf is None:
        return found
    found += embedder_problems()
    if not getattr(settings, "TEST_ENVIRONMENT", False):  # no network in the test suite
        found += endpoint_problems(conf)
    if databases:
        found += database_problems()
    return found
