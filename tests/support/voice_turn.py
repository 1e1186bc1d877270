"""A scripted voice tier and one turn's input, for the voice-turn tests (no server, no Django)."""

from omniira_evennia.conf import build_settings
from omniira_evennia.conversation.prompts import Identity, PromptContext
from omniira_evennia.conversation.turn import TurnInput
from omniira_evennia.llm.client import ChatResult, Usage
from omniira_evennia.memory.retrieval import MemoryMatrix


class FakeClient:
    """Returns scripted texts in order and records each request."""

    def __init__(self, *texts):
        self.texts = list(texts)
        self.requests = []

    def chat(self, tier, messages, *, feature, npc_id=None, json_schema=None, **kwargs):
        self.requests.append({"tier": tier, "messages": messages, "schema": json_schema})
        text = self.texts[min(len(self.requests), len(self.texts)) - 1]
        if isinstance(text, Exception):
            raise text
        return ChatResult(text, Usage(tier, feature, "fake", tokens_in=100, tokens_out=10))


def turn_input(message="I mend clocks for a living.", history=()):
    ctx = PromptContext(
        identity=Identity("Maren", "tavern keeper", "Warm.", "You run the tavern."),
        speaker_name="Ada",
        message=message,
        history=list(history),
    )
    return TurnInput(npc_id=1, speaker_id=2, context=ctx, index=MemoryMatrix.build([], [], 8))


def conf(turn_format="json"):
    return build_settings(
        {"TIERS": {"voice": {"base_url": "http://x/v1", "turn_format": turn_format}}}, {}
    )
