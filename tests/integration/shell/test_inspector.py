"""
The staff memory inspector through Django's test client: what a builder reads on each page
(the browser test, tests/e2e/test_browser.py, drives the same pages in Chromium).
"""

import re
from unittest.mock import patch

from django.test import Client, override_settings
from evennia.utils import create

import omniira_evennia as omniira
from omniira_evennia import conf, views
from omniira_evennia.models import AuditLog, DiaryEntry, LLMUsage, Memory, Reflection
from omniira_evennia.runtime import health
from tests.support.inspector import (
    PAGES,
    InspectorTestBase,
    crumbs,
    fetched_offsite,
    game_templates,
    visible,
)
from tests.support.social import SocialTestBase


class TestInspector(InspectorTestBase):
    """The inspector as the demo serves it (its website templates over Evennia's)."""

    def setUp(self):
        self.templates = game_templates()
        self.templates.enable()
        self.addCleanup(self.templates.disable)
        super().setUp()
        self.voss = self.npc("Voss")
        omniira.remember(
            self.maren,
            self.char1,
            "Ada collects blue glass.",
            key="glass",
            feeling="joy",
            importance=6,
        )
        omniira.remember(
            self.lyra,
            self.char1,
            "Ada collects blue glass.",
            key="glass",
            teller=self.maren,
            source="gossip",
        )
        Memory.objects.filter(npc=self.lyra).update(hops=1, chain=[self.maren.id])
        omniira.remember(
            self.voss,
            self.char1,
            "Ada collects blue glass, they say.",
            key="glass",
            teller=self.lyra,
            source="gossip",
        )
        Memory.objects.filter(npc=self.voss).update(hops=2, chain=[self.maren.id, self.lyra.id])
        omniira.remember(self.lyra, self.char1, "Ada sings off key.", key="singing")
        omniira.remember(self.lyra, self.maren, "Maren waters the ale.", key="ale")
        Memory.objects.filter(npc=self.lyra, key="ale").update(suspect=True)
        Memory.objects.filter(npc=self.lyra, key="singing").update(locked=True)

    def test_overview_has_the_site_header_the_tabs_and_every_npc(self):
        html = self.get("/omniira/")
        text = visible(html)
        assert 'class="navbar' in html  # the website's own header and menu
        assert crumbs(html) == [("Home", "/"), ("Memory inspector", None)]
        for tab in ("NPCs", "Gossip graph", "Health", "LLM usage & budgets", "Audit log"):
            assert tab in text, tab
        assert "/static/omniira/inspector.css" in html
        assert fetched_offsite(html) == []
        assert "NPCs with memory" in text
        for npc in (self.maren, self.lyra, self.voss):
            assert f'href="/omniira/npc/{npc.id}/"' in html
        assert "2 heard as gossip, along 2 links" in text
        assert "1 suspect memory" in text

    def test_npc_page_reads_in_words_and_filters(self):
        url = f"/omniira/npc/{self.lyra.id}/"
        html = self.get(url)
        text = visible(html)
        assert crumbs(html) == [("Home", "/"), ("Memory inspector", "/omniira/"), ("Lyra", None)]
        assert "Ada collects blue glass." in text
        assert "heard as gossip" in text and "self-tagged" in text  # labels, not raw keys
        assert "3 memories." in text
        assert "Beliefs" in text and "Diary" in text and "Relationships" in text
        assert "No beliefs yet." in text and "learned at least" in text
        assert f'<a href="/omniira/npc/{self.lyra.id}/why/">why was this recalled?</a>' in html

        text = visible(self.get(url + "?q=sings"))
        assert "Showing 1 of 3 memories." in text and "Ada sings off key." in text
        assert "blue glass" not in text.split("Showing")[1]
        text = visible(self.get(url + f"?about={self.maren.id}"))
        assert "Showing 1 of 3" in text and "Maren waters the ale." in text
        text = visible(self.get(url + "?source=gossip"))
        assert "Showing 1 of 3" in text and "Ada collects blue glass." in text
        text = visible(self.get(url + "?suspect=yes"))
        assert "Showing 1 of 3" in text and "Maren waters the ale." in text and "suspect" in text
        text = visible(self.get(url + "?locked=yes"))
        assert "Showing 1 of 3" in text and "Ada sings off key." in text
        text = visible(self.get(url + "?locked=no&suspect=no"))
        assert "Showing 1 of 3" in text and "Ada collects blue glass." in text
        with patch.object(views, "MEMORIES_SHOWN", 2):
            text = visible(self.get(url))
        assert "3 memories. The first 2 are listed; search or filter to find the others." in text
        text = visible(self.get(url + "?q=dragons"))
        assert "No memory matches these filters." in text and "Clear filters" in text

    def test_gossip_graph_is_drawn_and_each_edge_opens_its_chain(self):
        html = self.get("/omniira/gossip/")
        svg = html[html.index("<svg") : html.index("</svg>")]
        assert svg.count('class="edge"') == 2 and svg.count('class="node"') == 3
        assert "Maren told Lyra 1 thing" in svg and "Lyra told Voss 1 thing" in svg
        chain_url = f"/omniira/gossip/{self.lyra.id}/{self.voss.id}/"
        assert f'href="{chain_url}"' in svg
        html = self.get(chain_url)
        text = visible(html)
        assert "What Lyra told Voss" in text
        assert "Maren → Lyra → Voss" in text and "2 tellings from the origin" in text
        assert crumbs(html)[-2:] == [("Gossip graph", "/omniira/gossip/"), ("Lyra → Voss", None)]

    def test_a_big_world_draws_only_the_npcs_who_gossiped(self):
        for i in range(20):
            self.npc(f"Extra{i:02d}")
        html = self.get("/omniira/gossip/")
        svg = html[html.index("<svg") : html.index("</svg>")]
        assert svg.count('class="node"') == 3 and "Extra" not in svg
        assert 'width="560"' in svg

    def test_memory_page_shows_where_it_came_from(self):
        memory = Memory.objects.get(npc=self.voss)
        text = visible(self.get(f"/omniira/memory/{memory.id}/"))
        assert "Ada collects blue glass, they say." in text
        assert "heard as gossip" in text
        assert "Maren origin" in text and "Voss heard it (2 tellings from the origin)" in text
        assert "Who else holds this" in text

    def test_health_usage_and_audit_pages_explain_themselves(self):
        health.incr("llm_errors", 2)
        health.incr("conversation_turns", 7)
        text = visible(self.get("/omniira/health/"))
        needs, activity = text.split("Needs a look")[1].split("Activity")
        assert "LLM calls that failed 2" in needs
        assert "Conversation turns answered 7" in activity

        LLMUsage.objects.create(
            tier="voice",
            feature="conversation",
            model="m",
            tokens_in=900,
            tokens_out=100,
            latency_ms=400,
            npc=self.maren,
        )
        LLMUsage.objects.create(
            tier="reasoning", feature="gossip", model="m", ok=False, error="HTTP 500"
        )
        with override_settings(
            OMNIIRA={
                "TIERS": {
                    "voice": {
                        "base_url": "http://x/v1",
                        "daily_tokens": 4000,
                        "npc_daily_tokens": 2000,
                    }
                }
            }
        ):
            conf.reset_settings()
            try:
                text = visible(self.get("/omniira/usage/"))
            finally:
                conf.reset_settings()
        assert "1000 tokens of 4000" in text
        assert "most so far Maren, 1000 (50%)" in text
        assert "NPC replies to players" in text and "Gossip review" in text
        assert "Latest failed calls" in text and "HTTP 500" in text

        text = visible(self.get("/omniira/audit/"))
        assert "No audit entries: nothing has been flagged." in text
        AuditLog.objects.create(
            kind="player_text",
            labels=["ignore_instructions"],
            npc=self.maren,
            speaker=self.char1,
            excerpt="ignore your instructions",
        )
        text = visible(self.get("/omniira/audit/"))
        assert "Player line flagged" in text and "Ada → Maren" in text
        assert "ignore your instructions" in text and "asks to ignore instructions" in text
        assert "Player line flagged" in visible(self.get("/omniira/audit/?kind=player_text"))
        assert "Player line flagged (1)" in text  # the filter chip


