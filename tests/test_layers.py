"""The house has layers, one folder each: wire → base → apps → wiring, and no import points back up.

A folder is a layer, read from the tree: `learnportal_protocol/` is the wire (pure pydantic,
shared with the client), `core/` the base, the package holding `settings.py` the wiring, and
every other top-level package with an `apps.py` an app. No list of modules is kept here: a new
module belongs to its folder's layer.

- The wire imports nothing of the project; the base imports no app and not the wiring; the apps
  import the base and the wire, never the wiring (dispatch, the transports, demo, urls).
- Pages live in the apps and the wiring: the base has no `pages.py`, `urls.py` or `forms.py`.
- `refinement` reads `feedback`, never the reverse: no module of `feedback` imports
  `refinement` (nor names a `refinement.` path for a dynamic import); what feedback needs from
  refinement (the routing policy an experience was chosen under) is passed in by the wiring.
- `refinement` imports from `feedback` only `feedback.selectors`, never its models or tables:
  the selectors return plain values, so that feedback may change its tables.
- `webhooks` hears the base's `announced` signal and imports no other app.

Read from the source with `ast`, so that an import inside a function counts too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

ROOT = Path(__file__).resolve().parents[1]
WIRE = "learnportal_protocol"
BASE = "core"
RANK = {"wire": 0, "base": 1, "app": 2, "wiring": 3}


def layers(root: Path = ROOT) -> dict[str, str]:
    """Each top-level package of the tree and its layer."""
    found = {}
    for init in sorted(root.glob("*/__init__.py")):
        folder = init.parent
        if folder.name == WIRE:
            found[folder.name] = "wire"
        elif folder.name == BASE:
            found[folder.name] = "base"
        elif (folder / "settings.py").exists():
            found[folder.name] = "wiring"
        elif (folder / "apps.py").exists():
            found[folder.name] = "app"
    return found


def apps(root: Path = ROOT) -> list[str]:
    return [name for name, kind in layers(root).items() if kind == "app"]


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def within(name: str, *packages: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def layer(name: str, root: Path = ROOT) -> str:
    return layers(root).get(name.split(".")[0], "outside")


def modules(top: str, root: Path) -> Iterator[tuple[str, ast.Module]]:
    for path in sorted((root / top).rglob("*.py")):
        yield module_name(path, root), ast.parse(path.read_text(), str(path))


def imported(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """What each import names, with its line: `from a import b` names `a` and `a.b`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module
            for alias in node.names:
                yield node.lineno, f"{node.module}.{alias.name}"


def dotted_paths(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """String constants that read as a dotted path, as `import_string` takes them."""
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and re.fullmatch(r"\w+(\.\w+)+", node.value)
        ):
            yield node.lineno, node.value


def arrows_up(root: Path = ROOT) -> list[str]:
    wrong = set()
    for top in layers(root):
        for importer, tree in modules(top, root):
            for _, name in imported(tree):
                target = layer(name, root)
                if target == "outside" or name in layers(root):
                    continue  # `from learnportal import demo` is judged as learnportal.demo
                if RANK[target] > RANK[layer(importer, root)]:
                    wrong.add(f"{importer} ({layer(importer, root)}) imports {name} ({target})")
    return sorted(wrong)


def pages_in_the_base(root: Path = ROOT) -> list[str]:
    return sorted(
        str(path.relative_to(root))
        for top, kind in layers(root).items()
        if kind in ("wire", "base")
        for path in (root / top).rglob("*.py")
        if path.stem in ("pages", "urls", "forms")
    )


def webhooks_to_apps(root: Path = ROOT) -> list[str]:
    others = [app for app in apps(root) if app != "webhooks"]
    return sorted(
        {
            f"{module}:{line} {name}"
            for module, tree in modules("webhooks", root)
            for line, name in imported(tree)
            if within(name, *others)
        }
    )


def feedback_to_refinement(root: Path = ROOT) -> list[str]:
    return sorted(
        {
            f"{module}:{line} {name}"
            for module, tree in modules("feedback", root)
            for line, name in [*imported(tree), *dotted_paths(tree)]
            if within(name, "refinement")
        }
    )


def refinement_to_feedback(root: Path = ROOT) -> list[str]:
    return sorted(
        {
            f"{module}:{line} {name}"
            for module, tree in modules("refinement", root)
            for line, name in imported(tree)
            if within(name, "feedback")
            and name != "feedback"
            and not within(name, "feedback.selectors")
        }
    )


