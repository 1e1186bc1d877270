"""System checks: every settings problem at once, each with a stable id."""

from unittest import mock

import pytest
from django.core import checks as django_checks
from django.test import override_settings

from omniira_evennia import checks
from omniira_evennia.conf import TIER_NAMES
from omniira_evennia.llm.local_model import free_port


def ids(messages):
    return sorted(m.id for m in messages)


def test_every_invalid_value_is_reported_at_once():
    _, found = checks.settings_problems(
        {"RECENCY_SLOTS": "many", "PLAYER_IMPORTANCE_CAP": 99, "SIMILARITY_FLOOR": "x"}
    )
    assert ids(found) == ["omniira.E001"] * 3
    text = " ".join(m.msg for m in found)
    assert "RECENCY_SLOTS" in text and "PLAYER_IMPORTANCE_CAP" in text and "99" in text


def test_a_tier_without_endpoint_names_the_variables_the_process_sees():
    with mock.patch.dict("os.environ", {"OMNIIRA_LLM_MODEL": "qwen", "OMNIIRA_LLM_API_KEY": "s"}):
        _, found = checks.settings_problems({})
    [warning] = [m for m in found if m.id == "omniira.W001"]
    assert "OMNIIRA_LLM_MODEL" in warning.msg and "OMNIIRA_LLM_API_KEY=***" in warning.msg
    assert "evennia reboot" in warning.hint and "s" not in warning.msg.split("=***")[-1][:2]


def test_a_fallback_tier_that_does_not_exist_is_an_error():
    tiers = {name: {"base_url": "http://127.0.0.1:9/v1"} for name in TIER_NAMES}
    _, found = checks.settings_problems({"TIERS": tiers, "FALLBACK_TIER": "cheap"})
    assert ids(found) == ["omniira.E002"]


def test_an_endpoint_that_does_not_answer_is_reported():
    url = f"http://127.0.0.1:{free_port()}/v1"
    conf, _ = checks.settings_problems({"TIERS": {"voice": {"base_url": url}}})
    found = checks.endpoint_problems(conf, timeout=1.0)
    assert ids(found) == ["omniira.W002"] and "voice" in found[0].msg


@pytest.mark.django_db
def test_a_ticker_stored_under_its_old_path_asks_for_migrate():
    from evennia.scripts.models import ScriptDB

    ScriptDB.objects.create(
        db_key="omniira_ticker", db_typeclass_path="omniira_evennia.social.OmniiraTicker"
    )
    assert "omniira.W005" in ids(checks.database_problems())


@pytest.mark.django_db
def test_the_registered_check_runs_all_of_them():
    with override_settings(OMNIIRA={"RECENCY_SLOTS": -1, "GOSSIP_MAX_HOPS": 0}):
        found = django_checks.run_checks(tags=["omniira"], databases=["default"])
    assert ids(found).count("omniira.E001") == 2
