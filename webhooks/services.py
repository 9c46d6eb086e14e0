"""Endpoints and deliveries: the one place they are registered, removed and redelivered.

The REST views and the admins' pages both call these. Refusals are `LearnError`s naming the
field, as in accounts.services. An endpoint belongs to one project (by id here, the project the
request acts in): it is listed, found, and sent events only in that project, and another
project's endpoint is `not_found` as one that does not exist.
"""

from __future__ import annotations

import time
from urllib.parse import urlsplit

from django.db import connection, transaction

from learnportal_protocol.errors import conflict, detail, invalid, not_found
from webhooks.addresses import Refused, check_url
from webhooks.catalogue import EVENTS
from webhooks.models import Delivery, DeliveryState, Endpoint
from webhooks.outbox import subscriptions_changed
from webhooks.signing import new_secret

URL_LENGTH = 2000
DESCRIPTION_LENGTH = 200


def endpoint_register(
    *, project: int, url: str, events: list[str], description: str = "", actor: str
) -> tuple[Endpoint, str]:
    """A new endpoint of the project `project` and its secret, which the caller shows once."""
    url = url.strip()
    if not url or len(url) > URL_LENGTH:
        raise invalid(
            f"url is 1 to {URL_LENGTH} characters.", [detail(["url"], "1 to 2000 characters")]
        )
    try:
        check_url(url)
    except Refused as refusal:
        raise invalid(str(refusal), [detail(["url"], str(refusal))]) from None
    unknown = sorted(set(events) - set(EVENTS))
    if not events or unknown:
        words = ", ".join(EVENTS)
        raise invalid(
            f"events is a non-empty list of {words}.",
            [detail(["events"], f"unknown events: {', '.join(unknown)}" if unknown else "empty")],
        )
    if len(description) > DESCRIPTION_LENGTH:
        raise invalid(
            f"description is at most {DESCRIPTION_LENGTH} characters.",
            [detail(["description"], f"at most {DESCRIPTION_LENGTH} characters")],
        )
    chosen = [e for e in EVENTS if e in events]
    secret = new_secret()
    with transaction.atomic():
        _refuse_duplicate(project, url, chosen)
        endpoint = Endpoint.objects.create(
            project_id=project,
            url=url,
            events=chosen,
            secret=secret,
            description=description,
            created_by=actor,
        )
        subscriptions_changed()
    return endpoint, secret


def same_url(url: str) -> str:
    """What makes two URLs one receiver: the scheme and host in any case, the rest as typed."""
    parts = urlsplit(url)
    return parts._replace(scheme=parts.scheme.lower(), netloc=parts.netloc.lower()).geturl()


def _refuse_duplicate(project: int, url: str, events: list[str]) -> None:
    """An endpoint of the project already sending one of `events` to this URL would make every
    one of them arrive twice (a form posted again, a script run twice): `conflict`, naming
    `url`. Another project's endpoint sends other events, and its id is not shown here."""
    if connection.vendor == "postgresql":
        # Two registrations at once must not both pass the check; SQLite's IMMEDIATE
        # transactions already run one after the other.
        with connection.cursor() as cursor:
            cursor.execute(f"LOCK TABLE {Endpoint._meta.db_table} IN SHARE ROW EXCLUSIVE MODE")
    key = same_url(url)
    for other in Endpoint.objects.filter(project_id=project).order_by("id"):
        shared = [e for e in events if e in other.events]
        if shared and same_url(other.url) == key:
            why = f"already registered for {', '.join(shared)} (endpoint {other.pk})"
            raise conflict(
                f"{url} is {why}: remove that endpoint, or choose other events.",
                [detail(["url"], why)],
            )


def endpoint_get(endpoint_id: int, *, project: int) -> Endpoint:
    """The project's endpoint `endpoint_id`; `not_found` for none, or another project's."""
    endpoint = Endpoint.objects.filter(pk=endpoint_id, project_id=project).first()
    if endpoint is None:
        raise not_found(f"No webhook endpoint {endpoint_id}.")
    return endpoint


def endpoint_delete(endpoint: Endpoint) -> None:
    """Remove an endpoint with its outbox and log: nothing more is sent to it."""
    with transaction.atomic():
        endpoint.delete()
        subscriptions_changed()


def endpoints_list(*, project: int) -> list[Endpoint]:
    return list(Endpoint.objects.filter(project_id=project))


def redeliver(endpoint: Endpoint, delivery_id: int) -> Delivery:
    """Send a delivery again, with the same webhook-id (so that a receiver may dedupe), now."""
    with transaction.atomic():
        delivery = endpoint.deliveries.select_for_update().filter(pk=delivery_id).first()
        if delivery is None:
            raise not_found(f"No delivery {delivery_id} for webhook endpoint {endpoint.pk}.")
        if delivery.state == DeliveryState.PENDING and delivery.attempts == 0:
            raise conflict(f"Delivery {delivery_id} has not been attempted yet.")
        delivery.state = DeliveryState.PENDING
        delivery.attempts = 0
        delivery.next_attempt_at = time.time()
        delivery.save(update_fields=["state", "attempts", "next_attempt_at"])
    return delivery