def test_the_tree_has_each_layer() -> None:
    assert layers() == {
        "core": "base",
        "feedback": "app",
        "learnportal": "wiring",
        "learnportal_protocol": "wire",
        "refinement": "app",
        "webhooks": "app",
    }


def test_no_module_imports_a_layer_above_its_own() -> None:
    assert arrows_up() == []


def test_the_base_serves_no_page() -> None:
    assert pages_in_the_base() == []


def test_webhooks_import_no_other_app() -> None:
    assert webhooks_to_apps() == []


def test_feedback_never_imports_refinement() -> None:
    assert feedback_to_refinement() == []


def test_refinement_reads_feedback_only_through_its_selectors() -> None:
    assert refinement_to_feedback() == []


def plant(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


HOUSE = {
    "learnportal_protocol/__init__.py": "",
    "core/__init__.py": "",
    "learnportal/__init__.py": "",
    "learnportal/settings.py": "",
    "feedback/__init__.py": "",
    "feedback/apps.py": "",
    "refinement/__init__.py": "",
    "refinement/apps.py": "",
    "webhooks/__init__.py": "",
    "webhooks/apps.py": "",
}


def test_a_folder_is_a_layer(tmp_path: Path) -> None:
    root = plant(
        tmp_path, {**HOUSE, "quality/__init__.py": "", "quality/apps.py": "", "docs/x.py": ""}
    )
    assert layers(root) == {
        "core": "base",
        "feedback": "app",
        "learnportal": "wiring",
        "learnportal_protocol": "wire",
        "quality": "app",
        "refinement": "app",
        "webhooks": "app",
    }


def test_an_import_from_a_layer_above_is_found(tmp_path: Path) -> None:
    root = plant(
        tmp_path,
        {
            **HOUSE,
            "core/accounts/apps.py": "def ready():\n    from learnportal.api import openapi\n",
            "feedback/pages.py": "from core.web import page\nfrom learnportal import dispatch\n",
            "refinement/handlers.py": "import feedback.selectors\n",
            "learnportal_protocol/models.py": "from core.instants import utc\n",
        },
    )
    assert arrows_up(root) == [
        "core.accounts.apps (base) imports learnportal.api (wiring)",
        "core.accounts.apps (base) imports learnportal.api.openapi (wiring)",
        "feedback.pages (app) imports learnportal.dispatch (wiring)",
        "learnportal_protocol.models (wire) imports core.instants (base)",
        "learnportal_protocol.models (wire) imports core.instants.utc (base)",
    ]


def test_a_page_in_the_base_and_an_app_in_webhooks_are_found(tmp_path: Path) -> None:
    root = plant(
        tmp_path,
        {
            **HOUSE,
            "core/accounts/pages.py": "",
            "learnportal_protocol/forms.py": "",
            "webhooks/outbox.py": "from feedback.models import Turn\ndef f():\n    import refinement.api\n",
        },
    )
    assert pages_in_the_base(root) == ["core/accounts/pages.py", "learnportal_protocol/forms.py"]
    assert webhooks_to_apps(root) == [
        "webhooks.outbox:1 feedback.models",
        "webhooks.outbox:1 feedback.models.Turn",
        "webhooks.outbox:3 refinement.api",
    ]


def test_a_lazy_import_a_dotted_path_and_a_model_across_the_apps_are_found(
    tmp_path: Path,
) -> None:
    root = plant(
        tmp_path,
        {
            **HOUSE,
            "feedback/services.py": (
                "def store():\n    from refinement.store import routing_weights\n"
                "POLICY = 'refinement.store.behaviour_policy'\n"
            ),
            "refinement/review.py": (
                "from feedback import selectors\nfrom feedback.selectors import corrections\n"
                "from feedback.models import ComponentStats\nimport feedback.stats\n"
            ),
        },
    )
    assert feedback_to_refinement(root) == [
        "feedback.services:2 refinement.store",
        "feedback.services:2 refinement.store.routing_weights",
        "feedback.services:3 refinement.store.behaviour_policy",
    ]
    assert refinement_to_feedback(root) == [
        "refinement.review:3 feedback.models",
        "refinement.review:3 feedback.models.ComponentStats",
        "refinement.review:4 feedback.stats",
    ]
