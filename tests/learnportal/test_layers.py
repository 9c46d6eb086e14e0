"""The house has layers: base → apps → wiring, and no import points back up.

The base (the protocol, accounts, events, env, the shared page helpers) imports neither app nor
the wiring; the apps (feedback, refinement) import the base and never the wiring (dispatch, the
transports, the pages of the project, demo, urls). Every import counts, even one inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APPS = ("feedback", "refinement")
# Everything else in learnportal/ is the wiring, on top of both apps.
BASE = (
    "learnportal",  # the package itself (empty)
    "learnportal.protocol",
    "learnportal.accounts",
    "learnportal.events",
    "learnportal.env",
    "learnportal.web",
    "learnportal.inputs",
    "learnportal.ratelimit",
    "learnportal.csp",
)


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def within(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def layer(name: str) -> str:
    if name in BASE or within(name, BASE[1:]):
        return "base"
    if within(name, APPS):
        return "app"
    if within(name, ("learnportal",)):
        return "wiring"
    return "outside"


def imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def arrows_up(root: Path) -> list[str]:
    rank = {"base": 0, "app": 1, "wiring": 2}
    wrong = []
    for top in ("learnportal", *APPS):
        for path in sorted((root / top).rglob("*.py")):
            importer = module_name(path, root)
            for imported in sorted(imports(path)):
                # `from learnportal import demo` names the module learnportal.demo.
                target = layer(imported)
                if target == "outside" or imported == "learnportal":
                    continue
                if rank[target] > rank[layer(importer)]:
                    wrong.append(f"{importer} ({layer(importer)}) imports {imported} ({target})")
    return wrong


def test_no_module_imports_a_layer_above_its_own() -> None:
    assert arrows_up(ROOT) == []


def test_an_import_from_a_layer_above_is_found(tmp_path: Path) -> None:
    planted = {
        "learnportal/accounts/apps.py": "def ready():\n    from learnportal.api import openapi\n",
        "feedback/pages.py": "from learnportal.web import page\nfrom learnportal import dispatch\n",
        "refinement/handlers.py": "import feedback.selectors\n",
    }
    for name, text in planted.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert arrows_up(tmp_path) == [
        "learnportal.accounts.apps (base) imports learnportal.api (wiring)",
        "learnportal.accounts.apps (base) imports learnportal.api.openapi (wiring)",
        "feedback.pages (app) imports learnportal.dispatch (wiring)",
    ]
