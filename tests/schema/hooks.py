"""What schemathesis cannot learn from the OpenAPI document, said once for pytest and the CLI.

The in-process run (test_openapi_truth.py) imports this module; a run from outside loads it with
    SCHEMATHESIS_HOOKS=tests.schema.hooks schemathesis run http://HOST:PORT/api/schema/ \\
        --checks all -H "Authorization: Bearer <an admin's token>"

Two kinds of failure are dropped, each only where its own trigger is in the request:
- BEYOND_THE_SCHEMA: a schema-valid request refused by a rule that JSON Schema cannot state
  (one that reads the stored state, or ties the body to a path parameter; and an integer
  written as 93.0, which JSON Schema counts as an integer and the strict models refuse). Only
  a 400 whose every detail names such a rule's field is dropped.
- KNOWN_ISSUES: requests the protocol's strict parsing does not refuse yet, so that they reach
  the database (the lead's change to learnportal/protocol). Each has a strict xfail in
  test_known_issues.py; when that test passes, delete its entry here and its mark there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson
import schemathesis

INT64_MIN, UINT64_MAX = -(2**63), 2**64 - 1


@dataclass(frozen=True)
class Rule:
    operation: str
    loc: tuple[str | None, ...]  # None matches any one part (an index)
    why: str

    def names(self, operation: str, loc: list[Any]) -> bool:
        return (
            operation == self.operation
            and len(loc) == len(self.loc)
            and all(want is None or want == got for want, got in zip(self.loc, loc, strict=True))
        )


BEYOND_THE_SCHEMA = [
    Rule(
        "PUT /api/steps/{step_id}/",
        ("review_notes",),
        "locking a step needs review_notes only when the stored step is not locked yet",
    ),
    Rule(
        "PUT /api/steps/{step_id}/",
        ("learning_objective",),
        "read-write needs a learning_objective unless the stored step has one",
    ),
    Rule(
        "POST /api/steps/{step_id}/runs/",
        ("edits", None, "path"),
        "a run writes only into the folder of the step in its URL (or _global)",
    ),
    Rule(
        "POST /api/steps/{step_id}/runs/",
        ("edits", None, "proposal_id"),
        "a run files new proposals: a proposal_id already stored is refused",
    ),
    Rule(
        "POST /api/learn/",
        ("feedbacks", None, "correction_span"),
        "a correction_span [start, end] has start <= end <= the rated response's length",
    ),
]


def _walk(value: Any) -> Any:
    yield value
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def wide_integer(body: Any) -> bool:
    return any(
        isinstance(v, int) and not isinstance(v, bool) and not INT64_MIN <= v <= UINT64_MAX
        for v in _walk(body)
    )


def nul_character(body: Any) -> bool:
    return any(isinstance(v, str) and "\x00" in v for v in _walk(body))


# Protocol strings stored in shorter columns (feedback.models, refinement.models).
COLUMNS = {"model": 200, "version": 200, "component_name": 200, "scope": 64}


def over_its_column(body: Any) -> bool:
    def over(value: Any) -> bool:
        return isinstance(value, dict) and any(
            isinstance(value.get(key), str) and len(value[key]) > size
            for key, size in COLUMNS.items()
        )

    return any(over(v) for v in _walk(body))


@dataclass(frozen=True)
class KnownIssue:
    why: str
    statuses: frozenset[int]
    trigger: Callable[[Any], bool]


KNOWN_ISSUES = [
    KnownIssue(
        "an integer wider than 64 bits in free JSON (environment, state, input) passes "
        "parsing and fails when stored (orjson: Integer exceeds 64-bit range): a 500",
        frozenset({500}),
        wide_integer,
    ),
    KnownIssue(
        "a NUL character in a string: PostgreSQL text cannot hold it, a 503",
        frozenset({503}),
        nul_character,
    ),
    KnownIssue(
        "a string longer than its column (RatedTurn.model, a plan's scope): a 503 on PostgreSQL",
        frozenset({503}),
        over_its_column,
    ),
]


def _body(case: schemathesis.Case) -> Any:
    body = case.body
    if isinstance(body, bytes | str):
        try:
            return orjson.loads(body)
        except orjson.JSONDecodeError:
            return None
    return body


def _at(body: Any, loc: list[Any]) -> Any:
    for part in loc:
        try:
            body = body[part]
        except (KeyError, IndexError, TypeError):
            return None
    return body


def integer_written_as_float(body: Any, detail: dict[str, Any]) -> bool:
    """JSON Schema reads 93.0 as an integer; the strict models want it written 93."""
    value = _at(body, detail["loc"])
    return (
        detail["msg"] == "Input should be a valid integer"
        and isinstance(value, float)
        and value.is_integer()
    )


def beyond_the_schema(operation: str, case: schemathesis.Case, response: Any) -> bool:
    if response.status_code != 400:
        return False
    try:
        details = orjson.loads(response.content).get("details") or []
    except (orjson.JSONDecodeError, AttributeError):
        return False
    body = _body(case)
    return bool(details) and all(
        integer_written_as_float(body, detail)
        or any(rule.names(operation, detail["loc"]) for rule in BEYOND_THE_SCHEMA)
        for detail in details
    )


def known_issue(case: schemathesis.Case, response: Any) -> KnownIssue | None:
    body = _body(case)
    return next(
        (i for i in KNOWN_ISSUES if response.status_code in i.statuses and i.trigger(body)),
        None,
    )


@schemathesis.hook
def filter_failure(
    context: schemathesis.HookContext, failure: Any, case: schemathesis.Case, response: Any
) -> bool:
    operation = case.operation.label
    if failure.code == "ST202" and beyond_the_schema(operation, case, response):
        return False
    return known_issue(case, response) is None
