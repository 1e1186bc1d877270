"""
The house's size rules (issue #28, point 4): no module over 500 lines, no function over 80, no
class over 300 (migrations aside). The pieces that were over when the rule came are listed with
the size they had then; each may only shrink, and leaves the list once it is within the rule,
so the list is the work still to do and nothing new joins it.
"""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "omniira_evennia"
MODULE_LINES, FUNCTION_LINES, CLASS_LINES = 500, 80, 300

# module -> its line count when the rule came (2026-12-03)
OVERSIZED_MODULES: dict[str, int] = {}
# "module:function" or "module:Class" -> its length then
OVERSIZED_DEFINITIONS: dict[str, int] = {}


def _sources():
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if not relative.startswith("migrations/"):
            yield relative, path.read_text()


def _module_sizes() -> dict[str, int]:
    return {relative: len(text.splitlines()) for relative, text in _sources()}


def _definition_sizes() -> dict[str, tuple[int, int]]:
    """ "module:name" -> (its length in lines, the rule's limit for its kind)."""
    sizes = {}
    for relative, text in _sources():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                limit = CLASS_LINES if isinstance(node, ast.ClassDef) else FUNCTION_LINES
                sizes[f"{relative}:{node.name}"] = (node.end_lineno - node.lineno + 1, limit)
    return sizes


def _over(size: int, limit: int, listed: int | None) -> bool:
    return size > (limit if listed is None else max(listed, limit))


def test_no_module_grows_past_500_lines():
    over = {
        relative: lines
        for relative, lines in _module_sizes().items()
        if _over(lines, MODULE_LINES, OVERSIZED_MODULES.get(relative))
    }
    assert over == {}, "split it, or keep it within its listed size"


def test_no_function_over_80_lines_or_class_over_300():
    over = {
        name: length
        for name, (length, limit) in _definition_sizes().items()
        if _over(length, limit, OVERSIZED_DEFINITIONS.get(name))
    }
    assert over == {}


def test_the_lists_hold_only_what_is_still_over():
    """A piece brought within the rule leaves its list, so the list cannot hide new growth."""
    modules, definitions = _module_sizes(), _definition_sizes()
    within = [m for m in OVERSIZED_MODULES if modules.get(m, 0) <= MODULE_LINES]
    for name in OVERSIZED_DEFINITIONS:
        length, limit = definitions.get(name, (0, FUNCTION_LINES))  # gone counts as within
        if length <= limit:
            within.append(name)
    assert within == []
