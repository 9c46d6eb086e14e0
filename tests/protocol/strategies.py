"""Hypothesis strategies for the learn/* models, read off the models' own fields.

`instances(Model)` draws valid instances: each field's type and bounds (min/max length, ge/le/gt)
come from the pydantic field, fields with a default are sometimes left out, and free JSON
(`Any`, `dict[str, Any]`) is small nested JSON. Draws that a model validator refuses (a
corrective feedback without a correction) are discarded; a correction span is drawn inside its
response so that few are.
"""

from __future__ import annotations

import types
import typing
from enum import Enum
from typing import Any

import annotated_types
import orjson
from hypothesis import assume
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from learnportal_protocol.models import Feedback

# JSON a client may send: finite floats, 64-bit integers, short text.
INT64 = 2**63 - 1
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-INT64, INT64)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
json_objects = st.dictionaries(st.text(max_size=8), json_values, max_size=3)


def _bounds(metadata: list[Any]) -> dict[str, Any]:
    bounds: dict[str, Any] = {}
    for item in metadata:
        for name in ("min_length", "max_length", "ge", "le", "gt", "lt"):
            if getattr(item, name, None) is not None:
                bounds[name] = getattr(item, name)
        if isinstance(item, annotated_types.Interval):
            bounds.update({k: v for k, v in vars(item).items() if v is not None})
    return bounds


def for_type(annotation: Any, metadata: list[Any] | None = None) -> st.SearchStrategy[Any]:
    """A strategy of JSON-mode values that the annotation accepts, within its bounds."""
    metadata = list(metadata or [])
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        inner, *extra = typing.get_args(annotation)
        extra_metadata = [m.metadata if isinstance(m, FieldInfo) else [m] for m in extra]
        return for_type(inner, metadata + [m for ms in extra_metadata for m in ms])
    if origin in (typing.Union, types.UnionType):
        return st.one_of([for_type(arg, metadata) for arg in typing.get_args(annotation)])
    if origin is typing.Literal:
        return st.sampled_from(typing.get_args(annotation))
    if origin is list:
        (item,) = typing.get_args(annotation)
        return st.lists(for_type(item), max_size=3)
    if origin is dict:
        return json_objects
    if origin is tuple:
        return st.tuples(*(for_type(arg) for arg in typing.get_args(annotation))).map(list)
    if annotation is Any:
        return json_values
    if annotation is type(None):
        return st.none()
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return st.sampled_from([member.value for member in annotation])
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return instances(annotation).map(lambda model: model.model_dump(mode="json"))
    bounds = _bounds(metadata)
    if annotation is bool:
        return st.booleans()
    if annotation is str:
        low = bounds.get("min_length", 0)
        return st.text(min_size=low, max_size=min(bounds.get("max_length", 40), low + 40))
    if annotation is int:
        return st.integers(bounds.get("ge", -INT64), bounds.get("le", INT64))
    if annotation is float:
        return st.floats(
            min_value=bounds.get("ge", bounds.get("gt")),
            max_value=bounds.get("le", bounds.get("lt")),
            exclude_min="gt" in bounds,
            exclude_max="lt" in bounds,
            allow_nan=False,
            allow_infinity=False,
        )
    raise NotImplementedError(f"no strategy for {annotation!r}")


def _field(info: FieldInfo) -> st.SearchStrategy[Any]:
    return for_type(info.annotation, info.metadata)


@st.composite
def wire_dicts(draw: st.DrawFn, model: type[BaseModel]) -> dict[str, Any]:
    """A JSON object for `model`: every required field, and some of those with a default."""
    data = {}
    for name, info in model.model_fields.items():
        if not info.is_required() and not draw(st.booleans()):
            continue
        data[name] = draw(_field(info))
    if model is Feedback:
        data = draw(_spanned(data))
    return data


@st.composite
def _spanned(draw: st.DrawFn, data: dict[str, Any]) -> dict[str, Any]:
    """A feedback's correction_span, if any, inside its rated response."""
    data.pop("correction_span", None)
    turn = data.get("rated_turn")
    if turn is not None and draw(st.booleans()):
        end = draw(st.integers(0, len(turn["response"])))
        data["correction_span"] = [draw(st.integers(0, end)), end]
    return data


@st.composite
def instances(draw: st.DrawFn, model: type[BaseModel]) -> BaseModel:
    """A valid instance, parsed from JSON as a client would send it."""
    data = draw(wire_dicts(model))
    try:
        return model.model_validate_json(orjson.dumps(data))
    except ValidationError:
        assume(False)
        raise  # unreachable: assume(False) raises
