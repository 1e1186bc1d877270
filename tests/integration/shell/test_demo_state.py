"""
The demo records what it starts and stops exactly that (issue #26, point 16): demo/state.json
holds the ports and pids of the model server, the Evennia Portal and Server; `stop` stops those
processes (checked by their command lines) whatever OMNIIRA_DEMO_PORT_BASE is now, and touches
nothing when there is no record; a start that fails or gives up stops what it had started.

The first tests use stand-in processes (a Python sleeping with the arguments that mark the
real ones); the end-to-end ones start the real demo.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path
from unittest import mock

import pytest

from omniira_evennia.testing.fakes import ScriptedLLM
from tests.telnet_client import TelnetPlayer
from tools import game_overlay

ROOT = Path(__file__).resolve().parents[3]
DEMO_PY = ROOT / "tools" / "demo.py"
STAND_IN = """
import os, signal, time
for name in os.environ.get("STAND_IN_IGNORES", "").split():
    signal.signal(getattr(signal, name), signal.SIG_IGN)
print("ready", flush=True)
time.sleep(300)
"""
_loaded = itertools.count()


def load_demo(folder: Path, port_base: int = 4000):
    """tools/demo.py as a fresh module for `folder` (its paths are read at import)."""
    env = {"OMNIIRA_DEMO_DIR": str(folder), "OMNIIRA_DEMO_PORT_BASE": str(port_base)}
    spec = importlib.util.spec_from_file_location(f"demo_under_test_{next(_loaded)}", DEMO_PY)
    module = importlib.util.module_from_spec(spec)
    with mock.patch.dict(os.environ, env):
        spec.loader.exec_module(module)
    return module


@pytest.fixture
def stand_ins():
    """Start stand-in processes with the given marking arguments; all reaped at the end."""
    started = []

    def start(*marks: str, ignores: str = "") -> subprocess.Popen:
        env = dict(os.environ, STAND_IN_IGNORES=ignores)
        process = subprocess.Popen(
            [sys.executable, "-c", STAND_IN, *marks], env=env, stdout=subprocess.PIPE, text=True
        )
        assert process.stdout.readline() == "ready\n"  # its signal handlers are set
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait()


def gone(process: subprocess.Popen, timeout: float = 10.0) -> bool:
    try:
        process.wait(timeout=timeout)
        return True
    except subprocess.TimeoutExpired:
        return False


def run_stop(folder: Path, port_base: int | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "OMNIIRA_DEMO_PORT_BASE"}
    env["OMNIIRA_DEMO_DIR"] = str(folder)
    env.pop("DJANGO_SETTINGS_MODULE", None)
    if port_base is not None:
        env["OMNIIRA_DEMO_PORT_BASE"] = str(port_base)
    result = subprocess.run(
        [sys.executable, str(DEMO_PY), "stop"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def marks(folder: Path, part: str) -> str:
    return f"--pidfile={folder}/server/{part}.pid"


def a_record(folder: Path, base: int, portal: int, model: int, port: str) -> dict:
    demo = load_demo(folder, base)
    record = demo.new_record()
    record["processes"]["portal"]["pid"] = portal
    record["processes"]["local_model"] = {
        "name": f"offline model server on port {port}",
        "pid": model,
        "argv": ["omniira_evennia.llm.local_model", "serve", port],
    }
    folder.mkdir(parents=True, exist_ok=True)
    demo.write_record(record)
    return record


def test_stop_stops_what_the_record_names_whatever_the_port_base_is_now(tmp_path, stand_ins):
    demo_dir, other = tmp_path / "demo", tmp_path / "other"
    portal = stand_ins(marks(demo_dir, "portal"))
    server = stand_ins(marks(demo_dir, "server"))  # restarted by the Portal: not the recorded pid
    model = stand_ins("-m", "omniira_evennia.llm.local_model", "serve", "--port", "4999")
    # Left alone: another folder's Portal, and a process that looks like the model server
    # but is not the recorded pid.
    others_portal = stand_ins(marks(other, "portal"))
    look_alike = stand_ins("-m", "omniira_evennia.llm.local_model", "serve", "--port", "4999")
    a_record(demo_dir, 4240, portal.pid, model.pid, "4999")

    out = run_stop(demo_dir)  # no OMNIIRA_DEMO_PORT_BASE: the record says 4240

    assert (
        f"[demo] stopped the demo in {demo_dir} (ports 4240-4246): Evennia portal (pid "
        f"{portal.pid}); Evennia server (pid {server.pid}); offline model server on port 4999 "
        f"(pid {model.pid})"
    ) in out
    assert gone(portal) and gone(server) and gone(model)
    assert others_portal.poll() is None and look_alike.poll() is None
    assert not (demo_dir / "state.json").exists()
    assert "nothing stopped" in run_stop(demo_dir)  # a second stop finds no record


class Listener:
    """Listening sockets that count the connections made to them (another demo's ports)."""

    def __init__(self, ports):
        self.accepted = 0
        self.sockets = []
        for port in ports:
            sock = socket.socket()
            sock.bind(("127.0.0.1", port))
            sock.listen()
            sock.settimeout(0.2)
            self.sockets.append(sock)
        self.running = True
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while self.running:
            for sock in self.sockets:
                try:
                    conn, _ = sock.accept()
                except (TimeoutError, socket.timeout, OSError):
                    continue
                self.accepted += 1
                conn.close()

    def close(self):
        self.running = False
        self.thread.join()
        for sock in self.sockets:
            sock.close()


def free_base(start: int = 4700) -> int:
    for base in range(start, start + 200, 10):
        with socket.socket() as a, socket.socket() as b:
            if a.connect_ex(("127.0.0.1", base)) and b.connect_ex(("127.0.0.1", base + 6)):
                return base
    raise RuntimeError("no free ports")


def test_stop_without_a_record_aims_at_no_port_and_leaves_other_demos_alone(tmp_path, stand_ins):
    demo_dir = game_overlay.suite_game(tmp_path / "demo")  # a game: the old stop ran `evennia stop`
    others_portal = stand_ins(marks(tmp_path / "other", "portal"))
    base = free_base()
    listener = Listener([base, base + 6])  # "another demo" on the ports the variable names
    try:
        out = run_stop(demo_dir, port_base=base)
    finally:
        listener.close()
    assert f"no record of a demo started from {demo_dir} (state.json is missing)" in out
    assert "nothing stopped (processes of other demos and ports are left alone)" in out
    assert listener.accepted == 0  # no `evennia stop` sent to whatever listens there
    assert others_portal.poll() is None


def test_without_a_record_this_folders_own_processes_are_still_stopped(tmp_path, stand_ins):
    """A demo started before records were kept: its processes name this folder's pid files."""
    demo_dir = tmp_path / "demo"
    portal = stand_ins(marks(demo_dir, "portal"))
    model = stand_ins("-m", "omniira_evennia.llm.local_model", "serve", "--port", "4998")
    (demo_dir / "server").mkdir(parents=True)
    (demo_dir / "server" / "local_llm.pid").write_text(str(model.pid))
    out = run_stop(demo_dir)
    assert "no record of a demo started from" in out
    assert f"Evennia portal (pid {portal.pid}); offline model server (pid {model.pid})" in out
    assert gone(portal) and gone(model)


def test_a_process_that_ignores_its_signals_is_killed(tmp_path, stand_ins):
    demo = load_demo(tmp_path / "demo")
    stubborn = stand_ins(marks(demo.DEMO, "server"), ignores="SIGINT SIGTERM")
    part = demo.evennia_part("Evennia server", demo.SERVER_PIDFILE)
    assert demo.live_pids(part) == [stubborn.pid]
    demo.end(part, signal.SIGINT, grace=0.3)
    assert gone(stubborn, timeout=5) and stubborn.returncode == -signal.SIGKILL


SLOW_EXIT = """
import signal, sys, time
def leave(*_):
    time.sleep(1.5)  # like a model server unmapping its weights
    sys.exit(0)
signal.signal(signal.SIGTERM, leave)
print("ready", flush=True)
time.sleep(300)
"""


def test_stop_waits_for_a_signalled_process_that_lost_its_command_line(tmp_path):
    # A process tearing down 1 GB of model loses /proc/<pid>/cmdline before it exits: a stop
    # that took that for "gone" left the offline model server running (CI, the real demo).
    demo = load_demo(tmp_path / "demo")
    slow = subprocess.Popen(
        [sys.executable, "-c", SLOW_EXIT, "serve", "4999"], stdout=subprocess.PIPE
    )
    try:
        assert slow.stdout.readline() == b"ready\n"
        part = {"name": "offline model server", "pid": slow.pid, "argv": ["serve", "4999"]}
        signalled = []
        real_kill = os.kill

        def kill(pid, sig):
            signalled.append(pid)
            real_kill(pid, sig)

        with (
            mock.patch.object(demo.os, "kill", kill),
            mock.patch.object(
                demo, "command_line", lambda pid: [] if signalled else ["x", "serve", "4999"]
            ),
        ):
            demo.end(part, signal.SIGTERM, grace=5.0)
        assert slow.poll() == 0  # exited by itself, within the grace, before end() returned
    finally:
        if slow.poll() is None:
            slow.kill()
        slow.wait()


def test_a_recorded_pid_now_used_by_another_process_is_left_alone(tmp_path, stand_ins):
    demo = load_demo(tmp_path / "demo")
    unrelated = stand_ins("something-else")
    part = {"name": "offline model server", "pid": unrelated.pid, "argv": ["serve", "4999"]}
    assert demo.live_pids(part) == []
    assert demo.stop_parts({"ports": {"base": 4000}, "processes": {"local_model": part}}) == []
    assert unrelated.poll() is None


def test_start_refuses_while_the_recorded_game_runs(tmp_path, stand_ins):
    folder = tmp_path / "demo"
    portal = stand_ins(marks(folder, "portal"))
    a_record(folder, 4250, portal.pid, portal.pid, "1")
    demo = load_demo(folder, 4000)  # another port base: the record still knows
    with pytest.raises(SystemExit, match=r"is already running \(telnet port 4250\)"):
        demo.start()
    assert portal.poll() is None


def test_the_record_is_private_and_replaced_whole(tmp_path, capsys):
    demo = load_demo(tmp_path / "demo", 4300)
    demo.DEMO.mkdir(parents=True)
    old_umask = os.umask(0o022)
    try:
        demo.write_record(demo.new_record())
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(demo.STATE.stat().st_mode) == 0o600
    assert [p.name for p in demo.DEMO.iterdir()] == ["state.json"]  # no partial file left
    assert demo.read_record()["ports"] == {"base": 4300, "telnet": 4300, "web": 4301, "amp": 4306}
    demo.STATE.write_text("{not json")
    assert demo.read_record() is None
    assert "ignoring the unreadable record" in capsys.readouterr().out


def test_world_builds_are_counted_across_a_rotated_server_log(tmp_path):
    """A start may rotate server.log (a new month, a week, 1 MB): the count must not drop."""
    demo = load_demo(tmp_path / "demo")
    logs = demo.DEMO / "server" / "logs"
    logs.mkdir(parents=True)
    built = f"2026-05-01 10:00:00 [..] {demo.BUILT} (tavern, market, 4 NPCs)\n"
    (logs / "server.log").write_text(built * 3)
    wanted = demo.world_builds() + 1
    os.replace(logs / "server.log", logs / "server.log.2026_05_01")  # rotated at the start
    (logs / "server.log").write_text("2026-06-01 10:00:00 [..] Evennia Server started.\n")
    assert demo.world_builds() == 3 < wanted
    (logs / "server.log").write_text(built)
    assert demo.world_builds() == wanted


# --- The real demo ----------------------------------------------------------------------------

E2E_BASE, FAILING_BASE, SLOW_BASE = 4200, 4220, 4240  # clear of the other end-to-end tests


def demo_env(tmp_path: Path, name: str, base: int, llm: ScriptedLLM, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMNIIRA_", "EVENNIA_"))}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env.update(
        OMNIIRA_DEMO_DIR=str(tmp_path / name),
        OMNIIRA_DEMO_PORT_BASE=str(base),
        OMNIIRA_LLM_BASE_URL=llm.base_url,
        EVENNIA_SUPERUSER_USERNAME="admin",
        EVENNIA_SUPERUSER_PASSWORD="admin-pass-123",
        **extra,
    )
    return env


def run_start(env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(DEMO_PY), "start"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=400,
        stdin=subprocess.DEVNULL,
    )


def folder_processes(folder: Path) -> list[int]:
    """Every live process whose command line names the folder (its Evennia's pid files)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            args = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except (OSError, ValueError):
            continue
        if entry.name.isdigit() and any(str(folder) in arg for arg in args):
            found.append(int(entry.name))
    return found


def freeze_when_started(folder: Path, part: str, seconds: float | None) -> threading.Thread:
    """SIGSTOP the first process marked with the folder's `part` pid file as soon as it runs,
    for `seconds` (None: for good): a Portal slow to load, a Server that hangs."""

    def watch():
        mark, deadline = marks(folder, part), time.monotonic() + 120
        while time.monotonic() < deadline:
            for entry in Path("/proc").iterdir():
                try:
                    args = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
                except OSError:
                    continue
                if mark in args:
                    os.kill(int(entry.name), signal.SIGSTOP)
                    if seconds is not None:
                        time.sleep(seconds)
                        os.kill(int(entry.name), signal.SIGCONT)
                    return
            time.sleep(0.05)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def clean_up(env: dict) -> None:
    """Whatever a failed test left: stop by the record, then kill what names the folder."""
    run_stop(Path(env["OMNIIRA_DEMO_DIR"]), port_base=int(env["OMNIIRA_DEMO_PORT_BASE"]))
    for pid in folder_processes(Path(env["OMNIIRA_DEMO_DIR"])):
        os.kill(pid, signal.SIGKILL)


@pytest.mark.e2e
def test_a_demo_on_other_ports_is_stopped_by_a_stop_without_the_variable(tmp_path):
    with ScriptedLLM(lambda body: "Aye.") as llm:
        env = demo_env(tmp_path, "demo", E2E_BASE, llm)
        try:
            started = run_start(env)
            assert started.returncode == 0, started.stdout[-3000:] + started.stderr[-3000:]
            record = json.loads((tmp_path / "demo" / "state.json").read_text())
            pids = [part["pid"] for part in record["processes"].values()]
            assert record["ports"]["base"] == E2E_BASE and all(pids)

            # Another folder without a record, aimed at this demo's very ports: untouched.
            out = run_stop(tmp_path / "elsewhere", port_base=E2E_BASE)
            assert "no record of a demo started from" in out and "nothing stopped" in out
            TelnetPlayer(E2E_BASE).close()  # still answering

            out = run_stop(tmp_path / "demo")  # no OMNIIRA_DEMO_PORT_BASE
            assert f"stopped the demo in {tmp_path / 'demo'} (ports 4200-4206)" in out
            assert all(f"(pid {pid})" in out for pid in pids)
            assert not folder_processes(tmp_path / "demo")
            with pytest.raises(OSError):
                TelnetPlayer(E2E_BASE)
        finally:
            clean_up(env)


@pytest.mark.e2e
def test_a_start_that_gives_up_leaves_nothing_running(tmp_path):
    """The Server hangs before the world is built: the start gives up, stops what it started."""
    with ScriptedLLM(lambda body: "Aye.") as llm:
        env = demo_env(tmp_path, "demo", FAILING_BASE, llm, OMNIIRA_DEMO_START_TIMEOUT="20")
        try:
            freeze_when_started(tmp_path / "demo", "server", None)
            result = run_start(env)
            assert result.returncode == 1
            assert "did not finish within 20 s" in result.stderr
            assert (
                "[demo] the start did not finish; stopped what it had started: Evennia portal"
                in (result.stdout)
            )
            assert not folder_processes(tmp_path / "demo")
            assert not (tmp_path / "demo" / "state.json").exists()
        finally:
            clean_up(env)


@pytest.mark.e2e
def test_a_portal_slower_than_the_launchers_wait_still_gets_its_server(tmp_path):
    """Evennia's launcher waits ~10 s for the Portal, then leaves it without a Server."""
    with ScriptedLLM(lambda body: "Aye.") as llm:
        env = demo_env(tmp_path, "demo", SLOW_BASE, llm)
        try:
            freeze_when_started(tmp_path / "demo", "portal", 14)
            result = run_start(env)
            assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
            assert "the Evennia Portal was slow to answer" in result.stdout
            player = TelnetPlayer(SLOW_BASE)  # the Server is behind the Portal: one can play
            player.create_and_login("Ada", "pw-ada-12345")
            player.send("look")
            player.read_until(r"Exits:", timeout=10)
            player.close()
        finally:
            clean_up(env)
