"""The public Python API for game code."""

from evennia.utils import create
from evennia.utils.test_resources import EvenniaTest

import omniira_evennia as omniira
from omniira_evennia.memory.embeddings import set_embedder
from omniira_evennia.models import Memory
from omniira_evennia.testing.fakes import HashingEmbedder


class TestPublicApi(EvenniaTest):
    def setUp(self):
        super().setUp()
        set_embedder(HashingEmbedder())
        self.maren = create.create_object(
            "omniira_evennia.typeclasses.MemoryNPC", key="Maren", location=self.room1
        )

    def test_remember_recall_memories_about_forget(self):
        m = omniira.remember(
            self.maren,
            self.char1,
            "Char owes three silver for cider.",
            key="tab",
            importance=12,
            feeling="Dislike",
        )
        assert (m.importance, m.feeling, m.source) == (10, "", "admin")
        omniira.remember(self.maren, self.char1, "Char owes five silver now.", key="tab")
        assert Memory.objects.filter(key="tab").count() == 1  # upsert by key
        omniira.remember(self.maren, self.char2, "Char2 sings badly.")
        for i in range(10):
            omniira.remember(self.maren, self.char1, f"Chatter about weather {i}.")

        about = omniira.memories_about(self.maren, self.char1)
        assert about.count() == 11 and about.first().value == "Char owes five silver now."
        recalled = omniira.recall(self.maren, "how much silver does Char owe", self.char1)
        assert "Char owes five silver now." in [r.value for r in recalled]
        assert all(r.subject_id == self.char1.id for r in recalled)

        locked = Memory.objects.get(key="tab")
        locked.locked = True
        locked.save()
        assert (
            omniira.remember(self.maren, self.char1, "overwrite", key="tab", source="self") is None
        )
        assert omniira.forget(self.maren, self.char1) == 10  # the locked one stays
        assert list(omniira.memories_about(self.maren, self.char1)) == [locked]
        assert omniira.forget(self.maren, self.char1, include_locked=True) == 1
        assert omniira.recall(self.maren, "silver", self.char1) == []

    def test_remember_later_writes_the_memory_with_its_embedding(self):
        from omniira_evennia.memory.embeddings import from_blob

        got = []
        deferred = omniira.remember_later(self.maren, self.char1, "Char sang badly.", importance=7)
        deferred.addCallback(got.append)
        [memory] = got  # the inline runner of the tests has fired it already
        assert memory.importance == 7 and memory.value == "Char sang badly."
        stored = Memory.objects.get(id=memory.id)
        expected = HashingEmbedder().embed(["Char sang badly."])[0]
        assert (from_blob(stored.embedding) == expected).all()
