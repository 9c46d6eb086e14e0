"""What is said once stays said once: read from the source with `ast`, as the layers test does.

- One function sets the Retry-After header (`learnportal.api.errors.envelope_response`).
- One function turns a pydantic refusal into `invalid` (`learnportal_protocol.wire.invalid_from`):
  nothing else reads a ValidationError's errors.
- One function maps a database error to its learn/error (`learnportal.dberrors.database_error`).
- The groupings of proposal and refinement statuses ("open proposal", "applied") are written
  beside their enums (`refinement.models`), and read from there.
- The answers of `/api/webhooks/` are pydantic models built by their `.of()` (webhooks.answers):
  no function of webhooks returns a dict of an answer's fields.
- An action's role check is made once on each path: by the service where the service makes it
  (the check every transport shares), and then not again by the REST view or learn/* handler
  over it. Read one call deep, through a package's re-exports.
- A broadcast's audience is written and read by core.events alone (`may_hear` asks the roles).
- One credential watch (core.accounts.watch) ends every long-lived connection whose credential
  dies: nothing else asks the principal cache to watch, or polls it.
- Raw SQL in the base and the apps takes its columns from the models (`core.columns.Columns`):
  no SQL literal names a model's column by hand (but the implicit key `id`), and no column list
  given to a bulk write is written out.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING

from tests.test_layers import layers

if TYPE_CHECKING:
    from collections.abc import Iterator

ROOT = Path(__file__).resolve().parents[1]


@functools.cache
def modules() -> list[tuple[str, ast.Module]]:
    found = []
    for package in layers():
        for path in sorted((ROOT / package).rglob("*.py")):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found.append((module, ast.parse(path.read_text(), str(path))))
    return found


@functools.cache
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


@functools.cache
def module_trees() -> dict[str, ast.Module]:
    trees = {}
    for package in layers():
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            trees[name] = ast.parse(path.read_text(), str(path))
    return trees


def imported_names(tree: ast.Module) -> dict[str, str]:
    """What each name a module imports stands for: `from a import b` makes `b` stand for `a.b`."""
    return {
        alias.asname or alias.name: f"{node.module}.{alias.name}"
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
        for alias in node.names
    }


def definition(path: str, trees: dict[str, ast.Module]) -> ast.FunctionDef | None:
    """The function a dotted path names, through a package's re-exports."""
    module, _, name = path.rpartition(".")
    tree = trees.get(module)
    if tree is None:
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    again = imported_names(tree).get(name)
    return definition(again, trees) if again and again != path else None


def required_actions(function: ast.AST) -> set[str]:
    """The actions `function` requires itself: `....require(Action.X)`."""
    return {
        node.args[0].attr
        for node in ast.walk(function)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "require"
        and node.args
        and isinstance(node.args[0], ast.Attribute)
        and isinstance(node.args[0].value, ast.Name)
        and node.args[0].value.id == "Action"
    }


def called_paths(function: ast.AST, names: dict[str, str]) -> set[str]:
    """The dotted paths of what `function` calls by an imported name (`f()`, `module.f()`)."""
    paths = set()
    for node in ast.walk(function):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name) and node.func.id in names:
            paths.add(names[node.func.id])
        elif (
            isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in names
        ):
            paths.add(f"{names[node.func.value.id]}.{node.func.attr}")
    return paths


def adapters(module: str, tree: ast.Module) -> Iterator[tuple[str, list[ast.AST]]]:
    """The transports' adapters over the services: each REST view of an app's `api.py` (a class,
    with the classes of that module it derives from) and each learn/* handler (`handlers.py`)."""
    if module.endswith(".handlers"):
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                yield node.name, [node]
    if not module.endswith(".api"):
        return
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    for view in classes.values():
        lineage: list[ast.AST] = [view]
        base = view
        while (names := [b.id for b in base.bases if isinstance(b, ast.Name)]) and (
            names[0] in classes
        ):
            base = classes[names[0]]
            lineage.append(base)
        yield view.name, lineage