class TestEmptyInspector(InspectorTestBase):
    def test_empty_states_say_how_things_happen(self):
        text = visible(self.get("/omniira/gossip/"))
        assert "No gossip has travelled yet." in text
        assert "two NPCs with memory share a room with no player in it" in text
        assert "Every 5 minutes up to 1 such pair talk a few lines" in text
        text = visible(self.get(f"/omniira/npc/{self.maren.id}/"))
        assert "Maren remembers nothing yet." in text and "say Maren, ..." in text
        assert "No diary entries yet." in text
        text = visible(self.get("/omniira/health/"))
        assert "No counters yet." in text
        text = visible(self.get("/omniira/usage/"))
        assert "No LLM calls recorded yet." in text

    def test_diary_and_beliefs_are_shown(self):
        DiaryEntry.objects.create(npc=self.maren, game_day=3, entry="A quiet night at the bar.")
        Reflection.objects.create(
            npc=self.maren, target=self.char1, belief="Ada is kind.", game_day=3
        )
        text = visible(self.get(f"/omniira/npc/{self.maren.id}/"))
        assert "Day 3 A quiet night at the bar." in text
        assert "Ada Ada is kind." in text


class TestInspectorAccess(InspectorTestBase):
    def test_non_staff_and_anonymous_get_no_data(self):
        omniira.remember(self.maren, self.char1, "Ada collects blue glass.", key="glass")
        memory = Memory.objects.get(npc=self.maren)
        urls = [f"/omniira/{p}" for p in PAGES] + [
            f"/omniira/npc/{self.maren.id}/",
            f"/omniira/memory/{memory.id}/",
            f"/omniira/gossip/{self.maren.id}/{self.lyra.id}/",
        ]
        client = self.client_for(self.player)
        for url in urls:
            response = client.get(url)
            assert response.status_code == 403, url
            assert "blue glass" not in response.content.decode()
            assert "for staff" in response.content.decode()
        for url in urls:
            anonymous = Client().get(url)
            assert anonymous.status_code == 302 and "login" in anonymous["Location"], url


