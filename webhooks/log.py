"""An endpoint's delivery log, a page at a time: newest first, by state, with an opaque cursor.

REST (`GET /api/webhooks/<id>/deliveries/`) and the endpoint's page read it through here; a bad
`state`, `limit` or `cursor` is `invalid` naming it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from core.inputs import (
    QueryInt,
    QueryModel,
    QueryText,
    given,
    id_of_signed,
    parse_query,
    signed_id,
)
from webhooks.models import DeliveryState

if TYPE_CHECKING:
    from collections.abc import Mapping

    from webhooks.models import Delivery, Endpoint

PAGE_SIZE = 50
MAX_LIMIT = 500
CURSOR_SALT = "webhooks.log.cursor"


class DeliveryLogQuery(QueryModel):
    state: DeliveryState | None = Field(
        default=None, description="only deliveries in this state: pending, delivered or failed"
    )
    cursor: QueryText = Field(default="", description="opaque: from a page's next")
    limit: QueryInt = Field(default=PAGE_SIZE, ge=1, le=MAX_LIMIT, description="deliveries a page")

    def as_params(self, *, cursor: str = "") -> dict[str, str]:
        """This query's filter and limit as query parameters, with `cursor` if given."""
        params = {"state": self.state.value} if self.state else {}
        params["limit"] = str(self.limit)
        return {**params, "cursor": cursor} if cursor else params


def parse_log_query(params: Mapping[str, str]) -> DeliveryLogQuery:
    return parse_query(DeliveryLogQuery, given(params))


def encode_cursor(pk: int) -> str:
    return signed_id(pk, CURSOR_SALT)


def decode_cursor(cursor: str) -> int | None:
    """The last id of the page before, or None for the first page; else `invalid`."""
    return id_of_signed(cursor, CURSOR_SALT, names="this delivery log")


def log_page(endpoint: Endpoint, query: DeliveryLogQuery) -> tuple[list[Delivery], str | None]:
    """A page of the endpoint's deliveries, newest first, and the cursor of the next (None at
    the end)."""
    rows = endpoint.deliveries.order_by("-id")
    if query.state is not None:
        rows = rows.filter(state=query.state)
    after = decode_cursor(query.cursor)
    if after is not None:
        rows = rows.filter(pk__lt=after)
    found = list(rows[: query.limit + 1])
    page = found[: query.limit]
    return page, encode_cursor(page[-1].pk) if len(found) > query.limit else None
