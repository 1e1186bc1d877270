"""
The builder's path, end to end, on whichever Evennia runs this suite (5.0 on Python 3.11, 6.1
on Python 3.12: `make test` runs both):

1. a wheel is built from this checkout (`pip wheel`, as `pip install <checkout>` builds one);
2. the installed Evennia's own `evennia --init` makes a brand-new game;
3. the Installation steps of omniira_evennia/README.md are applied to it as the README writes
   them (tools/readme_install.py reads the blocks from the README itself, so the docs and
   this test cannot drift): settings, typeclasses/npcs.py, the cmdset, at_server_start, the
   inspector's URL; the LLM variables are the ones the README exports; `evennia migrate` and
   `evennia reboot` are the README's commands;
4. a builder logs in by telnet and makes an NPC with the Usage section's commands;
5. a player talks to it against the scripted LLM run as a process: the reply is heard without
   its tag, the remembered value is in the next request's prompt, `@memory inspect` lists it.

The wheel is installed with `pip install --no-deps --target` into a folder put first on the
game's PYTHONPATH, not into the virtualenv: the game imports the wheel's files (checked in the
game), so a file missing from the wheel fails here, while the dependencies come from the
virtualenv under test (a fresh virtualenv per run would add minutes and test pip, not us; the
default install's dependencies are checked by tools/check_install.py).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.telnet_client import TelnetPlayer
from tools import readme_install

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
ADMIN = ("builder", "builder-pass-123")
REMEMBERED = "Ada collects blue glass bottles from the river."
REPLIES = [
    "Blue glass, is it? I'll keep an eye out for you, love. "
    f'[[REMEMBER:{{"key":"collects_glass","value":"{REMEMBERED}","importance":6,'
    '"feeling":"joy"}]]',
    "Aye, love, blue glass from the river. Not many bring me that.",
]


def free_port_base(count: int = 7, start: int = 4400, stop: int = 4900) -> int:
    """A port P with P..P+count-1 all free on 127.0.0.1 (Evennia's ports move together)."""
    for base in range(start + os.getpid() % 50 * 8, stop, count + 1):
        socks = []
        try:
            for port in range(base, base + count):
                sock = socket.socket()
                sock.bind(("127.0.0.1", port))
                socks.append(sock)
            return base
        except OSError:
            continue
        finally:
            for sock in socks:
                sock.close()
    raise RuntimeError("no free ports")


def port_open(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def run(args, cwd, env, timeout=300):
    result = subprocess.run(
        args,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode == 0, f"{args}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


class Game:
    """A game folder made by `evennia --init`, run with the environment `env`."""

    def __init__(self, folder: Path, env: dict[str, str]):
        self.dir, self.env = folder, env

    def evennia(self, *args: str, timeout: float = 300) -> str:
        return run([str(BIN / "evennia"), *args], cwd=self.dir, env=self.env, timeout=timeout)

    def log(self) -> str:
        log = self.dir / "server" / "logs" / "server.log"
        return log.read_text(errors="replace") if log.exists() else ""

    def wait_until(self, test, what: str, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while not test():
            if time.monotonic() > deadline:
                raise TimeoutError(f"{what}; server log:\n{self.log()[-3000:]}")
            time.sleep(0.5)


@pytest.fixture
def scripted_llm(tmp_path):
    script, requests = tmp_path / "replies.json", tmp_path / "requests.jsonl"
    script.write_text(json.dumps(REPLIES))
    process = subprocess.Popen(
        [sys.executable, "-m", "omniira_evennia.testing.fakes", "--port", "0"]
        + ["--script", str(script), "--log", str(requests)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    match = re.search(r"listening on (http://\S+)", line)
    assert match, f"the scripted LLM did not start: {line!r}"
    yield match.group(1), requests
    process.terminate()
    process.wait(timeout=10)


def read_requests(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_builder_follows_the_readme_into_a_new_game_and_an_npc_remembers(tmp_path, scripted_llm):
    base_url, requests_log = scripted_llm
    steps = readme_install.installation_steps()
    by_action = {}
    for step in steps:
        by_action.setdefault(step.action, []).append(step)
    # The README has the steps this test applies (a reworded step would be skipped silently).
    assert [s.path for s in by_action["create"]] == ["typeclasses/npcs.py"]
    assert {s.path for s in steps if s.path} == {
        "server/conf/settings.py",
        "typeclasses/npcs.py",
        "commands/default_cmdsets.py",
        "server/conf/at_server_startstop.py",
        "web/urls.py",
    }
    (install,) = by_action["install"]
    assert install.lines[0].startswith("pip install "), install.lines
    (environment,) = by_action["environment"]
    names = readme_install.environment_names(environment)
    assert names == ["OMNIIRA_LLM_BASE_URL", "OMNIIRA_LLM_MODEL", "OMNIIRA_LLM_API_KEY"], names
    (commands,) = by_action["run"]

    # 1. The wheel, from this checkout, installed where only the game looks.
    wheels, site = tmp_path / "wheels", tmp_path / "site"
    run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(wheels), "."],
        cwd=ROOT,
        env=dict(os.environ),
    )
    (wheel,) = wheels.glob("omniira_evennia-*.whl")
    run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site)]
        + [str(wheel)],
        cwd=tmp_path,
        env=dict(os.environ),
    )

    # 2. A brand-new game from the installed Evennia.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMNIIRA_", "DJANGO_"))}
    env.update(
        PATH=f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        # Evennia's launcher overwrites sys.path[1], the first PYTHONPATH entry, with its own
        # root, so the wheel's folder goes second, behind the game folder (on the path anyway).
        PYTHONPATH=os.pathsep.join([str(tmp_path / "game"), str(site)]),
        EVENNIA_SUPERUSER_USERNAME=ADMIN[0],
        EVENNIA_SUPERUSER_PASSWORD=ADMIN[1],
    )
    env.update(zip(names, [base_url, "scripted", "sk-test"]))
    run([str(BIN / "evennia"), "--init", "game"], cwd=tmp_path, env=env)
    game = Game(tmp_path / "game", env)

    # 3. The README's file steps, then this machine's own: loopback and free ports.
    readme_install.apply_file_steps(game.dir, steps)
    port = free_port_base()
    with open(game.dir / "server" / "conf" / "secret_settings.py", "a") as fh:
        fh.write(
            "\n# tests/e2e/test_builder_path.py: loopback only, free ports.\n"
            'TELNET_INTERFACES = ["127.0.0.1"]\n'
            'WEBSERVER_INTERFACES = ["127.0.0.1"]\n'
            'WEBSOCKET_CLIENT_INTERFACE = "127.0.0.1"\n'
            f"TELNET_PORTS = [{port}]\n"
            f"WEBSERVER_PORTS = [({port + 1}, {port + 5})]\n"
            f"WEBSOCKET_CLIENT_PORT = {port + 2}\n"
            f"AMP_PORT = {port + 6}\n"
        )

    try:
        for command in commands.lines:  # evennia migrate, evennia reboot
            game.evennia(*command.split()[1:])
        # A first start restarts the server once after the initial setup: wait for both.
        game.wait_until(lambda: port_open(port), "telnet never opened")
        game.wait_until(
            lambda: game.log().count("omniira: embedding model ready") >= 1
            and "Initial setup complete" in game.log()
            and game.log().split("Initial setup complete", 1)[1].count("embedding model ready"),
            "the server did not come back after its initial setup",
        )

        # 4. A builder makes the NPC with the README's Usage commands.
        builder = TelnetPlayer(port)
        login = builder.login(*ADMIN, room=r"Limbo")
        builder.send("py import omniira_evennia; me.msg('CONTRIB ' + omniira_evennia.__file__)")
        contrib = builder.read_until(r"CONTRIB \S+", timeout=15)
        assert f"CONTRIB {site}" in contrib, contrib  # the wheel's copy, not the checkout
        usage = readme_install.usage_commands()
        assert usage[0].startswith("create/drop Maren:typeclasses.npcs.NPC"), usage
        for command in usage:
            builder.send(command)
            builder.read_until(r"Created|Attribute Maren/|Maren", timeout=15)
        builder.drain(0.5)
        assert "omniira" not in (login + builder.buffer).lower()  # configured: no staff notice

        # 5. A player talks to Maren.
        ada = TelnetPlayer(port)
        ada.create_and_login("Ada", "pw-ada-12345", room=r"Limbo")
        ada.drain()
        ada.send("say Maren, I collect blue glass from the river.")
        heard = ada.read_until(r'Maren says, "[^"]*"', timeout=60)
        assert "I'll keep an eye out for you, love." in heard
        assert "[[" not in heard and "REMEMBER" not in heard
        ada.send("say Maren, do you remember what I collect?")
        ada.read_until(r'Maren says, "Aye, love, blue glass', timeout=60)

        asked = [
            r
            for r in read_requests(requests_log)
            if "what I collect" in json.dumps(r.get("messages", [])[-1:])
        ]
        assert asked, [r["messages"][-1] for r in read_requests(requests_log)]
        # Shown to the model in that request (with the line: the conversation's prompt is pinned).
        assert REMEMBERED in json.dumps(asked[0]["messages"])

        builder.drain(0.2)
        builder.send("@memory inspect Maren")
        listed = builder.read_until(r"collects_glass|[Nn]o memor", timeout=30)
        assert REMEMBERED in listed or "collects blue glass" in listed, listed

        # The optional inspector answers at its address (a redirect to log in, not a 404).
        web = http.client.HTTPConnection("127.0.0.1", port + 1, timeout=30)
        web.request("GET", "/omniira/")
        assert web.getresponse().status in (200, 302, 403)
        ada.close(), builder.close()
    finally:
        subprocess.run(
            [str(BIN / "evennia"), "stop"],
            cwd=game.dir,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=120,
        )
