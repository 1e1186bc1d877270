"""
Set up and run the demo game non-interactively (`make demo`, `make demo-stop`).

    python tools/demo.py start   # create/refresh ./demo, migrate, start
    python tools/demo.py stop    # stop Evennia (and the local model server, if we started one)
    python tools/demo.py admin   # create or reset the admin account (`make demo-admin`)

A new ./demo is made by the installed Evennia's own `evennia --init`, and game_template/ (only
the files the demo adds or changes) is laid over it on every start (tools/game_overlay.py), so
the demo follows the template of the Evennia that runs it. The folder is git-ignored; its
database survives `stop`/`start`, so NPCs keep their memories across runs.

The admin: EVENNIA_SUPERUSER_USERNAME/PASSWORD, else the saved demo/server/.admin_credentials,
else "admin" with a generated password. Evennia makes its superuser only on a new database, so
over an existing one `start` makes sure the named account exists, is a superuser and has that
password (game_template/world/demo_admin.py, run with `evennia shell`), and the banner says
what it found or did.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools import game_overlay  # noqa: E402

TEMPLATE = game_overlay.TEMPLATE
DEMO = Path(os.environ.get("OMNIIRA_DEMO_DIR", ROOT / "demo")).resolve()
BIN = Path(sys.executable).parent
CREDENTIALS = DEMO / "server" / ".admin_credentials"
DATABASE = DEMO / "server" / "evennia.db3"
ADMIN_RESULT = "OMNIIRA_ADMIN_RESULT "  # the line world/demo_admin.py prints
PORT_BASE = int(os.environ.get("OMNIIRA_DEMO_PORT_BASE", "4000"))
TELNET_PORT, WEB_PORT = PORT_BASE, PORT_BASE + 1


def say(text: str) -> None:
    print(f"[demo] {text}", flush=True)


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def refresh_game_dir() -> bool:
    """
    A new game by `evennia --init`, then our files over it (every start: code is refreshed, the
    database, logs and secrets are kept). True if the game is new.
    """
    fresh = not game_overlay.is_game(DEMO)
    if fresh:
        say(f"creating the game folder with `evennia --init` (Evennia {evennia_version()})")
        game_overlay.init_game(DEMO, BIN / "evennia")
    game_overlay.overlay(DEMO, TEMPLATE)
    write_secret_settings(DEMO / "server" / "conf" / "secret_settings.py")
    (DEMO / "server" / "logs").mkdir(parents=True, exist_ok=True)
    return fresh


def write_secret_settings(secret: Path) -> None:
    """
    The game's SECRET_KEY file, readable by its owner only: written so if missing (never
    readable by others, not even briefly), and made so if it exists (`evennia --init` writes
    its own with the umask's mode, usually world-readable, as did demos before this one).
    """
    if not secret.exists():
        secret.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(secret, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.fchmod(descriptor, 0o600)
        with os.fdopen(descriptor, "w") as fh:
            fh.write(
                "# Written by `make demo`; not shared.\n"
                f"SECRET_KEY = {secrets.token_urlsafe(40)!r}\n"
            )
    os.chmod(secret, 0o600)


def evennia_version() -> str:
    try:
        from importlib.metadata import version

        return version("evennia")
    except Exception:  # not installed as a distribution: say nothing precise
        return "?"


def save_credentials(user: str, password: str) -> None:
    """Write the admin's name and password to CREDENTIALS, readable by its owner only."""
    CREDENTIALS.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(CREDENTIALS, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)  # never readable by others, not even briefly
    with os.fdopen(descriptor, "w") as fh:
        fh.write(f"{user}\n{password}\n")


def admin_credentials(reset: bool = False) -> tuple[str, str, str]:
    """
    (username, password, source), source being "environment", "file" or "generated": from
    EVENNIA_SUPERUSER_USERNAME/PASSWORD, else the saved file, else "admin" with a new
    password. `reset` makes a new password for the saved name (`make demo-admin`). Whatever
    is chosen is saved in CREDENTIALS, so the file always names the demo's admin.
    """
    user = os.environ.get("EVENNIA_SUPERUSER_USERNAME")
    password = os.environ.get("EVENNIA_SUPERUSER_PASSWORD")
    if user and password:
        source = "environment"
    else:
        saved = CREDENTIALS.read_text().split("\n")[:2] if CREDENTIALS.exists() else []
        if len(saved) == 2 and all(saved) and not reset:
            return saved[0], saved[1], "file"
        user = saved[0] if saved and saved[0] else "admin"
        password, source = secrets.token_urlsafe(12), "generated"
    save_credentials(user, password)
    return user, password, source


def ensure_admin_account(env: dict[str, str], user: str, password: str) -> dict:
    """
    Make sure `user` exists in the demo's (existing) database as a superuser with `password`
    (game_template/world/demo_admin.py, run by `evennia shell` while the server is stopped).
    Returns its report; {"errors": [...]} if it could not run.
    """
    env = dict(env, OMNIIRA_DEMO_ADMIN_USER=user, OMNIIRA_DEMO_ADMIN_PASSWORD=password)
    code = "from world.demo_admin import main; main()"
    result = evennia("shell", "-c", code, env=env, check=False)
    for line in (result.stdout or "").splitlines():
        if line.startswith(ADMIN_RESULT):
            return json.loads(line[len(ADMIN_RESULT) :])
    output = ((result.stderr or "") + (result.stdout or "")).strip()[-1500:]
    return {"username": user, "errors": [f"`evennia shell` failed: {output}"], "superusers": []}


def describe_admin(user: str, password: str, source: str, report: dict | None) -> list[str]:
    """The banner's admin lines: who the admin is, where the password is, what was done."""
    if report and report.get("errors"):
        others = ", ".join(report.get("superusers") or []) or "none found"
        return [
            f"Admin:    could not set up {user}: {'; '.join(report['errors'])}",
            f"            superusers in this database: {others}. Run `make demo-admin` "
            "(it resets the admin",
            f"            and saves its password in {CREDENTIALS}), or choose another "
            "EVENNIA_SUPERUSER_PASSWORD.",
        ]
    if source == "generated":
        lines = [f"Admin:    {user} / {password}   (shown once; saved in {CREDENTIALS})"]
    elif source == "environment":
        lines = [
            f"Admin:    {user} (password from EVENNIA_SUPERUSER_PASSWORD; saved in {CREDENTIALS})"
        ]
    else:
        lines = [f"Admin:    {user} (password saved in {CREDENTIALS})"]
    if report:
        done = []
        if report.get("created"):
            others = [name for name in report.get("superusers", []) if name != user]
            done.append(
                "created now in the existing database"
                + (f" (its other superusers: {', '.join(others)})" if others else "")
            )
        if report.get("password_reset"):
            done.append("password set to the one above")
        if report.get("promoted"):
            done.append("made a superuser")
        if done:
            lines.append(f"            ({'; '.join(done)})")
    return lines


def evennia(*args: str, env: dict[str, str], check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / "evennia"), *args],
        cwd=DEMO,
        env=env,
        stdin=subprocess.DEVNULL,
        check=check,
        text=True,
        capture_output=True,
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


