"""
The Installation section of omniira_evennia/README.md, read as steps a program can apply, so
the README and tests/e2e/test_builder_path.py cannot drift apart.

Each code block of the section is introduced by the paragraph just before it. These
introductions are understood (file paths relative to the game folder):

- "Create `F`": the block is the new file F (it must not exist).
- "Append to `F`": the block goes at the end of F.
- "In `F`, after the imports": the block goes below F's last top-level import.
- "In `F`, at the end of `NAME`": the block goes at the end of function NAME (or
  `Class.method`), below any comment lines that close it, re-indented to its body; a lone
  placeholder `pass` there is removed.
- an `sh` block with `pip install`: how to install (the caller installs its own build);
- an `sh` block of `export NAME=value` lines: the environment the server needs;
- an `sh` block of `evennia ...` lines: commands to run in the game folder.

Any other block is an example and is not applied. The first block of the Usage section holds
the in-game commands that make an NPC.

    python tools/readme_install.py mygame   # apply the file edits to the game folder mygame
"""

from __future__ import annotations

import ast
import re
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "omniira_evennia" / "README.md"
FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```$", re.S | re.M)


@dataclass
class Step:
    action: str  # create, append, after_imports, end_of, install, environment, run
    code: str
    path: str = ""
    target: str = ""
    lines: list[str] = field(default_factory=list)


def section(text: str, title: str) -> str:
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not match:
        raise ValueError(f"README has no '## {title}' section")
    return match.group(1)


def _blocks(text: str):
    """(introducing paragraph, language, dedented code) of each fenced block, in order."""
    position = 0
    for match in FENCE.finditer(text):
        before = text[position : match.start()].strip("\n")
        paragraph = re.split(r"\n\s*\n", before)[-1] if before else ""
        position = match.end()
        code = "\n".join(
            line[len(match.group(1)) :] if line.startswith(match.group(1)) else line
            for line in match.group(3).splitlines()
        )
        yield " ".join(paragraph.split()), match.group(2), code.rstrip() + "\n"


def installation_steps(readme: Path = README) -> list[Step]:
    steps = []
    for intro, language, code in _blocks(section(readme.read_text(), "Installation")):
        lines = [line.strip() for line in code.splitlines() if line.strip()]
        if match := re.search(r"\bCreate `([^`]+)`", intro):
            steps.append(Step("create", code, path=match.group(1)))
        elif match := re.search(r"\bAppend to `([^`]+)`", intro, re.I):
            steps.append(Step("append", code, path=match.group(1)))
        elif match := re.search(r"\bIn `([^`]+)`, after the imports", intro):
            steps.append(Step("after_imports", code, path=match.group(1)))
        elif match := re.search(r"\bIn `([^`]+)`, at the end of `([\w.]+)`", intro):
            steps.append(Step("end_of", code, path=match.group(1), target=match.group(2)))
        elif language == "sh" and any(line.startswith("pip install") for line in lines):
            steps.append(Step("install", code, lines=lines))
        elif language == "sh" and lines and all(line.startswith("export ") for line in lines):
            steps.append(Step("environment", code, lines=lines))
        elif language == "sh" and lines and all(line.startswith("evennia ") for line in lines):
            steps.append(Step("run", code, lines=lines))
    return steps


def environment_names(step: Step) -> list[str]:
    return [line.split()[1].split("=", 1)[0] for line in step.lines]


def usage_commands(readme: Path = README) -> list[str]:
    """The in-game commands of the Usage section's first code block (indented or fenced)."""
    text = section(readme.read_text(), "Usage")
    match = re.search(r"(?:^(?: {4}\S.*)\n)+", text, re.M)
    fenced = FENCE.search(text)
    if fenced and (not match or fenced.start() < match.start()):
        block = fenced.group(3)
    elif match:
        block = match.group(0)
    else:
        raise ValueError("the Usage section has no code block")
    return [line.strip() for line in block.splitlines() if line.strip()]


def _function(tree: ast.Module, dotted: str) -> ast.FunctionDef:
    body, node = tree.body, None
    for name in dotted.split("."):
        node = next(
            (
                n
                for n in body
                if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
                and n.name == name
            ),
            None,
        )
        if node is None:
            raise ValueError(f"no {dotted} (no {name})")
        body = node.body
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        raise ValueError(f"{dotted} is not a function")
    return node


def apply_step(game: Path, step: Step) -> None:
    """Apply one file step to the game folder `game`."""
    path = game / step.path
    if step.action == "create":
        if path.exists():
            raise FileExistsError(f"{step.path} exists already")
        path.write_text(step.code)
        return
    source = path.read_text()
    lines = source.splitlines(keepends=True)
    if step.action == "append":
        path.write_text(source + ("" if source.endswith("\n") else "\n") + "\n" + step.code)
        return
    tree = ast.parse(source)
    if step.action == "after_imports":
        imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
        if not imports:
            raise ValueError(f"{step.path} has no top-level import")
        at = imports[-1].end_lineno
        new = step.code
    elif step.action == "end_of":
        func = _function(tree, step.target)
        at = func.end_lineno
        indent = re.match(r"\s*", lines[func.body[-1].lineno - 1]).group(0)
        # Comment lines closing the body ("# any commands you add below ...") stay above.
        while at < len(lines) and lines[at].startswith(indent + "#"):
            at += 1
        new = textwrap.indent(textwrap.dedent(step.code), indent, lambda line: line.strip())
        last = func.body[-1]
        if isinstance(last, ast.Pass) and last.lineno == last.end_lineno:
            del lines[last.lineno - 1]  # a placeholder `pass` gives way to the new lines
            at -= 1
    else:
        raise ValueError(f"not a file step: {step.action}")
    path.write_text("".join(lines[:at]) + new + "".join(lines[at:]))


def apply_file_steps(game: Path, steps: list[Step] | None = None) -> list[Step]:
    """Apply every file step of the README to `game`; return the steps applied."""
    applied = []
    for step in steps if steps is not None else installation_steps():
        if step.path:
            apply_step(game, step)
            applied.append(step)
    return applied


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    game = Path(sys.argv[1])
    for step in apply_file_steps(game):
        target = f" ({step.target})" if step.target else ""
        print(f"{step.action:14} {step.path}{target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
