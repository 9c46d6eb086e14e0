"""What the REST views accept, stated once for parsing and for the OpenAPI document.

Query parameters: a view declares `class XQuery(QueryModel)`, passes `query_parameters(XQuery)` to its
`extend_schema`, and reads `parse_query(XQuery, request.query_params)`; so the OpenAPI document
states exactly the types, limits and patterns the view enforces, and a bad value is `invalid`
naming the parameter. Parameters the model does not name are ignored (DRF's `format`, say).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from django.core import signing
from drf_spectacular.utils import OpenApiParameter
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from learnportal_protocol.errors import LearnError, detail, invalid
from learnportal_protocol.wire import invalid_from

if TYPE_CHECKING:
    from collections.abc import Mapping

WHOLE_NUMBER = re.compile(r"-?[0-9]{1,18}")
TRUE, FALSE = frozenset({"true", "1"}), frozenset({"false", "0"})


def _whole_number(value: Any) -> Any:
    if isinstance(value, str):
        if not WHOLE_NUMBER.fullmatch(value):
            raise ValueError("must be a whole number")
        return int(value)
    return value


def _flag(value: Any) -> Any:
    if isinstance(value, str):
        if value in TRUE:
            return True
        if value in FALSE:
            return False
        raise ValueError("must be true or false")
    return value


# Query strings carry text; these say what a value must look like, in the schema too.
QueryInt = Annotated[int, BeforeValidator(_whole_number)]
QueryBool = Annotated[bool, BeforeValidator(_flag)]
# PostgreSQL text cannot hold NUL: refuse it here rather than as a database error.
QueryText = Annotated[str, Field(pattern=r"^[^\x00]*$")]

# Some character that `str.strip()` keeps: what the services mean by "not blank", as a pattern
# that pydantic, JSON Schema (ECMA) and Python's `re` read alike.
NOT_BLANK = r"[^\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"

Query = TypeVar("Query", bound="QueryModel")


class QueryModel(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=False, allow_inf_nan=False)


BAD_CURSOR = "not a cursor of this list"
ID_DIGITS = 18  # a row's id as a page posts or links it: a bigint's at most


def posted_id(text: str) -> int | None:
    """The row id a page's form posted (ASCII digits, a bigint's at most), None for any
    other text: what a stranger types there is no id."""
    if not text.isascii() or not text.isdecimal() or len(text) > ID_DIGITS:
        return None
    return int(text)


def signed_id(pk: int, salt: str) -> str:
    """A list's cursor: the id of a page's last row, signed with the list's own salt."""
    return signing.dumps(pk, salt=salt)


def id_of_signed(cursor: str, salt: str, *, names: str = "this list") -> int | None:
    """The row id a cursor of `signed_id` names, None for none; any other is `invalid`."""
    if not cursor:
        return None
    try:
        value: Any = signing.loads(cursor, salt=salt)
    except signing.BadSignature:
        value = None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    raise invalid(f"The cursor names no page of {names}.", [detail(["cursor"], BAD_CURSOR)])


def parse_query(model: type[Query], params: Mapping[str, str]) -> Query:
    """The query parameters the model names (the last value of each), validated."""
    values = {name: params[name] for name in model.model_fields if name in params}
    try:
        return model.model_validate(values)
    except ValidationError as exc:
        raise invalid_from(exc) from None


def given(params: Mapping[str, str]) -> dict[str, str]:
    """The parameters that carry a value (the last of each): a blank one is no filter (what a
    page's form sends for a field left blank)."""
    return {name: params[name] for name in params if params[name] != ""}


def page_query(model: type[Query], params: Mapping[str, str]) -> tuple[Query, dict[str, str]]:
    """A page's query parameters, validated as the API's are: the model, or (if any is bad) its
    defaults and what was wrong, by parameter, for the page to show beside a 400."""
    try:
        return parse_query(model, given(params)), {}
    except LearnError as error:
        problems = {str(d["loc"][-1]): str(d["msg"]) for d in error.details if d.get("loc")}
        return model(), problems or {"query": error.message}


def query_parameters(model: type[QueryModel]) -> list[OpenApiParameter]:
    """OpenAPI query parameters, from the model's own JSON schema."""
    schema = model.model_json_schema(mode="validation")
    required = set(schema.get("required", []))
    parameters = []
    for name, field_schema in schema["properties"].items():
        field_schema = dict(field_schema)
        field_schema.pop("title", None)
        description = field_schema.pop("description", "")
        parameters.append(
            OpenApiParameter(
                name,
                field_schema,
                OpenApiParameter.QUERY,
                required=name in required,
                description=description,
            )
        )
    return parameters
