"""
Every prompt has a token bound (issue #17, point 8): a 300-exchange conversation (its turns and
its conversation-end review, read in windows) and a day with 500 concerns and 500 memories (the
diary, the reflection, gossip) send no request over about 4k tokens (estimated as chars / 4).
"""

import json
from datetime import timedelta

from django.test import override_settings
from django.utils import timezone

import omniira_evennia as omniira
from omniira_evennia.commands import CmdTalk
from omniira_evennia.conversation import store as conversations
from omniira_evennia.conversation.extraction import ExtractionInput, run_extraction
from omniira_evennia.memory import store
from omniira_evennia.models import Concern, Conversation, Memory, Reflection
from omniira_evennia.rollover.diary import DaySignals, render_signals
from omniira_evennia.rollover.reflection import ReflectionInput
from omniira_evennia.rollover.reflection import build_messages as reflection_messages
from omniira_evennia.runtime import clock
from omniira_evennia.testing.fakes import ScriptedLLM
from tests.support.daily import DayRouter
from tests.support.review import FakeClient
from tests.support.social import SocialTestBase
from tests.support.talk import tiers

TOKEN_BOUND = 4000


def tokens(messages) -> int:
    return sum(len(m.get("content") or "") for m in messages) // 4


def exchange(n: int) -> tuple[str, str]:
    said = f"Line {n}: I mended the clock of the mill today and the miller paid me in barley."
    reply = f"Reply {n}: Well done, love. The miller is a fair man, and barley makes good ale."
    return said, reply


def test_extraction_of_300_exchanges_is_windowed():
    lines = []
    for n in range(300):
        said, reply = exchange(n)
        lines += [("Ada", said), ("Maren", reply)]
    known = [f"Ada once said a long thing number {n}: " + "x" * 450 for n in range(60)]
    client = FakeClient('{"memories": []}')
    run_extraction(ExtractionInput("c", "Maren", "Ada", lines, known, npc_id=1), client)
    sizes = [tokens(r["messages"]) for r in client.requests]
    print(f"review of 300 exchanges: {len(sizes)} calls, largest {max(sizes)} tokens")
    assert len(sizes) > 1 and max(sizes) <= TOKEN_BOUND


def test_a_diary_of_500_concerns_and_a_reflection_over_500_memories_are_bounded():
    signals = DaySignals(
        memories=[f"about Ada: memory {n} " + "m" * 480 for n in range(500)],
        concerns_today=[f"worry {n} " + "c" * 190 for n in reversed(range(500))],  # newest first
        places=[f"Place {n}" for n in range(500)],
        events=[f"event {n} " + "e" * 300 for n in range(500)],
        standing_concerns=[f"old worry {n}" for n in range(500)],
    )
    shown = render_signals(signals)
    assert len(shown) // 4 <= TOKEN_BOUND - 500
    assert "worry 499" in shown and "(and 490 more)" in shown  # the latest worries are kept
    inp = ReflectionInput(
        1,
        2,
        "Maren",
        "Ada",
        [f'(saw/heard it myself) "memory {n} {"m" * 600}"' for n in range(500)],
        [f"belief {n} " + "b" * 600 for n in range(100)],
    )
    assert tokens(reflection_messages(inp)) <= TOKEN_BOUND


class TestPromptBounds(SocialTestBase):
    def test_a_300_exchange_conversation_sends_no_request_over_the_bound(self):
        with (
            ScriptedLLM(['Aye, love. {"memories": []}']) as llm,
            override_settings(OMNIIRA=tiers(llm.base_url)),
        ):
            self.call(CmdTalk(), "Maren = Evening, Maren.")
            conversation_id = Conversation.objects.get().conversation_id
            day = clock.current_game_day()
            for n in range(298):
                said, reply = exchange(n)
                conversations.add_turn(
                    self.maren, self.char1, conversation_id, "speaker", said, day
                )
                conversations.add_turn(self.maren, self.char1, conversation_id, "npc", reply, day)
            self.call(CmdTalk(), "Maren = Do you remember the mill?")
            self.call(CmdTalk(), "Maren = Goodbye!")
        features = [
            ((r.get("response_format") or {}).get("json_schema") or {}).get("name")
            for r in llm.requests
        ]
        sizes = [tokens(r["messages"]) for r in llm.requests]
        print(
            f"300 exchanges: {features.count(None)} turns, {features.count('extraction')} review "
            f"calls, largest request {max(sizes)} tokens (chars/4)"
        )
        assert features.count("extraction") >= 2  # read in windows, not in one piece
        assert max(sizes) <= TOKEN_BOUND

    def test_a_day_with_500_concerns_and_500_memories_sends_no_request_over_the_bound(self):
        self.maren.db.npc_headline = True
        day = clock.current_game_day()
        Concern.objects.bulk_create(
            Concern(npc=self.maren, topic=f"worry {n}: " + "w" * 180, game_day=day)
            for n in range(500)
        )
        Memory.objects.bulk_create(
            Memory(
                npc=npc,
                subject=self.char1,
                key=f"fact_{n}",
                value=f"Ada fact {n}: " + "f" * 480,
                game_day=day,
                feeling="sorrow",
                grounding={"source": "a builder"},  # so the reflection may draw on them
            )
            for npc in (self.maren, self.lyra)
            for n in range(500)
        )
        Reflection.objects.bulk_create(
            Reflection(
                npc=self.maren,
                target=self.char1,
                belief=f"belief {n}: " + "b" * 480,
                created_at=timezone.now() - timedelta(days=2),
            )
            for n in range(50)
        )
        store.invalidate()
        router = DayRouter()

        def answer(body):
            feature = ((body.get("response_format") or {}).get("json_schema") or {}).get("name")
            if feature == "gossip":
                return json.dumps({"items": []})
            return router(body)

        self.leave_room()  # NPCs gossip when no player is in the room
        with ScriptedLLM(answer) as llm, override_settings(OMNIIRA=tiers(llm.base_url)):
            omniira.gossip_round(self.room1)
            omniira.run_rollover()
        features = {}
        for request in llm.requests:
            name = ((request.get("response_format") or {}).get("json_schema") or {}).get("name")
            features[name] = max(features.get(name, 0), tokens(request["messages"]))
        print(f"largest request per feature (tokens, chars/4): {features}")
        assert {"diary", "reflection", "gossip", None} <= set(features)
        assert max(features.values()) <= TOKEN_BOUND