LOCAL_PID = DEMO / "server" / "local_llm.pid"
LOCAL_LOG = DEMO / "server" / "logs" / "local_llm.log"
TIERS = ("VOICE", "REASONING", "AMBIENT")


def needs_local_model(env: dict[str, str]) -> bool:
    """True unless every tier has an endpoint from the environment."""
    if env.get("OMNIIRA_LLM_BASE_URL"):
        return False
    return not all(env.get(f"OMNIIRA_{tier}_BASE_URL") for tier in TIERS)


def start_local_model(env: dict[str, str]) -> str:
    """Assemble/verify the packaged model, serve it on 127.0.0.1, return its /v1 URL."""
    stop_local_model()
    say("preparing the offline model (first run assembles and verifies ~1.1 GB)")
    result = subprocess.run(
        [sys.executable, "-m", "omniira_evennia.llm.local_model", "assemble"],
        env=env,
        text=True,
        capture_output=True,
        cwd=ROOT,
    )
    if result.returncode != 0:
        raise SystemExit(f"[demo] {result.stderr.strip() or result.stdout.strip()}")
    model = result.stdout.strip().splitlines()[-1]
    from omniira_evennia.llm.local_model import LocalModelError, start_server, wait_until_healthy

    threads = int(env.get("OMNIIRA_LOCAL_THREADS", str(os.cpu_count() or 2)))
    ctx = int(env.get("OMNIIRA_LOCAL_CTX", "4096"))
    LOCAL_LOG.parent.mkdir(parents=True, exist_ok=True)
    with open(LOCAL_LOG, "ab") as log:
        process, url = start_server(threads=threads, ctx=ctx, log=log, env=env, detach=True)
    LOCAL_PID.write_text(str(process.pid))
    try:
        wait_until_healthy(url, process, timeout=180)
    except LocalModelError as err:
        raise SystemExit(
            f"[demo] {err}; see {LOCAL_LOG}:\n" + LOCAL_LOG.read_text(errors="replace")[-2000:]
        )
    say(f"offline model {Path(model).name} serving on {url.rsplit('/v1', 1)[0]}")
    return url


