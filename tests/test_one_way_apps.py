"""The apps point one way: `refinement` reads `feedback`, never the reverse.

Read from the source with `ast`, so that a lazy import inside a function counts too:
- no module of `feedback` imports `refinement` (nor names a `refinement.` path for a dynamic
  import); what feedback needs from refinement (the routing policy an experience was chosen
  under) is passed in by the wiring;
- `refinement` imports from `feedback` only `feedback.selectors`, never `feedback.models` nor
  raw tables: the selectors return plain values (names, tuples, dicts, their own small
  dataclasses), so that no feedback model crosses over and feedback may change its tables.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The demo command reads feedback's Turn table; it is wiring, not refinement's, and moves to
# learnportal/management/ with the other half of issue 7. Remove this entry then.
NOT_YET_MOVED = {"refinement/management/commands/seed_demo.py"}


def modules(app: str, root: Path = ROOT) -> Iterator[tuple[str, ast.Module]]:
    for path in sorted((root / app).rglob("*.py")):
        name = path.relative_to(root).as_posix()
        yield name, ast.parse(path.read_text(), filename=name)


def imported(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """What each `import` names, with its line: `from a import b` names `a.b` (a module or
    a name in `a`)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                yield node.lineno, f"{node.module}.{alias.name}"


def dotted_paths(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """String constants that read as a dotted path, as `import_string` takes them."""
    for node in ast.walk(tree):
        is_text = isinstance(node, ast.Constant) and isinstance(node.value, str)
        if is_text and re.fullmatch(r"\w+(\.\w+)+", node.value):
            yield node.lineno, node.value


def within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def feedback_to_refinement(root: Path = ROOT) -> list[str]:
    return [
        f"{module}:{line} {name}"
        for module, tree in modules("feedback", root)
        for line, name in [*imported(tree), *dotted_paths(tree)]
        if within(name, "refinement")
    ]


def refinement_to_feedback(root: Path = ROOT) -> list[str]:
    return [
        f"{module}:{line} {name}"
        for module, tree in modules("refinement", root)
        if module not in NOT_YET_MOVED
        for line, name in imported(tree)
        if within(name, "feedback") and not within(name, "feedback.selectors")
    ]


def test_feedback_never_imports_refinement() -> None:
    assert feedback_to_refinement() == []


def test_refinement_reads_feedback_only_through_its_selectors() -> None:
    assert refinement_to_feedback() == []


def test_a_lazy_import_a_dotted_path_and_a_model_are_found(tmp_path: Path) -> None:
    planted = {
        "feedback/services.py": (
            "def store():\n    from refinement.store import routing_weights\n"
            "POLICY = 'refinement.store.behaviour_policy'\n"
        ),
        "refinement/review.py": (
            "from feedback import selectors\nfrom feedback.selectors import corrections\n"
            "from feedback.models import ComponentStats\nimport feedback.stats\n"
        ),
    }
    for name, text in planted.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)

    assert feedback_to_refinement(tmp_path) == [
        "feedback/services.py:2 refinement.store.routing_weights",
        "feedback/services.py:3 refinement.store.behaviour_policy",
    ]
    assert refinement_to_feedback(tmp_path) == [
        "refinement/review.py:3 feedback.models.ComponentStats",
        "refinement/review.py:4 feedback.stats",
    ]
