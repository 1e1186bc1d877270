"""Staff hear at login what is wrong with the LLM configuration; players hear nothing."""

import os
from unittest import mock

import pytest
from django.test import override_settings
from evennia.server.signals import SIGNAL_ACCOUNT_POST_LOGIN
from evennia.utils import create

from omniira_evennia import checks, notices
from omniira_evennia.conf import TIER_NAMES
from omniira_evennia.llm.local_model import free_port
from omniira_evennia.testing.fakes import ScriptedLLM

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _clean(monkeypatch):
    for name in [n for n in os.environ if n.startswith("OMNIIRA_")]:
        monkeypatch.delenv(name)
    notices.reset()
    yield
    notices.reset()


def account(name, permissions=()):
    return create.create_account(
        name, email=f"{name.lower()}@x.org", password="pw-12345-abc", permissions=list(permissions)
    )


def log_in(who):
    """What `who` is sent when Evennia announces the login (the signal the server sends)."""
    with mock.patch.object(type(who), "msg") as msg:
        SIGNAL_ACCOUNT_POST_LOGIN.send(sender=who, session=None)
    return [call.args[0] for call in msg.call_args_list]


def tiers(base_url):
    return {"TIERS": {name: {"base_url": base_url} for name in TIER_NAMES}}


def test_a_builder_is_told_a_tier_has_no_endpoint_with_the_variables_the_server_sees(
    monkeypatch,
):
    monkeypatch.setenv("OMNIIRA_LLM_MODEL", "gpt-4o-mini")
    with override_settings(OMNIIRA={}):
        lines = log_in(account("Bea", ["Builder"]))
    [line] = lines
    assert "omniira.W001" in line and "voice" in line
    assert "OMNIIRA_LLM_MODEL" in line  # what the server process sees
    assert "OMNIIRA_LLM_BASE_URL" in line and "evennia reboot" in line  # and how to fix it


def test_a_player_is_told_nothing():
    with override_settings(OMNIIRA={}):
        assert log_in(account("Pim")) == []
        assert log_in(account("Hel", ["Helper"])) == []


def test_admins_and_developers_are_staff_too():
    with override_settings(OMNIIRA={}):
        assert len(log_in(account("Ada", ["Admin"]))) == 1
        assert len(log_in(account("Dev", ["Developer"]))) == 1


def test_an_endpoint_that_does_not_answer_is_reported_to_staff():
    url = f"http://127.0.0.1:{free_port()}/v1"
    with override_settings(OMNIIRA=tiers(url)):
        [line] = log_in(account("Bea", ["Builder"]))
    assert "omniira.W002" in line and "does not answer" in line and "voice" in line


def test_a_working_configuration_says_nothing_and_is_probed_once_a_minute():
    with ScriptedLLM() as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
        with mock.patch.object(
            checks, "endpoint_problems", wraps=checks.endpoint_problems
        ) as probe:
            assert log_in(account("Bea", ["Builder"])) == []
            assert log_in(account("Bob", ["Builder"])) == []
        assert probe.call_count == 1
        assert log_in(account("Pim")) == []
    assert llm.requests == []  # a GET of /models, never a completion


def test_the_probe_runs_in_the_background_pool_and_the_login_does_not_wait():
    from twisted.internet import defer

    url = f"http://127.0.0.1:{free_port()}/v1"
    bea = account("Bea", ["Builder"])
    with override_settings(OMNIIRA=tiers(url)):
        with mock.patch.object(notices.runner, "defer_background") as background:
            background.return_value = pending = defer.Deferred()
            assert log_in(bea) == []  # the login went on; the probe has not answered yet
        (func, conf), _ = background.call_args
        assert func is checks.endpoint_problems
        with mock.patch.object(type(bea), "msg") as msg:
            pending.callback(func(conf))  # the probe answers later
    [call] = msg.call_args_list
    assert "omniira.W002" in call.args[0]


def test_the_server_log_has_the_same_at_start(monkeypatch):
    monkeypatch.setenv("OMNIIRA_LLM_MODEL", "gpt-4o-mini")
    with override_settings(OMNIIRA={}), mock.patch.object(notices, "log") as log:
        notices.report_at_start()
    [call] = log.warning.call_args_list
    assert "omniira.W001" in call.args[0] and "OMNIIRA_LLM_MODEL" in call.args[0]