def stop_local_model() -> bool:
    """Stop the model server this demo started, if any. True if there was one to stop."""
    if not LOCAL_PID.exists():
        return False
    try:
        pid = int(LOCAL_PID.read_text().strip())
        # A stale pid file (after a reboot) may name some other process: check it is ours.
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        if b"omniira_evennia.llm.local_model" not in cmdline:
            raise ProcessLookupError(pid)
        os.kill(pid, signal.SIGTERM)
        for _ in range(50):  # up to 5 s to exit cleanly, then kill
            time.sleep(0.1)
            os.kill(pid, 0)
        os.kill(pid, signal.SIGKILL)
    except (ValueError, OSError):  # gone already, not ours, or not ours to signal
        pass
    LOCAL_PID.unlink(missing_ok=True)
    return True


def llm_environment(env: dict[str, str]) -> str:
    """Decide which LLM the demo talks to, set the environment for it, and describe it."""
    described = []
    if env.get("OMNIIRA_LLM_BASE_URL"):
        described.append(
            f"{env['OMNIIRA_LLM_BASE_URL']} (model {env.get('OMNIIRA_LLM_MODEL', 'default')})"
        )
    for tier in TIERS:
        if env.get(f"OMNIIRA_{tier}_BASE_URL"):
            described.append(f"{tier.lower()}: {env[f'OMNIIRA_{tier}_BASE_URL']}")
    if needs_local_model(env):
        env["OMNIIRA_LOCAL_BASE_URL"] = start_local_model(env)
        env.setdefault("OMNIIRA_LOCAL_MODEL_NAME", "qwen2.5-coder-1.5b-instruct")
        described.append(f"offline local model at {env['OMNIIRA_LOCAL_BASE_URL']}")
    return "; ".join(described)


def start() -> None:
    if port_open(TELNET_PORT) or port_open(WEB_PORT):
        raise SystemExit(
            f"[demo] port {TELNET_PORT} or {WEB_PORT} is already in use. Is the demo already "
            "running? Stop it with `make demo-stop`."
        )
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    # The game imports this checkout's omniira_evennia, even when the virtualenv's editable
    # install points at another one (a git worktree); see the demo's settings.py.
    env["OMNIIRA_DEMO_CHECKOUT"] = str(ROOT)
    refresh_game_dir()
    user, password, source = admin_credentials()
    env["EVENNIA_SUPERUSER_USERNAME"], env["EVENNIA_SUPERUSER_PASSWORD"] = user, password

    llm = llm_environment(env)
    try:
        report = start_evennia(env, user, password)
    except SystemExit:
        stop_local_model()  # do not leave a model server behind a game that failed to start
        raise
    print_welcome(llm, describe_admin(user, password, source, report))


