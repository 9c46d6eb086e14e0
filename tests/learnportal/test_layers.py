"""The house has layers: base → apps → wiring, no import points back up, and the apps point one way.

- The base (the protocol, accounts, events, env, the shared page helpers) imports neither app
  nor the wiring; the apps (feedback, refinement) import the base and never the wiring
  (dispatch, the transports, the project's pages, demo, urls).
- `refinement` reads `feedback`, never the reverse: no module of `feedback` imports
  `refinement` (nor names a `refinement.` path for a dynamic import); what feedback needs from
  refinement (the routing policy an experience was chosen under) is passed in by the wiring.
- `refinement` imports from `feedback` only `feedback.selectors`, never its models or tables:
  the selectors return plain values, so that feedback may change its tables.

Read from the source with `ast`, so that an import inside a function counts too.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

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
    "learnportal.form_words",  # the pages' words for a refusal, beside web
    "learnportal.inputs",
    "learnportal.instants",
    "learnportal.ratelimit",
    "learnportal.outage",
    "learnportal.best_effort_cache",
    "learnportal.csp",
    "learnportal.webhooks",  # called only through events.broadcast_on_commit
)
RANK = {"base": 0, "app": 1, "wiring": 2}


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def within(name: str, *packages: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def layer(name: str) -> str:
    if name in BASE or within(name, *BASE[1:]):
        return "base"
    if within(name, *APPS):
        return "app"
    if within(name, "learnportal"):
        return "wiring"
    return "outside"


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
    for top in ("learnportal", *APPS):
        for importer, tree in modules(top, root):
            for _, name in imported(tree):
                # `from learnportal import demo` names the module learnportal.demo.
                target = layer(name)
                if target == "outside" or name == "learnportal":
                    continue
                if RANK[target] > RANK[layer(importer)]:
                    wrong.add(f"{importer} ({layer(importer)}) imports {name} ({target})")
    return sorted(wrong)


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


def test_no_module_imports_a_layer_above_its_own() -> None:
    assert arrows_up() == []


def test_feedback_never_imports_refinement() -> None:
    assert feedback_to_refinement() == []


def test_refinement_reads_feedback_only_through_its_selectors() -> None:
    assert refinement_to_feedback() == []


def plant(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_an_import_from_a_layer_above_is_found(tmp_path: Path) -> None:
    root = plant(
        tmp_path,
        {
            "learnportal/accounts/apps.py": "def ready():\n    from learnportal.api import openapi\n",
            "feedback/pages.py": "from learnportal.web import page\nfrom learnportal import dispatch\n",
            "refinement/handlers.py": "import feedback.selectors\n",
        },
    )
    assert arrows_up(root) == [
        "feedback.pages (app) imports learnportal.dispatch (wiring)",
        "learnportal.accounts.apps (base) imports learnportal.api (wiring)",
        "learnportal.accounts.apps (base) imports learnportal.api.openapi (wiring)",
    ]


def test_a_lazy_import_a_dotted_path_and_a_model_across_the_apps_are_found(
    tmp_path: Path,
) -> None:
    root = plant(
        tmp_path,
        {
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
