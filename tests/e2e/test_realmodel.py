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


def test_a_conversation_whose_oldest_turn_dropped_is_not_read_again(local_model_url):
    """
    A long conversation's prompt keeps its last turns, so the oldest one leaves the middle of
    the prompt: the server reuses the unchanged chunks after it (CACHE_REUSE_TOKENS) instead
    of reading them all again (330-490 tokens a line in the dialogue evaluation before).
    """
    import httpx

    system = "You are Maren, who keeps the Lantern & Lane tavern. " + " ".join(
        f"Rule {n}: answer briefly, in your own voice, as Maren would." for n in range(12)
    )
    turns = []
    for n in range(8):
        turns.append({"role": "user", "content": f'Ada says to you: "Tell me about day {n}."'})
        turns.append(
            {"role": "assistant", "content": f"On day {n} the market was busy, love. " * 4}
        )
    line = {"role": "user", "content": 'Ada says to you: "And tonight?"'}

    def prompt_timings(history):
        body = {"messages": [{"role": "system", "content": system}, *history, line]}
        body.update(max_tokens=1, temperature=0)
        response = httpx.post(f"{local_model_url}/chat/completions", json=body, timeout=300)
        return response.json()["timings"]

    prompt_timings(turns)
    after_slide = prompt_timings(turns[2:])  # the oldest exchange dropped
    print("after the slide:", after_slide)
    kept = after_slide["cache_n"]
    assert after_slide["prompt_n"] < 60, after_slide  # about 500 tokens follow the dropped pair
    assert kept > 400, after_slide