def start_evennia(env: dict[str, str], user: str, password: str) -> dict | None:
    """
    Migrate, make sure the admin exists (an existing database only: on a new one Evennia
    makes it from EVENNIA_SUPERUSER_*), start, wait for the world. Returns the admin report
    (None on a new database).
    """
    new_database = not DATABASE.exists()
    say("migrating the database" + (" (first run)" if new_database else ""))
    result = evennia("migrate", env=env, check=False)
    if result.returncode != 0:
        print(result.stdout[-3000:], result.stderr[-3000:], sep="\n")
        raise SystemExit("[demo] `evennia migrate` failed (output above)")
    report = None
    if not new_database:
        say(f"checking the admin account {user}")
        report = ensure_admin_account(env, user, password)
    builds_wanted = server_log_count("omniira demo: world built") + (2 if new_database else 1)
    say("starting Evennia")
    result = evennia("start", env=env, check=False)
    if result.returncode != 0:
        print(result.stdout[-3000:], result.stderr[-3000:], sep="\n")
        raise SystemExit("[demo] `evennia start` failed (output above)")
    wait_until_ready(builds_wanted, timeout=120)
    return report


def print_welcome(llm: str, admin_lines: list[str]) -> None:
    print()
    print("  The demo is running.")
    print(f"  Telnet:   telnet 127.0.0.1 {TELNET_PORT}   (create <name> <password>, then y)")
    print(f"  Browser:  http://127.0.0.1:{WEB_PORT}/webclient   (telnet and browser at once)")
    print("  Try:      say Maren, what do you pour here?      or   talk Lyra = Any news?")
    print(f"  LLM:      {llm}")
    if "offline" in llm:
        print("            (a 1.5B model on CPU: first replies can take 30-60 s; set")
        print("             OMNIIRA_LLM_BASE_URL to use OpenAI, Ollama, vLLM, Groq ...)")
    for line in admin_lines:
        print(f"  {line}")
    print("            (lost it? `make demo-stop`, then `make demo-admin` resets it)")
    print("  Stop:     make demo-stop")
    print()


def admin() -> None:
    """
    `make demo-admin`: create the demo's admin, or reset it (a new password unless
    EVENNIA_SUPERUSER_PASSWORD gives one), and print where its credentials are saved. The
    server must be stopped: a running Evennia keeps accounts in memory.
    """
    if port_open(TELNET_PORT) or port_open(WEB_PORT):
        raise SystemExit(
            "[demo] the demo is running; stop it first (`make demo-stop`), then run "
            "`make demo-admin` and `make demo` again."
        )
    if not game_overlay.is_game(DEMO) or not DATABASE.exists():
        say(
            "there is no demo database yet: `make demo` creates the admin (named by "
            "EVENNIA_SUPERUSER_USERNAME/PASSWORD, or 'admin' with a generated password)."
        )
        return
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["OMNIIRA_DEMO_CHECKOUT"] = str(ROOT)
    game_overlay.overlay(DEMO, TEMPLATE)  # world/demo_admin.py, in a demo/ made before it
    result = evennia("migrate", env=env, check=False)
    if result.returncode != 0:
        print(result.stdout[-3000:], result.stderr[-3000:], sep="\n")
        raise SystemExit("[demo] `evennia migrate` failed (output above)")
    user, password, source = admin_credentials(reset=True)
    report = ensure_admin_account(env, user, password)
    print()
    for line in describe_admin(user, password, source, report):
        print(f"  {line}")
    print(f"  Credentials file: {CREDENTIALS}")
    print()
    if report.get("errors"):
        raise SystemExit(1)


def stop() -> None:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["OMNIIRA_DEMO_CHECKOUT"] = str(ROOT)
    if stop_local_model():
        say("stopped the offline model server")
    if not (DEMO / "server" / "conf" / "settings.py").exists():
        say("no demo game to stop")
        return
    result = evennia("stop", env=env, check=False)
    print((result.stdout or "").strip()[-2000:])
    say("stopped")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("action", choices=["start", "stop", "admin"])
    args = parser.parse_args()
    {"start": start, "stop": stop, "admin": admin}[args.action]()


if __name__ == "__main__":
    main()
