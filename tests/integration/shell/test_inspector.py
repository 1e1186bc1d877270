"""The staff memory inspector (Django test client; the browser test is separate)."""

from django.test import Client
from evennia.utils import create

import omniira_evennia as omniira
from omniira_evennia.models import Memory
from tests.integration.social.test_social import SocialTestBase


class TestInspector(SocialTestBase):
    def setUp(self):
        super().setUp()
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
            provenance=self.maren,
            source="gossip",
        )
        Memory.objects.filter(npc=self.lyra).update(hops=1, chain=[self.maren.id])
        self.staff = create.create_account(
            "Staffer", email="s@x.org", password="pw-staff-123", permissions=["Admin"]
        )
        self.staff.is_staff = True
        self.staff.save()
        self.player = create.create_account("Plain", email="p@x.org", password="pw-plain-123")

    def client_for(self, account):
        client = Client()
        client.force_login(account)
        return client

    def test_staff_sees_npcs_memories_and_the_gossip_graph(self):
        client = self.client_for(self.staff)
        page = client.get("/omniira/").content.decode()
        assert "Maren" in page and "Lyra" in page
        page = client.get(f"/omniira/npc/{self.lyra.id}/").content.decode()
        assert "Ada collects blue glass." in page and "gossip" in page
        assert "<td>Maren</td>" in page  # heard from
        assert "Relationships" in page and "Diary" in page and "Beliefs" in page
        graph = client.get("/omniira/gossip/").content.decode()
        assert "<svg" in graph and "Maren told Lyra 1 thing(s)" in graph

    def test_non_staff_and_anonymous_get_no_data(self):
        client = self.client_for(self.player)
        for url in ("/omniira/", f"/omniira/npc/{self.maren.id}/", "/omniira/gossip/"):
            response = client.get(url)
            assert response.status_code == 403
            assert "blue glass" not in response.content.decode()
        anonymous = Client().get("/omniira/")
        assert anonymous.status_code == 302 and "login" in anonymous["Location"]


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
        assert len(models) == 14 and all(admin.site.is_registered(m) for m in models)
        for model in models:
            url = f"/admin/omniira_evennia/{model._meta.model_name}/"
            response = client.get(url)
            assert response.status_code == 200, url
        page = client.get("/admin/omniira_evennia/memory/?q=sings").content.decode()
        assert "Ada sings." in page
