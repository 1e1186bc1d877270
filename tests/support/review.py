"""A scripted reasoning tier for the conversation-end review's tests."""

from omniira_evennia.llm.client import ChatResult, Usage


class FakeClient:
    def __init__(self, *replies):
        self.replies = list(replies)
        self.requests = []

    def chat(self, tier, messages, *, feature, json_schema=None, **kwargs):
        self.requests.append({"messages": messages, "schema": json_schema, "feature": feature})
        reply = self.replies[min(len(self.requests), len(self.replies)) - 1]
        return ChatResult(reply, Usage(tier, feature, "fake", tokens_in=50, tokens_out=20))
