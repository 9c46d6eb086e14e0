"""The worker sends each outbox row signed per Standard Webhooks, at least once, with backoff."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import pytest
from django.core.management import call_command
from standardwebhooks import Webhook, WebhookVerificationError

from tests.builders import feedback, feedback_req
from tests.factories import EndpointFactory
from tests.harness import Actor, http_send, ok
from webhooks.delivery import backoff_seconds, client
from webhooks.models import Delivery, DeliveryState
from webhooks.services import redeliver
from webhooks.worker import deliver_due

if TYPE_CHECKING:
    from tests.webhooks.receiver import Receiver

pytestmark = pytest.mark.django_db


def register(receiver: Receiver, url: str = "") -> str:
    return EndpointFactory.create(url=url or receiver.url, events=["feedback.recorded"]).secret


def deliver(now: float | None = None) -> int:
    with client() as http:
        return deliver_due(http, now=now)


def test_a_delivery_verifies_with_the_standardwebhooks_package(
    env: Actor, receiver: Receiver
) -> None:
    secret = register(receiver)
    ok(http_send(env, feedback_req(feedback(component_name="c"), feedback(component_name="c"))))
    assert receiver.received == []  # nothing is sent in the request: only the worker sends
    assert deliver() == 1
    (got,) = receiver.received
    event = Webhook(secret).verify(got.body, got.headers)
    assert event["type"] == "feedback.recorded"
    assert event["data"]["count"] == 2
    delivery = Delivery.objects.get()
    assert got.headers["webhook-id"] == delivery.message_id
    assert (delivery.state, delivery.attempts, delivery.last_status) == ("delivered", 1, 200)
    assert deliver() == 0  # delivered once, never again by itself


def test_a_wrong_secret_or_a_changed_body_fails_verification(
    env: Actor, receiver: Receiver
) -> None:
    register(receiver)
    ok(http_send(env, feedback_req(feedback(component_name="c"))))
    deliver()
    (got,) = receiver.received
    other = EndpointFactory.create(url=receiver.url).secret
    with pytest.raises(WebhookVerificationError):
        Webhook(other).verify(got.body, got.headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(register(receiver, receiver.url + "/other")).verify(
            got.body.replace("c", "d"), got.headers
        )


def test_a_failure_is_retried_later_with_the_same_id_and_backs_off_to_the_cap(
    env: Actor, receiver: Receiver, settings: Any
) -> None:
    settings.LEARNPORTAL_WEBHOOK_BACKOFF_SECONDS = 10.0
    settings.LEARNPORTAL_WEBHOOK_BACKOFF_CAP_SECONDS = 60.0
    assert [backoff_seconds(n) for n in (1, 2, 3, 4, 5)] == [10, 20, 40, 60, 60]
    register(receiver)
    receiver.status = 503
    ok(http_send(env, feedback_req(feedback(component_name="c"))))
    start = time.time()
    deliver(start)
    row = Delivery.objects.get()
    assert (row.state, row.attempts, row.last_status) == ("pending", 1, 503)
    assert row.next_attempt_at >= start + 10
    assert deliver(start + 5) == 0  # not due yet
    receiver.status = 204
    assert deliver(row.next_attempt_at + 1) == 1
    row.refresh_from_db()
    assert (row.state, row.attempts, row.last_status) == ("delivered", 2, 204)
    assert receiver.ids() == [row.message_id, row.message_id]


def test_after_the_most_attempts_a_delivery_fails_and_a_redeliver_sends_it_again(
    env: Actor, receiver: Receiver, settings: Any
) -> None:
    settings.LEARNPORTAL_WEBHOOK_MAX_ATTEMPTS = 2
    settings.LEARNPORTAL_WEBHOOK_BACKOFF_SECONDS = 0.0
    register(receiver)
    receiver.status = 500
    ok(http_send(env, feedback_req(feedback(component_name="c"))))
    deliver()
    deliver()
    row = Delivery.objects.get()
    assert (row.state, row.attempts) == (DeliveryState.FAILED, 2)
    assert deliver() == 0
    receiver.status = 200
    redeliver(row.endpoint, row.pk)
    assert deliver() == 1
    row.refresh_from_db()
    assert row.state == DeliveryState.DELIVERED
    assert len(set(receiver.ids())) == 1 and len(receiver.ids()) == 3


def test_a_redirect_is_not_followed(env: Actor, receiver: Receiver) -> None:
    register(receiver)
    receiver.status, receiver.location = 307, receiver.url + "/elsewhere"
    ok(http_send(env, feedback_req(feedback(component_name="c"))))
    deliver()
    assert len(receiver.received) == 1
    row = Delivery.objects.get()
    assert (row.state, row.last_status, row.last_error) == (
        "pending",
        307,
        "a redirect, not followed",
    )


def test_a_slow_endpoint_times_out_as_a_failed_attempt(
    env: Actor, receiver: Receiver, settings: Any
) -> None:
    settings.LEARNPORTAL_WEBHOOK_TIMEOUT_SECONDS = 0.2
    register(receiver)
    receiver.delay = 1.0
    ok(http_send(env, feedback_req(feedback(component_name="c"))))
    deliver()
    row = Delivery.objects.get()
    assert (row.state, row.last_error) == ("pending", "timed out")


def test_the_worker_command_once_sends_what_is_due(env: Actor, receiver: Receiver) -> None:
    register(receiver)
    ok(http_send(env, feedback_req(feedback(component_name="c"))))
    call_command("webhooks_worker", "--once")
    assert len(receiver.received) == 1
