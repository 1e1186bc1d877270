"""
Set up and run the demo game non-interactively (`make demo`, `make demo-stop`).

    python tools/demo.py start   # create/refresh ./demo from game_template, migrate, start
    python tools/demo.py stop    # stop Evennia (and the local model server, if we started one)

The demo folder is git-ignored; its database survives `stop`/`start`, so NPCs keep their
memories across runs. Code files are refreshed from game_template/ on every start.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "game_template"
DEMO = Path(os.environ.get("OMNIIRA_DEMO_DIR", ROOT / "demo")).resolve()
BIN = Path(sys.executable).parent
CREDENTIALS = DEMO / "server" / ".admin_credentials"
PORT_BASE = int(os.environ.get("OMNIIRA_DEMO_PORT_BASE", "4000"))
TELNET_PORT, WEB_PORT = PORT_BASE, PORT_BASE + 1


def say(text: str) -> None:
    print(f"[demo] {text}", flush=True)


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def refresh_game_dir() -> bool:
    """Copy the template over ./demo, keeping its database, logs and secrets. True if new."""
    fresh = not (DEMO / "server" / "conf" / "settings.py").exists()
    shutil.copytree(
        TEMPLATE, DEMO, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__")
    )
    secret = DEMO / "server" / "conf" / "secret_settings.py"
    if not secret.exists():
        secret.write_text(
            "# Written by `make demo`; not shared.\n"
            f"SECRET_KEY = {secrets.token_urlsafe(40)!r}\n"
        )
    (DEMO / "server" / "logs").mkdir(parents=True, exist_ok=True)
    return fresh


def admin_credentials() -> tuple[str, str, bool]:
    """(username, password, generated): from the environment, the saved file, or new."""
    user = os.environ.get("EVENNIA_SUPERUSER_USERNAME")
    password = os.environ.get("EVENNIA_SUPERUSER_PASSWORD")
    if user and password:
        return user, password, False
    if CREDENTIALS.exists():
        user, password = CREDENTIALS.read_text().split("\n")[:2]
        return user, password, False
    user, password = "admin", secrets.token_urlsafe(12)
    CREDENTIALS.write_text(f"{user}\n{password}\n")
    CREDENTIALS.chmod(0o600)
    return user, password, True


def evennia(*args: str, env: dict[str, str], check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / "evennia"), *args], cwd=DEMO, env=env, stdin=subprocess.DEVNULL, check=check,
        text=True, capture_output=True,
    )


def server_log_count(text: str) -> int:
    log = DEMO / "server" / "logs" / "server.log"
    return log.read_text(errors="replace").count(text) if log.exists() else 0


def wait_until_ready(builds_wanted: int, timeout: float = 90.0) -> None:
    """Wait for telnet and for the world build (twice on a first start: Evennia restarts once)."""
    deadline = time.monotonic() + timeout
    while not port_open(TELNET_PORT):
        if time.monotonic() > deadline:
            raise SystemExit("[demo] Evennia did not open the telnet port; see demo/server/logs")
        time.sleep(0.5)
    while server_log_count("omniira demo: world built") < builds_wanted:
        if time.monotonic() > deadline:
            raise SystemExit("[demo] the world build did not finish; see demo/server/logs")
        time.sleep(0.5)


def llm_environment(env: dict[str, str]) -> str:
    """Decide which LLM the demo talks to and describe it."""
    if env.get("OMNIIRA_LLM_BASE_URL"):
        return f"{env['OMNIIRA_LLM_BASE_URL']} (model {env.get('OMNIIRA_LLM_MODEL', 'default')})"
    return ""


def start() -> None:
    if port_open(TELNET_PORT) or port_open(WEB_PORT):
        raise SystemExit(
            f"[demo] port {TELNET_PORT} or {WEB_PORT} is already in use. Is the demo already "
            "running? Stop it with `make demo-stop`."
        )
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    refresh_game_dir()
    user, password, generated = admin_credentials()
    env["EVENNIA_SUPERUSER_USERNAME"], env["EVENNIA_SUPERUSER_PASSWORD"] = user, password

    llm = llm_environment(env)
    if not llm:
        say("No LLM endpoint is set, so NPCs can only answer with fallback lines.")
        say("Point the demo at any OpenAI-compatible server and run `make demo` again, e.g.:")
        say("  OMNIIRA_LLM_BASE_URL=http://127.0.0.1:11434/v1 OMNIIRA_LLM_MODEL=llama3.2 make demo")
        say("  OMNIIRA_LLM_BASE_URL=https://api.openai.com/v1 OMNIIRA_LLM_MODEL=gpt-4o-mini \\")
        say("    OMNIIRA_LLM_API_KEY=sk-... make demo")

    new_database = not (DEMO / "server" / "evennia.db3").exists()
    say("migrating the database" + (" (first run)" if new_database else ""))
    result = evennia("migrate", env=env, check=False)
    if result.returncode != 0:
        print(result.stdout[-3000:], result.stderr[-3000:], sep="\n")
        raise SystemExit("[demo] `evennia migrate` failed (output above)")
    builds_wanted = server_log_count("omniira demo: world built") + (2 if new_database else 1)
    say("starting Evennia")
    result = evennia("start", env=env, check=False)
    if result.returncode != 0:
        print(result.stdout[-3000:], result.stderr[-3000:], sep="\n")
        raise SystemExit("[demo] `evennia start` failed (output above)")
    wait_until_ready(builds_wanted, timeout=120)

    print()
    print("  The demo is running.")
    print(f"  Telnet:   telnet 127.0.0.1 {TELNET_PORT}   (create <name> <password>, then y)")
    print(f"  Browser:  http://127.0.0.1:{WEB_PORT}/webclient")
    print("  Try:      say Maren, what do you pour here?      or   talk Lyra = Any news?")
    print(f"  LLM:      {llm or 'none configured (fallback lines only)'}")
    if generated:
        print(f"  Admin:    {user} / {password}   (shown once; saved in {CREDENTIALS})")
    else:
        print(f"  Admin:    {user} (password from your environment or {CREDENTIALS})")
    print("  Stop:     make demo-stop")
    print()


def stop() -> None:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    if not (DEMO / "server" / "conf" / "settings.py").exists():
        say("no demo game to stop")
        return
    result = evennia("stop", env=env, check=False)
    print((result.stdout or "").strip()[-2000:])
    say("stopped")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("action", choices=["start", "stop"])
    args = parser.parse_args()
    {"start": start, "stop": stop}[args.action]()


if __name__ == "__main__":
    main()
