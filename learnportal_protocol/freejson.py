"""Free JSON the host can store exactly: what `state`, `action.input` and `environment` may hold.

The wire parser keeps integers of any size and reads an overflowing number such as `1e400` as
infinity; the database keeps neither (nor a NUL character in text). Each refusal names the
place inside the value, so that the error details point at it.
"""

from __future__ import annotations

import math
from typing import Any

from learnportal_protocol.fielderror import FieldError

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

Loc = tuple[str | int, ...]

NUL_IN_TEXT = "text may not contain the NUL character (\\u0000)"
NUL_IN_KEY = "a key may not contain the NUL character (\\u0000)"
NOT_FINITE = "a number must be finite"
TOO_WIDE = "an integer must fit in 64 bits"
MESSAGES = frozenset({NUL_IN_TEXT, NUL_IN_KEY, NOT_FINITE, TOO_WIDE})


def wide_integers(value: Any, loc: Loc = ()) -> list[Loc]:
    """The place of every integer wider than 64 bits in `value` (JSON as read), in any field:
    a typed number field takes one as a float, but the request's JSON as sent cannot be kept."""
    kind = type(value)
    if kind is int:
        return [] if INT64_MIN <= value <= INT64_MAX else [loc]
    if kind is dict:
        return [place for key, item in value.items() for place in wide_integers(item, (*loc, key))]
    if kind is list:
        return [
            place
            for index, item in enumerate(value)
            for place in wide_integers(item, (*loc, index))
        ]
    return []


def storable_json(value: Any) -> Any:
    problem = _first_problem(value, ())
    if problem is not None:
        raise FieldError(*problem)
    return value


def _first_problem(value: Any, loc: Loc) -> tuple[Loc, str] | None:
    kind = type(value)
    if kind is str:
        return (loc, NUL_IN_TEXT) if "\x00" in value else None
    if kind is float:
        return None if math.isfinite(value) else (loc, NOT_FINITE)
    if kind is int:
        return None if INT64_MIN <= value <= INT64_MAX else (loc, TOO_WIDE)
    if kind is dict:
        for key, item in value.items():
            if "\x00" in key:
                return (loc, NUL_IN_KEY)
            if type(item) in _SCALARS_OK:
                continue
            problem = _first_problem(item, (*loc, key))
            if problem is not None:
                return problem
        return None
    if kind is list:
        return _list_problem(value, loc)
    return None  # bool and None


_SCALARS_OK = (bool, type(None))


def _list_problem(items: list[Any], loc: Loc) -> tuple[Loc, str] | None:
    # Long lists of numbers (observations, embeddings) are the bulk of free JSON: their bounds
    # say in C whether any is infinite or too wide, so the walk below runs only when one is.
    try:
        low, high = min(items, default=0), max(items, default=0)
    except TypeError:  # mixed kinds: look at each
        pass
    else:
        if (
            type(low) in (int, float, bool)
            and type(high) in (int, float, bool)
            and low >= INT64_MIN
            and high <= INT64_MAX
        ):
            return None
    for index, item in enumerate(items):
        problem = _first_problem(item, (*loc, index))
        if problem is not None:
            return problem
    return None
