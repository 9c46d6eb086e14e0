"""What is said once stays said once: read from the source with `ast`, as the layers test does.

- One function sets the Retry-After header (`learnportal.api.errors.envelope_response`).
- One function turns a pydantic refusal into `invalid` (`learnportal_protocol.wire.invalid_from`):
  nothing else reads a ValidationError's errors.
- One function maps a database error to its learn/error (`learnportal.dberrors.database_error`).
- The answers of `/api/webhooks/` are pydantic models built by their `.of()` (webhooks.answers):
  no function of webhooks returns a dict of an answer's fields.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_layers import layers

ROOT = Path(__file__).resolve().parents[1]


def functions() -> list[tuple[str, ast.FunctionDef]]:
    found = []
    for package in layers():
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found += [
                (f"{module}.{node.name}", node)
                for node in ast.walk(tree)
                if isinstance(node, ast.FunctionDef)
            ]
    return found


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


def returned_dict_keys(function: ast.FunctionDef) -> list[set[str]]:
    """The constant keys of each dict literal `function` returns."""
    return [
        {str(key.value) for key in node.value.keys if isinstance(key, ast.Constant)}
        for node in ast.walk(function)
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict)
    ]


def test_the_webhook_answers_are_built_by_their_models_of() -> None:
    from learnportal_protocol.models import Answer
    from webhooks import answers

    models = [
        model
        for model in vars(answers).values()
        if isinstance(model, type)
        and issubclass(model, Answer)
        and model.__module__ == answers.__name__
    ]
    assert all(callable(getattr(model, "of", None)) for model in models)
    builders = [
        name
        for name, function in functions()
        if name.startswith("webhooks.")
        for keys in returned_dict_keys(function)
        if any(len(keys & set(model.model_fields)) >= 3 for model in models)
    ]
    assert builders == []
    api = ast.parse((ROOT / "webhooks" / "api.py").read_text())
    assert not [
        n for n in ast.walk(api) if isinstance(n, ast.Attribute) and n.attr == "model_validate"
    ]
