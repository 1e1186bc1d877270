"""
The demo's website pages (its templates over Evennia's, as `make demo` serves them): the home
page says what the demo is and how to talk to an NPC, and lists no players; the admin front
page links the NPC memory tables; the web client fetches nothing from another host.
"""

from django.test import Client
from evennia.utils import create

from tests.support.inspector import (
    InspectorTestBase,
    fetched_offsite,
    game_templates,
    visible,
)


class TestDemoWebsite(InspectorTestBase):
    def setUp(self):
        self.templates = game_templates()
        self.templates.enable()
        self.addCleanup(self.templates.disable)
        super().setUp()
        self.other = create.create_account("Zebedee", email="z@x.org", password="pw-zeb-12345")

    def test_home_page_explains_the_demo_and_names_no_players(self):
        html = Client().get("/").content.decode()
        text = visible(html)
        assert "NPCs who remember you" in text
        for word in ("remember", "gossip", "reflect"):
            assert word in text, word
        # The verbs are the real commands (omniira_evennia/commands.py).
        assert "say Maren, what do you pour here?" in text
        assert "talk Lyra = Heard any good stories lately?" in text
        assert "recall Maren" in text and "tavern" in text
        assert 'href="/webclient/"' in html and "Play in the browser" in text
        assert "Zebedee" not in text and "Plain" not in text  # no accounts, no recent players
        assert "Welcome to Evennia" not in text
        assert "memory inspector" not in text.lower()  # staff links only for staff
        assert 'href="/characters/"' not in html  # the menu's list of every character is gone
        assert fetched_offsite(html) == []

    def test_staff_see_the_inspector_linked_from_home_and_menu(self):
        html = self.client_for(self.staff).get("/").content.decode()
        assert html.count('href="/omniira/"') == 2  # the menu and the builders' section
        assert "Open the memory inspector" in visible(html)
        player = visible(self.client_for(self.player).get("/").content.decode())
        assert "inspector" not in player.lower()

    def test_admin_front_page_links_the_omniira_tables(self):
        root = create.create_account(
            "Root", email="r@x.org", password="pw-root-123", is_superuser=True
        )
        root.is_staff = True
        root.save()
        client = self.client_for(root)
        html = client.get("/admin/").content.decode()
        text = visible(html)
        assert "Accounts" in text and "Objects" in text  # Evennia's own front page
        assert "NPC memory (omniira)" in text
        for table in ("memory", "reflection", "diaryentry", "relationship", "llmusage", "auditlog"):
            url = f"/admin/omniira_evennia/{table}/"
            assert f'href="{url}"' in html, table
            assert client.get(url).status_code == 200
        assert 'href="/admin/omniira_evennia/"' in html and 'href="/omniira/"' in html

    def test_web_client_page_fetches_nothing_from_another_host(self):
        html = self.client_for(self.player).get("/webclient/").content.decode()
        assert fetched_offsite(html) == []
        assert "webclient/js/plugins/font_local.js" in html
        assert "plugins/font.js" not in html
