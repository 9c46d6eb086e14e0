"""Endpoints on loopback, private or link-local addresses are refused, at registration and at
delivery, unless LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE lets them in (as the other tests do)."""

from __future__ import annotations

import socket
import ssl
from typing import TYPE_CHECKING, Any

import httpcore
import httpx
import pytest
from httpcore._backends.sync import SyncStream

from learnportal_protocol.errors import LearnError
from refinement.history import history_record
from tests.harness import default_pk, keyed
from webhooks.addresses import Refused, check_url
from webhooks.delivery import client
from webhooks.models import Delivery
from webhooks.services import endpoint_register
from webhooks.worker import deliver_due

if TYPE_CHECKING:
    from tests.webhooks.receiver import Receiver

pytestmark = pytest.mark.django_db


@pytest.fixture
def private_refused(settings: Any) -> None:
    settings.LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE = False


def resolving_to(monkeypatch: pytest.MonkeyPatch, address: str) -> None:
    family = socket.AF_INET6 if ":" in address else socket.AF_INET

    def getaddrinfo(host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
        return [(family, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


NON_PUBLIC = [
    # IPv4: loopback, private, link-local, shared, "this network", IETF, documentation,
    # benchmarking, multicast, reserved, broadcast
    "127.0.0.1",
    "127.255.255.254",
    "10.0.0.1",
    "10.255.255.255",
    "172.16.0.1",
    "172.31.255.254",
    "192.168.0.1",
    "192.168.255.254",
    "169.254.169.254",
    "169.254.0.1",
    "100.64.0.1",
    "100.127.255.254",
    "0.0.0.0",
    "0.1.2.3",
    "192.0.0.1",
    "192.0.0.8",
    "192.0.0.170",
    "192.0.2.1",
    "198.18.0.1",
    "198.19.255.254",
    "198.51.100.1",
    "203.0.113.1",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
    # IPv6: loopback, unspecified, link-local (scoped too), site-local, unique local, multicast
    "::1",
    "::",
    "fe80::1",
    "fe80::1%lo",
    "febf::1",
    "fec0::1",
    "feff::1",
    "fc00::1",
    "fd12:3456::1",
    "ff02::1",
    "ff05::2",
    "ff0e::1",
    # IPv6 carrying a non-public IPv4: mapped, compatible, translated, NAT64, 6to4, Teredo
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "::127.0.0.1",
    "::10.0.0.1",
    "::169.254.169.254",
    "::ffff:0:7f00:1",
    "64:ff9b::7f00:1",
    "64:ff9b::a00:1",
    "64:ff9b::a9fe:a9fe",
    "64:ff9b::c0a8:1",
    "2002:7f00:1::",
    "2002:a00:1::1",
    "2002:c0a8:1::1",
    "2002:a9fe:a9fe::1",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    # IPv6: local-use NAT64, Teredo, documentation, ORCHID, discard, SRv6
    "64:ff9b:1::a00:1",
    "2001::1",
    "2001:db8::1",
    "3fff::1",
    "2001:10::1",
    "100::1",
    "5f00::1",
]
PUBLIC = [
    "8.8.8.8",
    "93.184.215.14",
    "1.1.1.1",
    "2606:4700:4700::1111",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
]


def test_the_table_holds_every_non_public_form_the_audit_tried() -> None:
    assert len(set(NON_PUBLIC)) == len(NON_PUBLIC) >= 54


@pytest.mark.parametrize("address", NON_PUBLIC)
def test_a_host_resolving_to_a_non_public_address_is_refused_at_registration(
    private_refused: None, monkeypatch: pytest.MonkeyPatch, address: str
) -> None:
    resolving_to(monkeypatch, address)
    with pytest.raises(LearnError) as refused:
        endpoint_register(
            project=default_pk(),
            url="https://hooks.example.com/in",
            events=["plan.filed"],
            actor="boss",
        )
    assert refused.value.details[0]["loc"] == ["url"]
    assert "non-public" in refused.value.message


@pytest.mark.parametrize("address", PUBLIC)
def test_a_public_address_is_accepted(
    private_refused: None, monkeypatch: pytest.MonkeyPatch, address: str
) -> None:
    resolving_to(monkeypatch, address)
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
    endpoint_register(
        project=default_pk(), url=receiver.url, events=["plan.filed"], actor="boss"
    )  # allowed here
    settings.LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE = False
    history_record("plan", keyed("token:agent-1"), plan_id="p-1")
    with client() as http:
        deliver_due(http)
    assert receiver.received == []
    row = Delivery.objects.get()
    assert row.state == "pending"
    assert row.last_error.startswith("refused: 127.0.0.1 resolves to 127.0.0.1")


class Resolver:
    """A DNS that answers each name from a script: each lookup takes the next answer (the last
    repeats); addresses themselves resolve as they do."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, answers: dict[str, list[str]]) -> None:
        self.answers = answers
        self.asked: list[str] = []
        real = socket.getaddrinfo

        def getaddrinfo(host: str, port: int, *args: Any, **kwargs: Any) -> list[Any]:
            if host not in self.answers:
                return real(host, port, *args, **kwargs)
            self.asked.append(host)
            script = self.answers[host]
            address = script.pop(0) if len(script) > 1 else script[0]
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

        monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def port_of(receiver: Receiver) -> int:
    return receiver.server.server_address[1]


def deliver_a_plan_to_the_name(receiver: Receiver) -> int:
    """Register hooks.example.test on the receiver's port, file a plan, run the worker once."""
    url = f"http://hooks.example.test:{port_of(receiver)}/hook"
    endpoint_register(project=default_pk(), url=url, events=["plan.filed"], actor="boss")
    history_record("plan", keyed("token:agent-1"), plan_id="p-1")
    with client() as http:
        return deliver_due(http)


def test_a_name_public_at_registration_and_private_at_delivery_is_refused_at_delivery(
    receiver: Receiver, private_refused: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    dns = Resolver(monkeypatch, {"hooks.example.test": ["93.184.215.14", "127.0.0.1"]})
    assert deliver_a_plan_to_the_name(receiver) == 1
    assert receiver.received == []
    row = Delivery.objects.get()
    assert row.state == "pending"
    assert row.last_error.startswith("refused: hooks.example.test resolves to 127.0.0.1")
    assert dns.asked == ["hooks.example.test"] * 2  # once to register, once to deliver


def test_the_connection_goes_to_the_address_checked_not_to_a_second_lookup(
    private_refused: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # DNS rebinding: the name answers a public address first, then loopback.
    dns = Resolver(monkeypatch, {"hooks.example.test": ["93.184.215.14", "127.0.0.1"]})
    connected: list[str] = []

    def connect_tcp(self: object, host: str, port: int, *args: Any, **kwargs: Any) -> Any:
        connected.append(host)
        raise httpcore.ConnectError("no network in tests")

    monkeypatch.setattr(httpcore.SyncBackend, "connect_tcp", connect_tcp)
    with client() as http, pytest.raises(httpx.ConnectError):
        http.post("http://hooks.example.test/hook", content=b"{}")
    assert connected == ["93.184.215.14"]
    assert dns.asked == ["hooks.example.test"]


def test_a_delivery_to_the_pinned_address_sends_host_the_name(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Allowed private (as every other test here): the name's one answer is the receiver's.
    dns = Resolver(monkeypatch, {"hooks.example.test": ["127.0.0.1", "10.255.255.1"]})
    deliver_a_plan_to_the_name(receiver)
    (got,) = receiver.received
    assert got.headers["host"] == f"hooks.example.test:{port_of(receiver)}"
    assert Delivery.objects.get().state == "delivered"
    assert dns.asked == ["hooks.example.test"]  # looked up once, at the connection


def test_tls_to_the_pinned_address_checks_the_certificate_of_the_name(
    receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    Resolver(monkeypatch, {"hooks.example.test": ["127.0.0.1"]})
    hostnames: list[str | None] = []

    def start_tls(
        self: object, ssl_context: ssl.SSLContext, server_hostname: str | None = None, **_: Any
    ) -> Any:
        hostnames.append(server_hostname)
        assert ssl_context.check_hostname and ssl_context.verify_mode == ssl.CERT_REQUIRED
        raise httpcore.ConnectError("the test stops before the handshake")

    monkeypatch.setattr(SyncStream, "start_tls", start_tls)
    with client() as http, pytest.raises(httpx.ConnectError):
        http.post(f"https://hooks.example.test:{port_of(receiver)}/hook", content=b"{}")
    assert hostnames == ["hooks.example.test"]  # SNI and the certificate's check: the name
