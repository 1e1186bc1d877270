"""
Django system checks, run by `evennia start` / `evennia migrate` (stable ids):

- omniira.E001  the OMNIIRA setting does not validate
- omniira.W001  an LLM tier has no endpoint (NPCs will answer with fallback lines)
"""

from django.core import checks
from pydantic import ValidationError

from omniira_evennia.conf import TIER_NAMES, build_settings


@checks.register("omniira")
def check_settings(app_configs=None, **kwargs):
    from django.conf import settings

    try:
        conf = build_settings(getattr(settings, "OMNIIRA", None))
    except ValidationError as err:
        return [
            checks.Error(
                f"settings.OMNIIRA is invalid: {err.errors()[0]['loc']}: {err.errors()[0]['msg']}",
                hint="See omniira_evennia/conf.py for the settings and their types.",
                id="omniira.E001",
            )
        ]
    missing = [name for name in TIER_NAMES if not conf.TIERS[name].configured]
    if missing:
        return [
            checks.Warning(
                f"LLM tier(s) {', '.join(missing)} have no base_url; NPCs will answer with "
                "in-character fallback lines.",
                hint="Set OMNIIRA_LLM_BASE_URL (and OMNIIRA_LLM_MODEL / OMNIIRA_LLM_API_KEY) or "
                "settings.OMNIIRA['TIERS'][<tier>]['base_url'].",
                id="omniira.W001",
            )
        ]
    return []
