"""
The layout's rules, checked on the source (import-linter checks the layers in `make lint`):
no import cycles among our modules, counting imports inside functions, and imports of our own
modules inside functions only where Evennia's load order needs them.
"""

import ast
from pathlib import Path

import grimp

PACKAGE = Path(__file__).resolve().parents[2] / "omniira_evennia"

# Where a lazy import of our own code is allowed, and why (each also has a comment in place).
LAZY_ALLOWED = {
    "typeclasses.py",  # typeclasses load before the apps' models are ready
    "apps.py",  # AppConfig.ready runs while apps load
    "social/__init__.py",  # the 0.1 ticker path shim, kept plain
    "testing/testbed/cli.py",  # the CLI configures Django before importing the game
    "testing/testbed/simulate.py",
}


def test_no_import_cycles_even_through_imports_inside_functions():
    graph = grimp.build_graph("omniira_evennia")
    ours = [m for m in graph.modules if m.startswith("omniira_evennia")]
    cycles = []
    for module in ours:
        for imported in graph.find_modules_directly_imported_by(module):
            if imported == module or not imported.startswith("omniira_evennia"):
                continue
            back = graph.find_shortest_chain(importer=imported, imported=module)
            if back:
                cycles.append(" -> ".join([module, *back]))
    assert cycles == []


def test_our_modules_are_imported_at_the_top_except_where_load_order_needs_it():
    lazy = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative.startswith("migrations/") or relative in LAZY_ALLOWED:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    if isinstance(inner, ast.ImportFrom) and (
                        inner.level or (inner.module or "").startswith("omniira_evennia")
                    ):
                        lazy.append(f"{relative}:{inner.lineno} {inner.module}")
    assert lazy == []
