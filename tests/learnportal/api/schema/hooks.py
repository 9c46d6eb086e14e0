"""What schemathesis cannot learn from the OpenAPI document, said once for pytest and the CLI.

The in-process run (test_openapi_truth.py) imports this module; a run from outside loads it with
    SCHEMATHESIS_HOOKS=tests.learnportal.api.schema.hooks schemathesis run http://HOST:PORT/api/schema/ \\
        --checks all -H "Authorization: Bearer <an admin's token>"

One kind of failure is dropped, only where its own trigger is in the request: a schema-valid
request refused by a rule that JSON Schema cannot state (one that reads the stored state, or ties
the body to a path parameter; an integer written as 93.0, which JSON Schema counts as an integer
and the strict models refuse; and free JSON the database cannot keep exactly, an integer wider
than 64 bits, say, which JSON Schema cannot tell from a number). Only a 400 whose every detail
names such a rule is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
import schemathesis

from learnportal_protocol import freejson

STEP_RULE_FIELDS = ("step_id", "parent_id", "end", "attributes")


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
    *(
        Rule(
            "POST /api/turns/",
            loc,
            "a turn's steps are a tree of unique ids, within LEARNPORTAL_MAX_STEPS and "
            "LEARNPORTAL_MAX_STEP_DEPTH counting the steps stored before; a step ends no earlier "
            "than it starts, and its attributes fit LEARNPORTAL_MAX_STEP_ATTRIBUTES_BYTES",
        )
        for loc in (
            ("turns", None, "steps"),
            *(("turns", None, "steps", None, field) for field in STEP_RULE_FIELDS),
        )
    ),
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
        "GET /api/feedback/",
        ("cursor",),
        "a cursor is one the host signed (from a page's next): no pattern tells those apart",
    ),
    Rule(
        "POST /api/proposals/{proposal_id}/reject/",
        ("reason",),
        "a rejection's reason is not blank: its pattern refuses the common whitespace, but "
        "Python's str.strip() strips more (\\x1c-\\x1f) than a portable pattern names",
    ),
    Rule(
        "POST /api/reviews/",
        ("reason",),
        "a rejection's reason is not blank, as a proposal's rejection's (str.strip() strips "
        "more than a portable pattern names)",
    ),
    Rule(
        "POST /api/webhooks/",
        ("url",),
        "an endpoint's host resolves to public addresses only (DNS says so, not a pattern), "
        "and its port is 1 to 65535",
    ),
    *(
        Rule(
            "PUT /api/projects/{slug}/rubric/",
            loc,
            "a rubric's questions are read by their kind, with rules across their fields (a "
            "range, a grid, unique keys and hotkeys, the page's own keys) and against the "
            "answers stored: the schema leaves them free, and the preference names one of them",
        )
        for loc in (
            ("questions",),
            ("questions", None),
            ("questions", None, None),
            ("questions", None, None, None),
            ("preference",),
        )
    ),
    Rule(
        "PUT /api/projects/{slug}/guidelines/",
        ("questions",),
        "the questions' guidelines are bounded in all as well as each (no JSON Schema keyword "
        "sums the lengths of an object's values)",
    ),
    Rule(
        "POST /api/comparisons/",
        ("comparisons", None, "candidates"),
        "a comparison holds at most LEARNPORTAL_MAX_CANDIDATES candidates, a setting",
    ),
    Rule(
        "POST /api/comparisons/",
        ("comparisons", None, "candidates", None, "turn"),
        "a candidate's turn is one stored in the project, of the comparison's prompt, and once "
        "in the comparison",
    ),
    *(
        Rule(
            "POST /api/comparisons/{comparison}/judgments/",
            loc,
            "a preference is of a stored comparison of two candidates, a ranking names each of "
            "its candidates once",
        )
        for loc in (("preference",), ("ranking",))
    ),
    *(
        Rule(
            "POST /api/queue/next/",
            loc,
            "one unit at a time: `steps` or `sessions`, and `kind=comparison` with neither",
        )
        for loc in (("kind",), ("sessions",))
    ),
    *(
        Rule(
            "PUT /api/turns/{id}/gold/",
            loc,
            "a gold item's answers are read against the project's rubric (its keys, kinds, "
            "ranges and options), which the schema leaves free",
        )
        for loc in (("answers",), ("answers", None))
    ),
    *(
        Rule(
            operation,
            loc,
            "the people an assignment names are members of the project, each named once; its "
            "rule is one of the project's stored intake rules, and no component beside it",
        )
        for operation in ("POST /api/queue-assignments/", "PUT /api/queue-assignments/{id}/")
        for loc in (("usernames", None), ("rule",))
    ),
    *(
        Rule(operation, ("score_max",), "an intake rule's score_max is at least its score_min")
        for operation in ("POST /api/intake-rules/", "PUT /api/intake-rules/{id}/")
    ),
    Rule(
        "POST /api/judges/marked/",
        ("username",),
        "the person marked as a judge is a member of the project",
    ),
    Rule(
        "PUT /api/comparisons/{comparison}/gold/",
        ("best",),
        "a gold comparison's best is one of its stored candidates",
    ),
    Rule(
        "POST /api/learn/",
        ("feedbacks", None, "correction_span"),
        "a correction_span [start, end] has start <= end <= the rated response's length",
    ),
]


def _body(case: schemathesis.Case[Any]) -> Any:
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


def unstorable_free_json(detail: dict[str, Any]) -> bool:
    return detail["msg"] in freejson.MESSAGES


def beyond_the_schema(operation: str, case: schemathesis.Case[Any], response: Any) -> bool:
    if response.status_code != 400:
        return False
    try:
        details = orjson.loads(response.content).get("details") or []
    except (orjson.JSONDecodeError, AttributeError):
        return False
    body = _body(case)
    return bool(details) and all(
        integer_written_as_float(body, detail)
        or unstorable_free_json(detail)
        or any(rule.names(operation, detail["loc"]) for rule in BEYOND_THE_SCHEMA)
        for detail in details
    )


@schemathesis.hook
def filter_failure(
    context: schemathesis.HookContext, failure: Any, case: schemathesis.Case[Any], response: Any
) -> bool:
    operation = case.operation.label
    return not (failure.code == "ST202" and beyond_the_schema(operation, case, response))
