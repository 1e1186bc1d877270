"""
One turn with Maren through the command path against the real offline model (llama.cpp
serving the packaged Qwen2.5-Coder-1.5B on 127.0.0.1). Slow (~30-60 s on 2 cores), run in CI.
"""

import pytest
from django.test import override_settings
from evennia.utils import create
from evennia.utils.test_resources import EvenniaCommandTest

from omniira_evennia.commands import CmdSay
from omniira_evennia.conf import DEFAULT_FALLBACK_LINES
from omniira_evennia.llm.local_model import running_server
from omniira_evennia.models import ConversationTurn, LLMUsage

pytestmark = pytest.mark.realmodel


@pytest.fixture(scope="module")
def local_model_url():
    with running_server(threads=2, ctx=2048) as url:  # the first run assembles 1.1 GB
        yield url


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
