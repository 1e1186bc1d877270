"""The shared set-up of the inspector's tests: a staff account, pages read as a reader sees them."""

import os
import re
from html.parser import HTMLParser

from django.test import Client, override_settings
from evennia.utils import create

from omniira_evennia.runtime import health
from tests.support.social import SocialTestBase

PAGES = ("", "gossip/", "health/", "usage/", "audit/")


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        self.skip += tag in ("script", "style", "title")

    def handle_endtag(self, tag):
        self.skip -= tag in ("script", "style", "title") and self.skip > 0

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def crumbs(html: str) -> list[tuple[str, str | None]]:
    """The path back, as (label, link or None) from the inspector's breadcrumbs."""
    nav = html[html.index('class="omniira-crumbs"') :]
    nav = nav[: nav.index("</nav>")]
    return [
        (visible(item), (re.search(r'href="([^"]+)"', item) or [None, None])[1])
        for item in re.findall(r"<li>(.*?)</li>", nav, re.S)
    ]


def fetched_offsite(html: str) -> list[str]:
    """Scripts, stylesheets and images the page would fetch from another host."""
    html = re.sub(r"<!--.*?-->", "", html, flags=re.S)
    urls = re.findall(r"""<(?:script|img|link|iframe)\b[^>]*?(?:src|href)=["']?([^"' >]+)""", html)
    return [u for u in urls if re.match(r"(https?:)?//", u)]


def game_templates():
    """The demo game's templates first, as `make demo` serves them (the test settings' DIRS
    point at Evennia's own game template)."""
    from django.conf import settings

    engine = dict(settings.TEMPLATES[0])
    web = os.path.join(settings.GAME_DIR, "web", "templates")
    engine["DIRS"] = [web, os.path.join(web, "website"), os.path.join(web, "webclient")] + list(
        engine["DIRS"]
    )
    return override_settings(TEMPLATES=[engine])


def visible(html: str) -> str:
    """The page's text as a reader sees it: no tags, scripts or styles, spaces collapsed."""
    parser = _Text()
    parser.feed(html)
    return re.sub(r"\s+", " ", " ".join(parser.parts)).strip()


class InspectorTestBase(SocialTestBase):
    def setUp(self):
        super().setUp()
        health.reset()
        self.staff = create.create_account(
            "Staffer", email="s@x.org", password="pw-staff-123", permissions=["Admin"]
        )
        self.staff.is_staff = True
        self.staff.save()
        self.player = create.create_account("Plain", email="p@x.org", password="pw-plain-123")

    def tearDown(self):
        health.reset()
        super().tearDown()

    def client_for(self, account):
        client = Client()
        client.force_login(account)
        return client

    def get(self, url, account=None):
        response = self.client_for(account or self.staff).get(url)
        assert response.status_code == 200, (url, response.status_code)
        return response.content.decode()
