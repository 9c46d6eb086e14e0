"""What `/api/webhooks/` answers, each answer one pydantic model built from its row by `.of()`.

A REST view returns `Answer.of(...).model_dump(mode="json")` and gives the same class to
`extend_schema`, so that the OpenAPI document is the model's JSON schema. An endpoint's secret is
in the answer that creates it (`EndpointCreated`), and in no other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Self, cast

from pydantic import Field

from learnportal_protocol.models import Answer
from webhooks.catalogue import Event
from webhooks.models import DeliveryState

if TYPE_CHECKING:
    from collections.abc import Iterable

    from webhooks.models import Delivery, Endpoint


class EndpointAnswer(Answer):
    id: int
    url: str
    events: list[Event]
    description: str
    created_by: str
    created_at: float

    @classmethod
    def of(cls, endpoint: Endpoint) -> Self:
        """The endpoint's fields of this answer, read from the row by name."""
        return cls.model_validate(endpoint, from_attributes=True)


class EndpointCreated(EndpointAnswer):
    secret: str = Field(
        description="whsec_<base64>: verify each webhook's signature with it. Shown only now."
    )


class EndpointList(Answer):
    results: list[EndpointAnswer]

    @classmethod
    def of(cls, endpoints: Iterable[Endpoint]) -> EndpointList:
        return cls(results=[EndpointAnswer.of(endpoint) for endpoint in endpoints])


class DeliveryAnswer(Answer):
    id: int
    event: Event
    webhook_id: str
    state: DeliveryState
    attempts: int
    created_at: float
    next_attempt_at: float | None
    last_attempt_at: float | None
    last_status: int | None
    last_error: str
    delivered_at: float | None

    @classmethod
    def of(cls, delivery: Delivery) -> DeliveryAnswer:
        pending = delivery.state == DeliveryState.PENDING
        return cls(
            id=delivery.pk,
            event=cast("Event", delivery.event),  # checked by the model, as every field
            webhook_id=delivery.message_id,
            state=DeliveryState(delivery.state),
            attempts=delivery.attempts,
            created_at=delivery.created_at,
            next_attempt_at=delivery.next_attempt_at if pending else None,
            last_attempt_at=delivery.last_attempt_at,
            last_status=delivery.last_status,
            last_error=delivery.last_error,
            delivered_at=delivery.delivered_at,
        )


class DeliveryList(Answer):
    results: list[DeliveryAnswer]
    next: str | None = Field(description="the next page's URL; null on the last page")

    @classmethod
    def of(cls, deliveries: Iterable[Delivery], following: str | None) -> DeliveryList:
        return cls(results=[DeliveryAnswer.of(d) for d in deliveries], next=following)
