"""
One turn with Maren through the command path against the real offline model (llama.cpp
serving the packaged Qwen2.5-Coder-1.5B on 127.0.0.1). Slow (~30-60 s on 2 cores), run in CI.
"""

import subprocess
import sys
import time
import urllib.request

import pytest
from django.test import override_settings
from evennia.utils import create
from evennia.utils.test_resources import EvenniaCommandTest

from omniira_evennia.commands import CmdSay
from omniira_evennia.conf import DEFAULT_FALLBACK_LINES
from omniira_evennia.llm.local_model import free_port
from omniira_evennia.models import ConversationTurn, LLMUsage

pytestmark = pytest.mark.realmodel


@pytest.fixture(scope="module")
def local_model_url():
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "omniira_evennia.llm.local_model",
            "serve",
            "--port",
            str(port),
            "--threads",
            "2",
            "--ctx",
            "2048",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 600  # the first run assembles and hashes 1.1 GB
    try:
        while True:
            assert process.poll() is None, process.stdout.read().decode(errors="replace")[-3000:]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, "local model server never became healthy"
            time.sleep(0.5)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.wait(timeout=30)


class TestRealModel(EvenniaCommandTest):
    @pytest.fixture(autouse=True)
    def _url(self, local_model_url):
        self.url = local_model_url

    def test_maren_answers_in_character_without_tags(self):
        self.char1.key = "Ada"
        maren = create.create_object(
            "omniira_evennia.typeclasses.MemoryNPC", key="Maren", location=self.room1
        )
        maren.db.npc_role = "tavern keeper of the Lantern & Lane"
        maren.db.npc_personality = "Warm, shrewd and blunt. Calls people 'love'."
        maren.db.npc_duty = "You run the tavern and pour cider, ale and plum wine."
        tier = {"base_url": self.url, "model": "local", "timeout": 300, "max_tokens": 80}
        conf = {"THINKING_DELAY": 0, "TIERS": {"voice": tier}}
        with override_settings(OMNIIRA=conf):
            shown = self.call(CmdSay(), "Maren, what do you pour here?")
        reply = ConversationTurn.objects.get(role="npc").text
        print("Maren:", reply)
        assert reply.strip()
        assert f'Maren says, "{reply}' in shown or reply in shown
        assert "[[" not in shown and "]]" not in shown
        fallbacks = [line.format(name="Maren")[:20] for line in DEFAULT_FALLBACK_LINES]
        assert not any(f in shown for f in fallbacks)
        for assistant_talk in ("as an ai", "language model", "assist you"):
            assert assistant_talk not in reply.lower()
        usage = LLMUsage.objects.get()
        assert usage.ok and usage.tokens_out > 0
