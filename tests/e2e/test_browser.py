"""
Browser tests in headless Chromium (Debian's package; `make test` installs it): the offline web
client talks to Maren, staff see her memory in the inspector, a plain player is refused.
"""

import os
import re
import shutil
import subprocess
import sys

import pytest

from omniira_evennia.testing.fakes import ScriptedLLM
from tests.e2e.test_e2e_demo import ROOT, run_demo
from tests.telnet_client import TelnetPlayer

pytestmark = [pytest.mark.e2e, pytest.mark.browser]
PORT_BASE = 4160
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
REPLY = (
    'Welcome, Bran! [[REMEMBER:{"key":"web_visitor","value":"Bran came in through the '
    'web client.","importance":5,"feeling":"joy"}]]'
)


@pytest.fixture
def demo(tmp_path):
    if not os.path.exists(CHROMIUM):
        pytest.fail("chromium is not installed: run `make test`, which installs it")
    llm = ScriptedLLM([REPLY]).start()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OMNIIRA_")}
    env.update(
        OMNIIRA_DEMO_DIR=str(tmp_path / "demo"),
        OMNIIRA_DEMO_PORT_BASE=str(PORT_BASE),
        OMNIIRA_LLM_BASE_URL=llm.base_url,
        EVENNIA_SUPERUSER_USERNAME="admin",
        EVENNIA_SUPERUSER_PASSWORD="admin-pass-123",
    )
    env.pop("DJANGO_SETTINGS_MODULE", None)
    try:
        run_demo("start", env)
        player = TelnetPlayer(PORT_BASE)
        player.create_and_login("Bran", "pw-bran-12345")
        player.close()
        yield f"http://127.0.0.1:{PORT_BASE + 1}"
    finally:
        subprocess.run(
            [sys.executable, str(ROOT / "tools" / "demo.py"), "stop"],
            env=env,
            capture_output=True,
            timeout=120,
        )
        llm.stop()


def browser():
    from playwright.sync_api import sync_playwright

    manager = sync_playwright().start()
    chromium = manager.chromium.launch(
        executable_path=CHROMIUM,
        headless=True,
        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    )
    return manager, chromium


def login_website(page, base, user, password):
    page.goto(f"{base}/auth/login/")
    page.fill("#id_username", user)
    page.fill("#id_password", password)
    page.click("form [type=submit]")
    page.wait_for_load_state()


def test_webclient_talks_to_maren_and_inspector_is_staff_only(demo):
    base = demo
    manager, chromium = browser()
    offsite = []
    try:
        page = chromium.new_page()
        page.on(
            "request",
            lambda r: (
                offsite.append(r.url)
                if not r.url.startswith(("http://127.0.0.1", "ws://127.0.0.1", "data:"))
                else None
            ),
        )
        page.goto(f"{base}/webclient/")
        field = page.locator("textarea.inputfield, #inputfield").first
        field.wait_for(timeout=20000)
        page.wait_for_function("document.body.innerText.includes('connect')", timeout=20000)
        field.click()
        field.type("connect Bran pw-bran-12345")
        field.press("Enter")
        page.wait_for_function("document.body.innerText.includes('Lantern')", timeout=20000)
        field.click()
        field.type("say Maren, hello from the browser!")
        field.press("Enter")
        page.wait_for_function("document.body.innerText.includes('Maren says')", timeout=30000)
        text = page.inner_text("body")
        assert "Welcome, Bran!" in text and "[[" not in text
        # Every script and stylesheet is served locally. Evennia's font plugin still offers
        # optional Google fonts; offline the browser falls back to a local monospace font.
        assert [url for url in offsite if "fonts.googleapis.com" not in url] == [], offsite

        staff = chromium.new_page()
        login_website(staff, base, "admin", "admin-pass-123")
        staff.goto(f"{base}/omniira/")
        staff.click("text=Maren")
        staff.wait_for_load_state()
        assert "Bran came in through the web client." in staff.inner_text("body")
        staff.goto(f"{base}/omniira/gossip/")
        assert "Who heard what from whom" in staff.inner_text("body")

        plain = chromium.new_context().new_page()  # its own cookies: a separate login
        login_website(plain, base, "Bran", "pw-bran-12345")
        response = plain.goto(f"{base}/omniira/")
        assert response.status == 403
        assert "Bran came in" not in plain.inner_text("body")
        assert re.search(r"for staff", plain.inner_text("body"))
    finally:
        chromium.close()
        manager.stop()
