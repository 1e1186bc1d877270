"""The signals game code can connect to, sent once the write has committed."""

from evennia.utils import create
from evennia.utils.test_resources import EvenniaTest

from omniira_evennia import signals
from omniira_evennia.conversation.tags import CommitmentTag
from omniira_evennia.life.decisions import DONE, PlanOutcome
from omniira_evennia.life.service import close_plan
from omniira_evennia.memory import notes_store


class TestSignals(EvenniaTest):
    def setUp(self):
        super().setUp()
        self.maren = create.create_object(
            "omniira_evennia.typeclasses.MemoryNPC", key="Maren", location=self.room1
        )
        self.heard = []

    def receiver(self, sender, **kwargs):
        self.heard.append(kwargs)

    def test_memory_written_is_sent_with_the_row(self):
        signals.memory_written.connect(self.receiver)
        try:
            with self.captureOnCommitCallbacks(execute=True):
                memory = self.maren.memory.remember(self.char1, "Ada mends clocks.", embed=False)
                self.maren.memory.remember(self.char1, "Ada mends clocks.", embed=False)
        finally:
            signals.memory_written.disconnect(self.receiver)
        assert [(h["memory"].id, h["created"]) for h in self.heard] == [
            (memory.id, True),
            (memory.id, False),
        ]

    def test_plan_closed_is_sent_once(self):
        tag = CommitmentTag(
            to="Ada", to_kind="player", action="travel_to", target="market", summary="Market."
        )
        plan = notes_store.add_plan(self.maren, tag, to_obj=self.char1, game_day=1)
        signals.plan_closed.connect(self.receiver)
        try:
            with self.captureOnCommitCallbacks(execute=True):
                assert close_plan(self.maren, plan, PlanOutcome(plan.id, DONE, "we got there"))
                assert not close_plan(self.maren, plan, PlanOutcome(plan.id, DONE, "again"))
        finally:
            signals.plan_closed.disconnect(self.receiver)
        assert [(h["plan"].id, h["kept"], h["reason"]) for h in self.heard] == [
            (plan.id, True, "we got there")
        ]
