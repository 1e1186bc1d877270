"""
Builders' tools for knowledge (issue #25): `@memory know` (add, list, edit, forget, load),
`@memory why` showing the knowledge a line brings and what it withholds, the Django admin's
save through the write path, and the inspector's pages.
"""

import json
from pathlib import Path

from django.conf import settings
from django.contrib.admin.sites import site
from django.test import RequestFactory

from omniira_evennia.admin_commands import CmdMemory
from omniira_evennia.builder.why import why_text
from omniira_evennia.models import Knowledge
from tests.support.inspector import InspectorTestBase


class TestMemoryKnow(InspectorTestBase):
    def test_add_list_edit_forget(self):
        out = self.call(
            CmdMemory(),
            "/category=trade/key=cider/importance=7 know add Maren = Cider, two copper.",
        )
        assert "Maren now knows:" in out and "[trade, imp 7, npc Maren] cider: Cider" in out
        self.call(CmdMemory(), "/category=event/expires=3gd know add world = A fair is on.")
        self.call(
            CmdMemory(),
            "/secret/if=trust>=0.8/topics=loose_board,smuggled know add Maren = Silver "
            "under the board. => Nothing there, {speaker}.",
        )
        self.call(CmdMemory(), "/key=tar know add here = The room smells of tar.")
        purse = Knowledge.objects.get(guard="secret")
        assert purse.topics == ["loose board", "smuggled"] and purse.condition == "trust>=0.8"
        assert purse.reply == "Nothing there, {speaker}."
        listed = self.call(CmdMemory(), "know list Maren")
        assert "What Maren knows (4):" in listed
        assert "secret (if trust>=0.8)" in listed and "says instead: Nothing there" in listed
        assert "expires" in listed and "room Room" in listed
        out = self.call(CmdMemory(), "/importance=9 know edit Maren = cider : Cider, three copper.")
        cider = Knowledge.objects.get(key="cider")
        assert (cider.text, cider.importance, cider.category) == (
            "Cider, three copper.",
            9,
            "trade",
        )
        assert "knows (edited)" in out
        assert "Nothing is known in world" not in self.call(CmdMemory(), "know list world")
        assert "Forgot 1 fact(s) of Maren." in self.call(CmdMemory(), "know forget Maren = cider")
        assert "Nothing forgotten." in self.call(CmdMemory(), "know forget Maren", inputs=["n"])
        assert "Forgot 1 fact(s)" in self.call(CmdMemory(), "know forget Maren", inputs=["y"])

    def test_bad_input_says_what_is_wrong(self):
        assert "Usage:\n  @memory know list" in self.call(CmdMemory(), "know")
        assert "Category must be one of" in self.call(
            CmdMemory(), "/category=gossip know add Maren = x"
        )
        assert "cannot read" in self.call(CmdMemory(), "/secret/if=trust_high know add Maren = x")
        assert "Unknown switch(es): colour" in self.call(CmdMemory(), "/colour know add Maren = x")
        assert "No NPC called 'Nobody'" in self.call(CmdMemory(), "know add Nobody = x")
        assert "has no fact with the key 'none'" in self.call(
            CmdMemory(), "know edit Maren = none : x"
        )
        assert "inside the game folder" in self.call(CmdMemory(), "know load /etc/lore.json")
        assert not Knowledge.objects.exists()

    def test_load_a_file_of_the_game_folder(self):
        path = Path(settings.GAME_DIR) / "world" / "test_lore.json"
        path.write_text(json.dumps([{"key": "well", "text": "The well is deep."}]))
        self.addCleanup(path.unlink)
        out = self.call(CmdMemory(), "know load world/test_lore.json")
        assert "Knowledge from test_lore.json: 1 added, 0 updated" in out
        assert Knowledge.objects.get(key="well").loaded_from == "test_lore.json"

    def test_why_shows_the_knowledge_and_what_is_withheld(self):
        self.maren.memory.know("A mug of cider costs two copper.", key="cider", category="trade")
        self.maren.memory.know(
            "Silver under the board.", key="purse", secret=True, topics=["loose board"]
        )
        self.maren.memory.know("Tomas", key="tomas", wont_discuss=True, topics=["Tomas"])
        text = why_text(self.maren, "What does the cider cost?", self.char1)
        assert "What it knows, in the prompt (1 facts, best first):" in text
        assert "[trade] A mug of cider costs two copper." in text and "category #" in text
        assert "withheld" in text and "purse (secret): no condition: never told" in text
        assert "Silver under the board." not in text.split("withheld")[0].split("What it")[1]
        text = why_text(self.maren, "Who was Tomas?", self.char1)
        assert "meets the guarded topic wont_discuss 'tomas', by the word 'tomas'" in text
        text = why_text(self.maren, "The cider costs ten gold.", self.char1)
        assert "Against what it knows: 'The cider costs ten gold' (money" in text
        assert "Nothing it knows answers 'templ'" in why_text(
            self.maren, "Is there a temple?", self.char1
        )

    def test_the_admin_saves_through_the_write_path(self):
        model_admin = site._registry[Knowledge]
        row = Knowledge(key="Bad Key", text="Cider |rtwo|n copper.", scope="world", topics=[])
        request = RequestFactory().post("/")
        model_admin.save_model(request, row, None, False)
        saved = Knowledge.objects.get()
        assert saved.key == "bad_key" and saved.text == "Cider two copper."
        assert saved.embedding is not None and saved.scope_token == "w0"

    def test_the_inspector_shows_what_npcs_know(self):
        self.maren.memory.know("A mug of cider costs two copper.", key="cider", category="trade")
        self.maren.memory.know("Silver.", key="purse", secret=True, condition="trust >= 0.8")
        html = self.get("/omniira/knowledge/")
        assert "A mug of cider costs two copper." in html and "if trust &gt;= 0.8" in html
        html = self.get(f"/omniira/knowledge/?npc={self.maren.id}&guard=secret")
        assert "Silver." in html and "cider" not in html.split('id="knowledge-table"')[1]
        html = self.get(f"/omniira/npc/{self.maren.id}/")
        assert "What Maren knows" in html and "A mug of cider costs two copper." in html
        self.maren.memory.remember(self.char1, "Ada likes cider.", key="likes")
        html = self.get(f"/omniira/npc/{self.maren.id}/why/?q=cider+price%3F&about={self.char1.id}")
        assert 'id="why-knowledge"' in html and "A mug of cider costs two copper." in html
        assert self.client_for(self.player).get("/omniira/knowledge/").status_code == 403
