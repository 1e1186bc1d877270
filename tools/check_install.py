"""
The default install as a builder gets it, measured: a fresh virtualenv, `pip install` of this
checkout with no extras, then its size, the time it took and a check that no torch, triton or
NVIDIA library came along (the default embedder is ONNX; torch is the [torch] extra).

    python tools/check_install.py                      # the interpreter running this script
    python tools/check_install.py --python python3.12  # another one
    python tools/check_install.py --no-cache           # a first install: nothing from pip's cache

Prints one JSON line and exits non-zero if a forbidden package was installed.
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN_PREFIXES = ("nvidia-", "nvidia_", "triton", "torch")


def du_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def forbidden(packages: list[str]) -> list[str]:
    return sorted(p for p in packages if p.lower().startswith(FORBIDDEN_PREFIXES))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="interpreter for the venv")
    parser.add_argument("--no-cache", action="store_true", help="pip --no-cache-dir")
    parser.add_argument("--keep", action="store_true", help="keep the virtualenv (printed)")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="omniira-install-"))
    venv = work / "venv"
    try:
        subprocess.run([args.python, "-m", "venv", str(venv)], check=True)
        python = venv / "bin" / "python"
        version = subprocess.run(
            [str(python), "-c", "import platform; print(platform.python_version())"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        empty = du_bytes(venv)
        pip = [str(python), "-m", "pip", "install", "--quiet"]
        if args.no_cache:
            pip.append("--no-cache-dir")
        started = time.monotonic()
        subprocess.run([*pip, str(ROOT)], check=True)
        seconds = time.monotonic() - started
        listed = json.loads(
            subprocess.run(
                [str(python), "-m", "pip", "list", "--format", "json"],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        )
        names = [p["name"] for p in listed]
        versions = {p["name"].lower(): p["version"] for p in listed}
        bad = forbidden(names)
        total = du_bytes(venv)
        report = {
            "python": version,
            "host": platform.node(),
            "evennia": versions.get("evennia"),
            "django": versions.get("django"),
            "packages": len(names),
            "install_seconds": round(seconds, 1),
            "pip_cache": not args.no_cache,
            "venv_mb": round(total / 1e6),
            "added_by_install_mb": round((total - empty) / 1e6),
            "forbidden": bad,
        }
        if args.keep:
            report["venv"] = str(venv)
        print(json.dumps(report), flush=True)
        return 1 if bad else 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