def adapters_checking_twice() -> list[str]:
    """`adapter: action` for each REST view or learn/* handler that requires an action which a
    service it calls requires too."""
    trees = module_trees()
    twice = []
    for module, tree in trees.items():
        names = imported_names(tree)
        for name, nodes in adapters(module, tree):
            checked = set().union(*(required_actions(node) for node in nodes))
            for path in set().union(*(called_paths(node, names) for node in nodes)):
                service = definition(path, trees)
                again = required_actions(service) if service is not None else set()
                for action in sorted(checked & again):
                    twice.append(f"{module}.{name}: {action} (also {path})")
    return sorted(twice)


def test_an_action_is_checked_by_its_service_or_by_the_adapter_never_both() -> None:
    assert adapters_checking_twice() == []


def test_one_module_writes_and_reads_a_broadcasts_audience() -> None:
    """core.events writes it (Topic.message) and reads it against the roles (`may_hear`): no
    consumer parses it again."""
    readers = {
        name.rpartition(".")[0]
        for name, function in functions()
        if any(
            isinstance(node, ast.Constant) and node.value == "audience"
            for node in ast.walk(function)
        )
    }
    assert readers == {"core.events"}


def test_one_watch_ends_every_long_lived_connection_whose_credential_dies() -> None:
    """Sockets and streams watch their credential through core.accounts.watch: nothing else
    asks the principal cache to watch, or polls it on the cache's TTL."""
    watchers = [
        name
        for name, function in functions()
        for node in ast.walk(function)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "watch"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "principals"
    ]
    assert watchers == ["core.accounts.watch.start"]
    pollers = sorted(
        name.rpartition(".")[0]
        for name, function in functions()
        if any(isinstance(n, ast.Name) and n.id == "PRINCIPAL_TTL" for n in ast.walk(function))
    )
    assert set(pollers) <= {"core.accounts.credentials"}


SQL = re.compile(
    r"\b(SELECT|INSERT INTO|UPDATE|DELETE FROM|ON CONFLICT|WHERE|SET|GROUP BY|ORDER BY|VALUES|"
    r"RETURNING|JOIN|AND|THEN)\b|[=+] %s"
)
IDENTIFIER = re.compile(r"(?<![\w%])[a-z_][a-z0-9_]*\b")


def model_columns() -> set[str]:
    """Every column of the tree's models but the implicit primary key, which SQL may name."""
    from django.apps import apps

    return {
        str(field.column)
        for model in apps.get_models()
        if model.__module__.split(".")[0] in layers()
        for field in model._meta.concrete_fields
    } - {"id"}


def raw_sql_modules() -> Iterator[tuple[str, ast.Module]]:
    """The modules of the base and the apps, whose SQL should name columns from the models: not
    the models themselves, nor migrations (which must not follow today's models)."""
    kinds = layers()
    for module, tree in module_trees().items():
        parts = module.split(".")
        if kinds[parts[0]] not in ("base", "app") or "migrations" in parts or parts[-1] == "models":
            continue
        yield module, tree


def literal_texts(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Each string literal's text (an f-string's literal parts), but docstrings."""
    inside = {
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for part in node.values
    }
    bare = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    for node in ast.walk(tree):
        if id(node) in bare:
            continue
        if isinstance(node, ast.JoinedStr):
            yield (
                node.lineno,
                " ".join(str(part.value) for part in node.values if isinstance(part, ast.Constant)),
            )
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in inside
        ):
            yield node.lineno, node.value


def test_raw_sql_takes_its_columns_from_the_models() -> None:
    columns = model_columns()
    by_hand = [
        f"{module}:{line}: {', '.join(sorted(named))}"
        for module, tree in raw_sql_modules()
        for line, text in literal_texts(tree)
        if SQL.search(text) and (named := set(IDENTIFIER.findall(text)) & columns)
    ]
    assert by_hand == []


def test_column_lists_are_read_from_the_models() -> None:
    """A tuple of column names, as the bulk writes take them, is `Columns(Model)(...)`'s."""
    columns = model_columns()
    by_hand = [
        f"{module}:{node.lineno}"
        for module, tree in raw_sql_modules()
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign | ast.Call)
        for value in (node.args if isinstance(node, ast.Call) else [node.value])
        if isinstance(value, ast.Tuple | ast.List)
        and len(value.elts) >= 2
        and all(isinstance(e, ast.Constant) and e.value in columns for e in value.elts)
        and (isinstance(node, ast.Call) or "COLUMNS" in ast.unparse(node.targets[0]).upper())
    ]
    assert by_hand == []
