"""
pytest setup shared by every test: the project on the path and the plain state (counters,
settings, the LLM client, the embedder) reset around each test. Django and Evennia are set up
only for the tests that use the game's database (tests/integration and tests/e2e, through
tests/support/django_state.py); the unit tests of the plain core run without them.
"""

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


@pytest.fixture(autouse=True)
def _fresh_plain_state():
    """Each test starts with empty counters, default settings, no LLM client or embedder."""
    from omniira_evennia import conf
    from omniira_evennia.llm import client as llm
    from omniira_evennia.llm import guards
    from omniira_evennia.memory import embeddings
    from omniira_evennia.runtime import health

    health.reset()
    guards.reset_limiters()  # per-player turn and audit rate windows
    conf.reset_settings()
    llm.reset_client()
    yield
    embeddings.set_embedder(None)
    conf.reset_settings()
    llm.reset_client()
