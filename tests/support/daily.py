"""The shared set-up of the daily rhythm's tests: a scripted server for reflection and the
diary, and memories to reflect on."""

import json

import omniira_evennia as omniira
from omniira_evennia.models import Memory

# Drawn from what `fill` writes (a belief must rest on its memories: memory/grounding.py).
BELIEF = "Ada carries many a fact she will not name."


class DayRouter:
    def __init__(self):
        self.calls = []

    def __call__(self, body):
        feature = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
        system = body["messages"][0]["content"]
        self.calls.append((feature, system, body["messages"][-1]["content"]))
        if feature == "reflection":
            return json.dumps(
                {"beliefs": [{"belief": BELIEF, "importance": 7}], "reasoning": "many sad memories"}
            )
        if feature == "diary":
            name = system.split("You are ")[1].split(",")[0]
            return json.dumps(
                {"entry": f"{name}'s day was long, and Ada was on my mind.", "importance": 5}
            )
        return "Evening, love."

    def features(self, feature):
        return [c for c in self.calls if c[0] == feature]


def fill(npc, subject, count, day, prefix="fact"):
    for i in range(count):
        omniira.remember(
            npc,
            subject,
            f"{subject.key} {prefix} number {i}.",
            key=f"{prefix}_{i}",
            feeling="sorrow",
        )
    Memory.objects.filter(npc=npc).update(game_day=day)
