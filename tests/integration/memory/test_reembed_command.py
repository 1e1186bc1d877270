"""A game with vectors from the torch embedder is told to re-embed, and `@memory reembed` does."""

from evennia.utils import create
from evennia.utils.test_resources import EvenniaCommandTest

from omniira_evennia import checks
from omniira_evennia.admin_commands import CmdMemory
from omniira_evennia.memory import embeddings, reembed
from omniira_evennia.memory.embeddings import embedder_name, set_embedder
from omniira_evennia.models import Memory
from omniira_evennia.testing.fakes import HashingEmbedder


class TorchEra(HashingEmbedder):
    name = embeddings.ST_MINILM_NAME  # what 0.1's sentence-transformers embedder recorded


class TestReembedCommand(EvenniaCommandTest):
    def setUp(self):
        super().setUp()
        self.maren = create.create_object(
            "omniira_evennia.typeclasses.MemoryNPC", key="Maren", location=self.room1
        )
        set_embedder(TorchEra())
        for i in range(5):
            self.maren.memory.remember(self.char1, f"Fact {i} about the river.", key=f"f{i}")
        set_embedder(HashingEmbedder())  # the game now runs another embedder

    def test_the_check_says_so_and_the_command_marks_every_row(self):
        assert Memory.objects.exclude(embedder=embedder_name()).count() == 5
        assert "omniira.W006" in [m.id for m in checks.database_problems()]
        assert "Still to re-embed: memories 5" in self.call(CmdMemory(), "reembed status")
        self.call(CmdMemory(), "reembed")
        assert set(Memory.objects.values_list("embedder", flat=True)) == {embedder_name()}
        assert "omniira.W006" not in [m.id for m in checks.database_problems()]
        assert "memories 0" in self.call(CmdMemory(), "reembed status")
        assert "No re-embedding is running." in self.call(CmdMemory(), "reembed stop")
        assert "Usage" in self.call(CmdMemory(), "reembed sideways")
        assert reembed.current_job() is not None and not reembed.current_job().running
