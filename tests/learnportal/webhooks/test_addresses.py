"""Endpoints on loopback, private or link-local addresses are refused, at registration and at
delivery, unless LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE lets them in (as the other tests do)."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING, Any

import pytest

from learnportal.protocol.errors import LearnError
from learnportal.webhooks.addresses import Refused, check_url
from learnportal.webhooks.delivery import client, deliver_due
from learnportal.webhooks.models import Delivery
from learnportal.webhooks.services import endpoint_register
from refinement.history import history_record

if TYPE_CHECKING:
    from tests.learnportal.webhooks.receiver import Receiver

pytestmark = pytest.mark.django_db


@pytest.fixture
def private_refused(settings: Any) -> None:
    settings.LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE = False


def resolving_to(monkeypatch: pytest.MonkeyPatch, address: str) -> None:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET

    def getaddrinfo(host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
        return [(family, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "10.1.2.3",
        "192.168.0.9",
        "172.16.0.1",
        "169.254.169.254",
        "::1",
        "fe80::1",
        "::ffff:127.0.0.1",
        "100.64.0.1",
        "0.0.0.0",
    ],
)
def test_a_host_resolving_to_a_non_public_address_is_refused_at_registration(
    private_refused: None, monkeypatch: pytest.MonkeyPatch, address: str
) -> None:
    resolving_to(monkeypatch, address)
    with pytest.raises(LearnError) as refused:
        endpoint_register(url="https://hooks.example.com/in", events=["plan.filed"], actor="boss")
    assert refused.value.details[0]["loc"] == ["url"]
    assert "non-public" in refused.value.message


def test_a_public_address_is_accepted(
    private_refused: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    resolving_to(monkeypatch, "93.184.215.14")
    check_url("https://hooks.example.com/in")


@pytest.mark.parametrize(
    "url",
    [
        "http://[x/",
        "ftp://example.com/x",
        "https:///x",
        "https://u:p@example.com/",
        "https://x:99999/",
    ],
)
def test_a_url_that_is_no_http_endpoint_is_refused(url: str) -> None:
    with pytest.raises(Refused):
        check_url(url)


def test_a_name_pointed_at_a_private_address_later_is_refused_at_delivery(
    receiver: Receiver, settings: Any
) -> None:
    endpoint_register(url=receiver.url, events=["plan.filed"], actor="boss")  # allowed here
    settings.LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE = False
    history_record("plan", "agent-1", plan_id="p-1")
    with client() as http:
        deliver_due(http)
    assert receiver.received == []
    row = Delivery.objects.get()
    assert row.state == "pending"
    assert row.last_error.startswith("refused: 127.0.0.1 resolves to 127.0.0.1")
