"""Every HTTP answer carries `X-Content-Type-Options: nosniff` and a Content-Security-Policy:
DEBUG's technical 404 and 500 pages (which django-csp leaves out) and the answers Django's ASGI
handler gives before any middleware too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from asgiref.sync import async_to_sync
from channels.testing import ApplicationCommunicator
from django.test import Client

from core.accounts.models import User

if TYPE_CHECKING:
    from tests.harness import Actor


def directives(header: str) -> dict[str, list[str]]:
    parts = [part.split() for part in header.split(";") if part.strip()]
    return {name: values for name, *values in parts}


def assert_guarded(headers: Any) -> None:
    assert headers["X-Content-Type-Options"] == "nosniff"
    policy = directives(headers["Content-Security-Policy"])
    assert policy["default-src"] == ["'none'"]  # nothing from anywhere else
    assert policy["frame-ancestors"] == ["'none'"]


def _broken_overview() -> Any:
    raise RuntimeError("a view that fails")


@pytest.mark.parametrize(
    ("path", "status"), [("/no-such-page/", 404), ("/api/no-such-endpoint/", 404), ("/", 500)]
)
def test_debugs_error_pages_carry_nosniff_and_a_policy(
    ann: Actor, settings: Any, monkeypatch: pytest.MonkeyPatch, path: str, status: int
) -> None:
    settings.DEBUG = True
    monkeypatch.setattr("learnportal.pages.routing_weights", _broken_overview)
    client = Client(raise_request_exception=False)
    client.force_login(User.objects.get(username="ann"))
    response = client.get(path)
    assert response.status_code == status
    assert_guarded(response)


@pytest.mark.django_db(transaction=True)
def test_an_answer_django_gives_before_any_middleware_carries_them_too() -> None:
    from learnportal.asgi import application

    scope = {
        "type": "http",
        "method": "GET",
        "path": "/login/",
        "query_string": b"next=\xff",  # not UTF-8: Django answers 400 before the middleware
        "headers": [(b"host", b"testserver")],
    }

    async def answer() -> dict[str, Any]:
        communicator = ApplicationCommunicator(application, scope)
        await communicator.send_input({"type": "http.request", "body": b""})
        start: dict[str, Any] = await communicator.receive_output(30)
        await communicator.receive_output(30)  # the body
        return start

    start = async_to_sync(answer)()
    assert start["status"] == 400
    assert_guarded({name.decode(): value.decode() for name, value in start["headers"]})


def test_a_page_keeps_the_sites_own_policy(db: None) -> None:
    response = Client().get("/login/")
    assert directives(response["Content-Security-Policy"])["default-src"] == ["'self'"]
