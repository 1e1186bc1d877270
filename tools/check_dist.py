"""
Check the built package (`make dist`) beyond what `twine check` does:

- the wheel holds every file of omniira_evennia that git tracks (code, migrations, templates,
  the contrib README, the MiniLM tokenizer with its Apache-2.0 licence and NOTICE) and nothing
  outside the package but its metadata;
- the licence files are in the wheel's metadata (.dist-info/licenses/);
- the version is the package's __version__ and has a CHANGELOG entry;
- every classifier is a valid trove classifier (the package index rejects unknown ones).

    python tools/check_dist.py dist
"""

from __future__ import annotations

import email.parser
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LICENCES = (
    "LICENSE",
    "omniira_evennia/memory/minilm/LICENSE-Apache-2.0.txt",
    "omniira_evennia/memory/minilm/NOTICE",
)


def package_version() -> str:
    text = (ROOT / "omniira_evennia" / "__init__.py").read_text()
    return re.search(r'^__version__ = "([^"]+)"', text, re.M).group(1)


def tracked_package_files() -> set[str]:
    out = subprocess.run(
        ["git", "ls-files", "omniira_evennia"], cwd=ROOT, capture_output=True, text=True
    )
    if out.returncode != 0:  # not a git checkout (an unpacked sdist): every file on disk
        return {
            str(p.relative_to(ROOT))
            for p in (ROOT / "omniira_evennia").rglob("*")
            if p.is_file() and "__pycache__" not in p.parts
        }
    return {line for line in out.stdout.splitlines() if (ROOT / line).exists()}


def check(dist: Path) -> list[str]:
    problems = []
    version = package_version()
    wheels = sorted(dist.glob("omniira_evennia-*.whl"))
    sdists = sorted(dist.glob("omniira_evennia-*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        return [f"expected one wheel and one sdist in {dist}, found {wheels + sdists}"]
    wheel, sdist = wheels[0], sdists[0]
    if f"-{version}-" not in wheel.name or not sdist.name.endswith(f"-{version}.tar.gz"):
        problems.append(f"built {wheel.name} / {sdist.name}, but __version__ is {version}")
    if not re.search(rf"^## {re.escape(version)}\b", (ROOT / "CHANGELOG.md").read_text(), re.M):
        problems.append(f"CHANGELOG.md has no '## {version}' entry")

    names = set(zipfile.ZipFile(wheel).namelist())
    info = f"omniira_evennia-{version}.dist-info"
    missing = sorted(tracked_package_files() - names)
    if missing:
        problems.append(f"the wheel lacks {len(missing)} tracked file(s): {missing[:10]}")
    stray = sorted(n for n in names if not n.startswith(("omniira_evennia/", info + "/")))
    if stray:
        problems.append(f"the wheel holds files outside the package: {stray[:10]}")
    for licence in LICENCES:
        if f"{info}/licenses/{licence}" not in names:
            problems.append(f"the wheel's metadata lacks {licence}")

    metadata = email.parser.Parser().parsestr(
        zipfile.ZipFile(wheel).read(f"{info}/METADATA").decode()
    )
    try:
        from trove_classifiers import classifiers as known
    except ImportError:
        problems.append("trove-classifiers is not installed (the [dev] extra has it)")
    else:
        bad = [c for c in metadata.get_all("Classifier") or [] if c not in known]
        if bad:
            problems.append(f"unknown classifiers: {bad}")
    if metadata.get("Description-Content-Type") != "text/markdown":
        problems.append("the long description is not marked text/markdown")

    with tarfile.open(sdist) as tar:
        members = {m.name.split("/", 1)[-1] for m in tar.getmembers()}
    for needed in ("pyproject.toml", "README.md", *LICENCES):
        if needed not in members:
            problems.append(f"the sdist lacks {needed}")
    return problems


def main() -> int:
    dist = Path(sys.argv[1] if len(sys.argv) > 1 else "dist")
    problems = check(dist)
    for problem in problems:
        print(f"check_dist: {problem}", file=sys.stderr)
    if not problems:
        built = ", ".join(
            f"{p.name} ({p.stat().st_size // 1024} KB)" for p in sorted(dist.iterdir())
        )
        print(f"check_dist: OK: {built}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
