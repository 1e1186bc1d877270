"""
Shared plumbing for the benchmarks that run the real demo game (bench/busy_server.py,
bench/rollover.py); not a benchmark itself.

- `DemoGame` builds and starts the demo through `tools/demo.py start` in a temporary folder on
  its own ports (as tests/e2e/test_e2e_demo.py does), logs in the admin over telnet, runs helper
  functions in the server with `py`, and stops it again.
- `ProcStats` reads a server process's CPU time (all threads, or the reactor thread alone) and
  its resident memory from /proc.
- `summary_ms` and `percentile` turn samples into the figures the reports show.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.telnet_client import TelnetPlayer  # noqa: E402

ADMIN = ("admin", "admin-pass-123")
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def percentile(values, pct):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


def summary_ms(seconds: list[float]) -> dict:
    """Median, p95 and max of samples given in seconds, reported in milliseconds."""
    if not seconds:
        return {"count": 0}
    ms = [s * 1000 for s in seconds]
    return {
        "count": len(ms),
        "median_ms": round(statistics.median(ms), 1),
        "p95_ms": round(percentile(ms, 95), 1),
        "p99_ms": round(percentile(ms, 99), 1),
        "max_ms": round(max(ms), 1),
    }


def machine() -> str:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{os.cpu_count()} cores, {model or platform.machine()}, Python {platform.python_version()}"
    )


class ProcStats:
    """CPU seconds and memory of one process, from /proc (Linux)."""

    def __init__(self, pid: int):
        self.pid = pid

    def _ticks(self, path: str) -> float:
        # Fields after the command name (which may hold spaces): utime and stime are 14 and 15.
        fields = Path(path).read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS

    def cpu_seconds(self) -> float:
        return self._ticks(f"/proc/{self.pid}/stat")

    def reactor_cpu_seconds(self) -> float:
        """The main thread's CPU time: Twisted's reactor runs there."""
        return self._ticks(f"/proc/{self.pid}/task/{self.pid}/stat")

    def memory_kb(self) -> dict[str, int]:
        found = {}
        for line in Path(f"/proc/{self.pid}/status").read_text().splitlines():
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                found[name] = int(value.split()[0])
        return found

    def reset_peak(self) -> bool:
        """Reset VmHWM to the current RSS (Linux `clear_refs` 5); False if not permitted."""
        try:
            Path(f"/proc/{self.pid}/clear_refs").write_text("5")
            return True
        except OSError:
            return False


class DemoGame:
    """The demo game in a temporary folder, on ports port_base..port_base+6."""

    def __init__(self, port_base: int, llm_base_url: str, keep: bool = False):
        self.port = port_base
        self.dir = Path(tempfile.mkdtemp(prefix="omniira-bench-")) / "demo"
        self.keep = keep
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("OMNIIRA_")}
        self.env.pop("DJANGO_SETTINGS_MODULE", None)
        self.env.update(
            OMNIIRA_DEMO_DIR=str(self.dir),
            OMNIIRA_DEMO_PORT_BASE=str(port_base),
            OMNIIRA_LLM_BASE_URL=llm_base_url,
            OMNIIRA_LLM_MODEL="scripted",
            EVENNIA_SUPERUSER_USERNAME=ADMIN[0],
            EVENNIA_SUPERUSER_PASSWORD=ADMIN[1],
        )
        self.admin: TelnetPlayer | None = None

    def _demo(self, action: str, timeout: float = 300) -> str:
        result = subprocess.run(
            [sys.executable, str(ROOT / "tools" / "demo.py"), action],
            env=self.env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        if result.returncode != 0:
            raise RuntimeError(f"demo {action} failed:\n{result.stdout[-2000:]}{result.stderr}")
        return result.stdout

    def start(self) -> None:
        try:
            self._demo("start")
        except RuntimeError as err:
            # On a loaded machine Evennia's launcher sometimes gives up between starting the
            # portal and the server; a second start (same database) has worked each time here.
            print(f"[bench] {err}\n[bench] stopping and starting the demo again", flush=True)
            self._demo("stop", timeout=120)
            self._demo("start")

    def stop(self) -> None:
        if self.admin is not None:
            self.admin.close()
            self.admin = None
        try:
            self._demo("stop", timeout=120)
        finally:
            if not self.keep:
                shutil.rmtree(self.dir.parent, ignore_errors=True)

    def server_pid(self) -> int:
        return int((self.dir / "server" / "server.pid").read_text().strip())

    def portal_pid(self) -> int:
        return int((self.dir / "server" / "portal.pid").read_text().strip())

    def add_world_module(self, name: str, source: str) -> None:
        """A helper module the admin can import with `py` (world/<name>.py)."""
        (self.dir / "world" / f"{name}.py").write_text(source)

    def login_admin(self) -> TelnetPlayer:
        self.admin = TelnetPlayer(self.port)
        self.admin.login(*ADMIN)
        # Out of character: the admin's character leaves the room, so it neither counts as a
        # player there nor receives the room's chatter while the benchmark runs.
        self.admin.send("ooc")
        self.admin.drain(1.0)
        return self.admin

    def py(self, code: str, timeout: float = 120) -> dict:
        """Run `code` with the admin's `py`; it must `caller.msg("BENCHJSON " + json)`."""
        self.admin.drain(0.1)
        self.admin.send(f"py {code}")
        text = self.admin.read_until(r"BENCHJSON (\{[^\n]*\})", timeout=timeout)
        return json.loads(re.search(r"BENCHJSON (\{[^\n]*\})", text).group(1))

    def check_contrib_path(self) -> str:
        """Fail unless the server runs this checkout's omniira_evennia; return its path."""
        path = self.py(
            'import json, omniira_evennia; me.msg("BENCHJSON " + '
            'json.dumps({"path": omniira_evennia.__file__}))'
        )["path"]
        if not Path(path).resolve().is_relative_to(ROOT):
            raise RuntimeError(f"the server imports omniira_evennia from {path}, not {ROOT}")
        return path

    def log_tail(self, chars: int = 3000) -> str:
        log = self.dir / "server" / "logs" / "server.log"
        return log.read_text(errors="replace")[-chars:] if log.exists() else ""

    def log_count(self, text: str) -> int:
        log = self.dir / "server" / "logs" / "server.log"
        return log.read_text(errors="replace").count(text) if log.exists() else 0


def wait_for_embedder(game: DemoGame, timeout: float = 90) -> None:
    """The embedding model loads in the worker pool ~10 s after start; wait for it."""
    deadline = time.monotonic() + timeout
    while game.log_count("omniira: embedding model ready") < 1:
        if time.monotonic() > deadline:
            raise RuntimeError("the embedding model did not load:\n" + game.log_tail())
        time.sleep(1)