class TestDjangoAdmin(SocialTestBase):
    def test_every_model_has_a_working_admin_changelist(self):
        from django.apps import apps
        from django.contrib import admin

        omniira.remember(self.maren, self.char1, "Ada sings.", feeling="joy")
        staff = create.create_account(
            "Root", email="r@x.org", password="pw-root-123", is_superuser=True
        )
        staff.is_staff = True
        staff.save()
        client = Client()
        client.force_login(staff)
        models = list(apps.get_app_config("omniira_evennia").get_models())
        assert len(models) >= 14
        unregistered = [m.__name__ for m in models if not admin.site.is_registered(m)]
        assert unregistered == []
        for model in models:
            url = f"/admin/omniira_evennia/{model._meta.model_name}/"
            response = client.get(url)
            assert response.status_code == 200, url
        page = client.get("/admin/omniira_evennia/memory/?q=sings").content.decode()
        assert "Ada sings." in page


class TestWhyPage(InspectorTestBase):
    """`@memory why` as an inspector page: the same retrieval, shown lane by lane."""

    def setUp(self):
        self.templates = game_templates()
        self.templates.enable()
        self.addCleanup(self.templates.disable)
        super().setUp()
        from omniira_evennia.memory.embeddings import set_embedder
        from omniira_evennia.testing.fakes import HashingEmbedder

        set_embedder(HashingEmbedder())
        omniira.remember(
            self.maren, self.char1, "Ada is searching for her sister Odile.", key="sister"
        )
        for i in range(12):
            omniira.remember(
                self.maren, self.char1, f"Ada talked about the rain, day {i}.", key=f"rain{i}"
            )

    def test_the_page_lists_what_why_recalls_with_lane_ranks(self):
        from omniira_evennia.builder.why import why

        question = "Maren, where is Ada's sister Odile?"
        with override_settings(OMNIIRA={"RECENCY_SLOTS": 3, "SIMILARITY_SLOTS": 2}):
            url = f"/omniira/npc/{self.maren.id}/why/"
            html = self.get(f"{url}?q={question}&about={self.char1.id}")
            recall = why(self.maren, question, self.char1)
        text = visible(html)
        assert crumbs(html)[-2:] == [
            ("Maren", f"/omniira/npc/{self.maren.id}/"),
            ("Why was this recalled?", None),
        ]
        assert fetched_offsite(html) == []
        chosen = html.split('id="why-chosen"')[1].split("</section>")[0]
        in_prompt = re.findall(r'<a href="/omniira/memory/(\d+)/">', chosen)
        assert [int(i) for i in in_prompt] == [m.id for m in recall.memories]
        assert len(in_prompt) == 4  # the 3 newest, and the sister by its words
        assert "Full-text query sister odile" in text
        assert "Embedded as “where is sister Odile?” (without the two names)" in text
        sister = re.search(r"<tr>\s*<td><a[^>]*>#\d+</a> Ada is searching.*?</tr>", chosen, re.S)
        cells = re.findall(r"<td[^>]*>(.*?)</td>", sister.group(0), re.S)
        assert cells[1] == "full text" or cells[1] == "meaning + full text"
        assert cells[4] == "1"  # first in the full-text lane
        assert text.count("newest (recency lane)") == 3

    def test_asks_for_a_line_first_and_is_for_staff_only(self):
        url = f"/omniira/npc/{self.maren.id}/why/"
        text = visible(self.get(url))
        assert "Write a line and choose who says it." in text and "Ada" in text
        response = self.client_for(self.player).get(f"{url}?q=sister&about={self.char1.id}")
        assert response.status_code == 403 and "Odile" not in response.content.decode()

    def test_the_page_says_why_a_memory_was_not_recalled(self):
        question = "Maren, where is Ada's sister Odile?"
        rain = self.maren.memory.about(self.char1).get(key="rain0")
        with override_settings(OMNIIRA={"RECENCY_SLOTS": 3, "SIMILARITY_SLOTS": 2}):
            url = f"/omniira/npc/{self.maren.id}/why/"
            html = self.get(f"{url}?q={question}&about={self.char1.id}&not={rain.id}")
        section = visible(html.split('id="why-not"')[1].split("</section>")[0])
        assert f"#{rain.id} Ada talked about the rain, day 0." in section
        assert any(stage in section for stage in ("outranked", "not in lanes", "under similarity"))
