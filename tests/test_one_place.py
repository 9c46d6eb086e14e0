"""What is said once stays said once: read from the source with `ast`, as the layers test does.

- One function sets the Retry-After header (`learnportal.api.errors.envelope_response`).
- One function turns a pydantic refusal into `invalid` (`learnportal_protocol.wire.invalid_from`):
  nothing else reads a ValidationError's errors.
- One function maps a database error to its learn/error (`learnportal.dberrors.database_error`).
- The groupings of proposal and refinement statuses ("open proposal", "applied") are written
  beside their enums (`refinement.models`), and read from there.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_layers import layers

ROOT = Path(__file__).resolve().parents[1]


def modules() -> list[tuple[str, ast.Module]]:
    found = []
    for package in layers():
        for path in sorted((ROOT / package).rglob("*.py")):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found.append((module, ast.parse(path.read_text(), str(path))))
    return found


def functions() -> list[tuple[str, ast.FunctionDef]]:
    return [
        (f"{module}.{node.name}", node)
        for module, tree in modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
    ]


def sets_retry_after(function: ast.FunctionDef) -> bool:
    return any(
        isinstance(target, ast.Subscript)
        and isinstance(target.slice, ast.Constant)
        and str(target.slice.value).lower() == "retry-after"
        for node in ast.walk(function)
        if isinstance(node, ast.Assign)
        for target in node.targets
    )


def calls(function: ast.FunctionDef, name: str) -> bool:
    return any(
        isinstance(node, ast.Call)
        and (
            (isinstance(node.func, ast.Name) and node.func.id == name)
            or (isinstance(node.func, ast.Attribute) and node.func.attr == name)
        )
        for node in ast.walk(function)
    )


STATUS_ENUMS = {"ProposalStatus", "RefinementStatus"}


def groups_statuses(node: ast.AST) -> bool:
    """A literal collection of two statuses or more, or any literal a `status__in` filter takes."""
    if isinstance(node, ast.keyword) and (node.arg or "").endswith("status__in"):
        return isinstance(node.value, ast.List | ast.Tuple | ast.Set)
    statuses = [
        element
        for element in getattr(node, "elts", [])
        if isinstance(element, ast.Attribute)
        and isinstance(element.value, ast.Name)
        and element.value.id in STATUS_ENUMS
    ]
    return isinstance(node, ast.List | ast.Tuple | ast.Set) and len(statuses) >= 2


def test_one_function_sets_the_retry_after_header() -> None:
    assert [name for name, f in functions() if sets_retry_after(f)] == [
        "learnportal.api.errors.with_retry_after"
    ]


def test_one_function_turns_a_pydantic_refusal_into_invalid() -> None:
    readers = [name for name, f in functions() if calls(f, "validation_details")]
    assert readers == ["learnportal_protocol.wire.invalid_from"]
    assert [name for name, f in functions() if calls(f, "errors")] == [
        "learnportal_protocol.wire.validation_details"
    ]


def test_one_function_builds_the_error_of_a_database_error() -> None:
    users = sorted(name for name, f in functions() if calls(f, "database_error"))
    assert users == ["learnportal.api.errors.exception_handler", "learnportal.dispatch.run"]


def test_the_groupings_of_statuses_are_written_beside_their_enums() -> None:
    grouping = sorted(
        {module for module, tree in modules() for node in ast.walk(tree) if groups_statuses(node)}
    )
    assert grouping == ["refinement.models"]
