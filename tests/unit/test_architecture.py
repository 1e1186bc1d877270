"""
The layout's rules, checked on the source (import-linter checks the layers in `make lint`):
no import cycles among our modules, counting imports inside functions, and imports of our own
modules inside functions only where Evennia's load order needs them.
"""

import ast
import configparser
from pathlib import Path

import grimp

PACKAGE = Path(__file__).resolve().parents[2] / "omniira_evennia"
CONTRACTS = PACKAGE.parent / ".importlinter"
CAPABILITIES = (
    "runtime",
    "llm",
    "memory",
    "knowledge",
    "conversation",
    "social",
    "rollover",
    "life",
)
# runtime holds no rows and no policy: each of its modules is a seam of its own (.importlinter).
SEAMS_ONLY = {"runtime"}

# Where a lazy import of our own code is allowed, and why (each also has a comment in place).
LAZY_ALLOWED = {
    "typeclasses.py",  # typeclasses load before the apps' models are ready
    "apps.py",  # AppConfig.ready runs while apps load
    "social/__init__.py",  # the 0.1 ticker path shim, kept plain
    "testing/testbed/cli.py",  # the CLI configures Django before importing the game
    "testing/testbed/simulate.py",
    "testing/testbed/measures.py",  # the testbed's parts, imported before Django is set up
    "testing/testbed/world.py",
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


def _listed(contracts: configparser.ConfigParser, section: str, option: str) -> set[str]:
    if not contracts.has_section(section):
        return set()
    return set(contracts[section].get(option, "").split())


def test_each_capability_module_is_a_seam_or_protected_by_its_contract():
    """A new module is either public (service, handler, plain) or listed as an internal in its
    capability-services contract, so none slips past the contract by being new."""
    contracts = configparser.ConfigParser()
    contracts.read(CONTRACTS)
    plain = _listed(contracts, "importlinter:contract:plain-core", "source_modules")
    unplaced = []
    for capability in CAPABILITIES:
        if capability in SEAMS_ONLY:
            continue
        section = f"importlinter:contract:capability-services-{capability}"
        protected = _listed(contracts, section, "protected_modules")
        for path in sorted((PACKAGE / capability).iterdir()):
            if path.name.startswith(("_", ".")) or not (
                path.suffix == ".py" or (path / "__init__.py").exists()
            ):
                continue
            module = f"omniira_evennia.{capability}.{path.stem}"
            public = path.stem in ("service", "handler") or module in plain
            if public == (module in protected):
                unplaced.append(module)  # neither, or both
    assert unplaced == []


def test_the_contracts_ignore_only_the_upgrade_shim():
    """Issue #28, point 3: what docs/architecture.md says is what the contracts check; the one
    import let through is the 0.1 ticker path's shim (social -> scripts)."""
    contracts = configparser.ConfigParser()
    contracts.read(CONTRACTS)
    ignored = {
        line.strip()
        for section in contracts.sections()
        for line in contracts[section].get("ignore_imports", "").splitlines()
        if line.strip() and not line.strip().startswith("#")
    }
    assert ignored == {"omniira_evennia.social -> omniira_evennia.scripts"}
