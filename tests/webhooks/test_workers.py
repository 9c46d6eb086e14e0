"""Two workers on one outbox send each event once, however slow the receiver: a row is leased
as its own attempt begins, for longer than that attempt can take, since the timeout bounds the
whole attempt and not only each of its reads. A worker sends to several endpoints at once, a
few at most to each, so that a slow endpoint delays no other's deliveries."""

from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

import pytest
from django.db import connection

from tests.factories import DeliveryFactory, EndpointFactory
from tests.webhooks.receiver import Receiver, serve
from webhooks.delivery import LEASE_MARGIN_SECONDS, client, send
from webhooks.models import Delivery, DeliveryState
from webhooks.worker import deliver_due

if TYPE_CHECKING:
    from collections.abc import Iterator

EVENTS = 30
# The workers run in threads of their own, outside a test's transaction.
pytestmark = pytest.mark.django_db(transaction=True)


def queue_events(receiver: Receiver, count: int, *, due: float | None = None) -> None:
    endpoint = EndpointFactory.create(url=receiver.url)
    now = time.time()
    DeliveryFactory.create_batch(
        count, endpoint=endpoint, created_at=now, next_attempt_at=now if due is None else due
    )


def work_until_sent(deadline: float) -> None:
    try:
        with client() as http:
            while time.monotonic() < deadline:
                if Delivery.objects.filter(state=DeliveryState.PENDING).exists():
                    if not deliver_due(http):
                        time.sleep(0.05)
                else:
                    return
    finally:
        connection.close()


def test_two_workers_and_a_slow_receiver_send_each_event_once(
    receiver: Receiver, settings: Any
) -> None:
    timeout = settings.LEARNPORTAL_WEBHOOK_TIMEOUT_SECONDS
    # Each answer well within the timeout, but a round of them slower than one attempt's lease.
    receiver.delay = 0.3
    assert receiver.delay * 20 > timeout + LEASE_MARGIN_SECONDS
    queue_events(receiver, EVENTS)
    deadline = time.monotonic() + 60
    workers = [threading.Thread(target=work_until_sent, args=(deadline,)) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    sent = Counter(receiver.ids())
    assert len(sent) == EVENTS
    assert [message for message, times in sent.items() if times > 1] == []
    assert set(Delivery.objects.values_list("state", flat=True)) == {"delivered"}
    assert set(Delivery.objects.values_list("attempts", flat=True)) == {1}


@pytest.fixture
def second_receiver() -> Iterator[Receiver]:
    me = serve()
    yield me
    me.server.shutdown()
    me.server.server_close()


def test_a_slow_endpoint_does_not_delay_another_endpoints_delivery(
    receiver: Receiver, second_receiver: Receiver, settings: Any
) -> None:
    settings.LEARNPORTAL_WEBHOOK_PER_ENDPOINT = 2
    slow, fast = receiver, second_receiver
    slow.delay = 1.5  # within the timeout (2 s): each of its attempts succeeds, slowly
    queue_events(slow, 4, due=time.time() - 60)  # due first, in the order rows are claimed
    queue_events(fast, 1)
    started = time.monotonic()
    with client() as http:
        assert deliver_due(http) == 5
    (fast_arrival,) = fast.arrived_at
    assert fast_arrival - started < slow.delay / 2  # not after the slow endpoint's four
    assert slow.most_at_once == settings.LEARNPORTAL_WEBHOOK_PER_ENDPOINT
    assert set(Delivery.objects.values_list("state", flat=True)) == {"delivered"}


def test_no_endpoint_gets_more_attempts_at_once_than_the_per_endpoint_limit(
    receiver: Receiver, settings: Any
) -> None:
    settings.LEARNPORTAL_WEBHOOK_PER_ENDPOINT = 1
    receiver.delay = 0.2
    queue_events(receiver, 5)
    with client() as http:
        assert deliver_due(http) == 5
    assert receiver.most_at_once == 1
    assert len(set(receiver.ids())) == 5


class Trickling(BaseHTTPRequestHandler):
    """Answers 200, one byte of a header every 0.2 s for 3 s: each read well within a timeout
    of 1 s, the whole answer three times as long."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        with contextlib.suppress(ConnectionError):  # the worker hangs up at its deadline
            self.wfile.write(b"HTTP/1.1 200 OK\r\nx-slow: ")
            for _ in range(15):
                self.wfile.write(b"z")
                self.wfile.flush()
                time.sleep(0.2)
            self.wfile.write(b"\r\ncontent-length: 0\r\n\r\n")

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def trickling() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Trickling)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook"
    server.shutdown()
    server.server_close()


def test_an_attempt_ends_at_its_timeout_however_the_receiver_trickles_its_answer(
    trickling: str, settings: Any
) -> None:
    settings.LEARNPORTAL_WEBHOOK_TIMEOUT_SECONDS = 1.0
    endpoint = EndpointFactory.create(url=trickling)
    delivery = Delivery(endpoint=endpoint, message_id="msg_1", body="{}")
    started = time.monotonic()
    with client() as http:
        outcome = send(delivery, http)
    assert outcome.error == "timed out"
    assert time.monotonic() - started < 1.0 + LEASE_MARGIN_SECONDS / 2
