"""
The demo game is the installed Evennia's own game folder with the contrib's files laid over it.
game_template/ holds only what the demo adds or changes (settings, the cmdset, the start hook,
the NPC typeclass, the world build, the connection screen, the inspector's URL and the vendored
web client libraries); everything else comes from the Evennia that runs it, so the demo follows
that Evennia's template (5.0 and 6.1 differ).

    init_game(folder)      # `evennia --init`, from the running interpreter's Evennia
    copy_template(folder)  # the same template copied without a subprocess (the test settings)
    overlay(folder)        # our files over it; unchanged files are left alone

Used by tools/demo.py (`make demo`, the end-to-end tests and the benches) and tests/settings.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "game_template"
_SKIP = shutil.ignore_patterns("__pycache__", "*.pyc")


def is_game(folder: Path) -> bool:
    return (Path(folder) / "server" / "conf" / "settings.py").exists()


def init_game(folder: Path, evennia_bin: Path | None = None) -> None:
    """
    `evennia --init` into `folder`. The launcher refuses a folder that exists, so it makes the
    game in a temporary sibling and moves its files in (a folder holding only logs is fine).
    """
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    evennia = evennia_bin or Path(sys.executable).parent / "evennia"
    with tempfile.TemporaryDirectory(prefix=".evennia-init-", dir=folder.parent) as tmp:
        result = subprocess.run(
            [str(evennia), "--init", "game"],
            cwd=tmp,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
        )
        if result.returncode != 0 or not is_game(Path(tmp) / "game"):
            raise RuntimeError(
                f"`{evennia} --init` failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}"
            )
        shutil.copytree(Path(tmp) / "game", folder, dirs_exist_ok=True)


def copy_template(folder: Path) -> None:
    """The installed Evennia's game template, copied as `--init` does (no secret settings)."""
    import evennia

    source = Path(evennia.__file__).resolve().parent / "game_template"
    shutil.copytree(source, folder, dirs_exist_ok=True, ignore=_SKIP)


def overlay(folder: Path, template: Path = TEMPLATE) -> list[Path]:
    """Copy our files over the game in `folder`; return the files written. Each file is
    replaced atomically and only when it differs, so a process importing the game meanwhile
    never reads half a file."""
    written = []
    for source in sorted(Path(template).rglob("*")):
        if source.is_dir() or "__pycache__" in source.parts or source.suffix == ".pyc":
            continue
        target = Path(folder) / source.relative_to(template)
        data = source.read_bytes()
        if target.exists() and target.read_bytes() == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
        partial.write_bytes(data)
        os.replace(partial, target)
        written.append(target)
    return written


def suite_game(folder: Path) -> Path:
    """The test suite's game folder: the installed Evennia's template plus our files."""
    folder = Path(folder)
    if not is_game(folder):
        copy_template(folder)
    overlay(folder)
    return folder
