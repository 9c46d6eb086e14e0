"""The explorer's filters (docs/contract.md, "Explorer"), stated once for `GET /api/feedback/`,
the explorer page, the exports and the export commands, and the explorer's opaque cursor.

An empty value is no filter (what a page's form sends for a field left blank); any other value
that is not one of the filter's is `invalid`, naming it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.core import signing
from pydantic import Field

from core.inputs import (
    BAD_CURSOR,
    QueryBool,
    QueryInt,
    QueryModel,
    QueryText,
    given,
    id_of_signed,
    parse_query,
    signed_id,
)
from learnportal_protocol import FeedbackDimension, FeedbackPolarity, FeedbackSource
from learnportal_protocol.errors import invalid
from learnportal_protocol.models import Timestamp

if TYPE_CHECKING:
    from collections.abc import Mapping

MAX_LIMIT = 500
CURSOR_SALT = "feedback.explorer.cursor"
TURNS_CURSOR_SALT = "feedback.turns.cursor"  # the turn list's: an explorer cursor is none of it

# (ts, id) of the last feedback of a page: the next page starts below it.
Position = tuple[float, int]


class FeedbackFilters(QueryModel):
    source: FeedbackSource | None = Field(default=None, description="human, env or self")
    polarity: FeedbackPolarity | None = None
    dimension: FeedbackDimension | None = None
    component: QueryText = Field(default="", description="the component a feedback rates")
    annotator: QueryText = Field(default="", description="an annotator_id")
    since: Timestamp | None = Field(default=None, description="ts at or after (epoch seconds)")
    until: Timestamp | None = Field(default=None, description="ts before (epoch seconds)")
    has_correction: QueryBool | None = Field(
        default=None, description="true: only feedback with a correction; false: only without"
    )
    correlation_id: QueryText = ""

    def as_params(self) -> dict[str, str]:
        """The filters that are set, as query parameters (for links that keep them)."""
        params: dict[str, str] = {}
        dumped = self.model_dump(
            include=set(FeedbackFilters.model_fields), exclude_none=True, mode="json"
        )
        for name, value in dumped.items():
            if value == "":
                continue
            params[name] = ("true" if value else "false") if isinstance(value, bool) else str(value)
        return params


class FeedbackQuery(FeedbackFilters):
    cursor: str = Field(
        default="", pattern=r"^[A-Za-z0-9_:.\-]*$", description="opaque: from a page's next"
    )
    limit: QueryInt = Field(default=50, ge=1, le=MAX_LIMIT, description="feedbacks a page")


def parse_filters(params: Mapping[str, str]) -> FeedbackFilters:
    return parse_query(FeedbackFilters, given(params))


def parse_feedback_query(params: Mapping[str, str]) -> FeedbackQuery:
    return parse_query(FeedbackQuery, given(params))


def encode_cursor(position: Position) -> str:
    ts, pk = position
    return signing.dumps([ts, pk], salt=CURSOR_SALT)


def encode_turn_cursor(pk: int) -> str:
    """The turn list's cursor: the id of a page's last turn, signed."""
    return signed_id(pk, TURNS_CURSOR_SALT)


def decode_turn_cursor(cursor: str) -> int | None:
    """The turn id a turn list's cursor names, or None for none; any other is `invalid`."""
    return id_of_signed(cursor, TURNS_CURSOR_SALT)


def decode_cursor(cursor: str) -> Position | None:
    """The position a cursor names, or None for no cursor; a cursor the host did not sign (or
    one tampered with) is `invalid`, naming `cursor`."""
    if not cursor:
        return None
    try:
        value: Any = signing.loads(cursor, salt=CURSOR_SALT)
    except signing.BadSignature:
        value = None
    if (
        isinstance(value, list)
        and len(value) == 2
        and isinstance(value[0], int | float)
        and isinstance(value[1], int)
        and not isinstance(value[1], bool)
    ):
        return float(value[0]), value[1]
    raise invalid(
        "The cursor names no page of this list.", [{"loc": ["cursor"], "msg": BAD_CURSOR}]
    )
