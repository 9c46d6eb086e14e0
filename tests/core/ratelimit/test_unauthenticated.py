"""A request with no valid credential (none, a malformed header, an unknown or revoked token, a
session whose CSRF check fails) is counted under its client's address, on /api/learn/ and every
REST view: once over the limit it is `rate_limited`, not an endless stream of 401s."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
import pytest
from asgiref.sync import async_to_sync
from django.test import Client
from rest_framework.test import APIClient

from core.accounts.models import ApiToken, User
from core.accounts.services import token_revoke
from learnportal.ws.learn import CLOSE_RATE_LIMITED, CLOSE_UNAUTHENTICATED
from tests.builders import stats_req
from tests.harness import WS_TIMEOUT, ws_communicator

if TYPE_CHECKING:
    from tests.harness import Actor

ONE_PER_TEN_SECONDS = 0.1
ADDRESS = "192.0.2.7"

pytestmark = pytest.mark.django_db


def _client(authorization: str | None) -> APIClient:
    client = APIClient(REMOTE_ADDR=ADDRESS)
    if authorization is not None:
        client.credentials(HTTP_AUTHORIZATION=authorization)
    return client


def _send(client: APIClient, method: str, path: str) -> Any:
    if method == "post":
        return client.post(path, orjson.dumps(stats_req()), content_type="application/json")
    return client.get(path)


CREDENTIALS = {
    "none": None,
    "malformed": "Token abc",
    "unknown": "Bearer not-a-token",
}
ENDPOINTS = [
    ("post", "/api/learn/"),
    ("get", "/api/learn/"),
    ("get", "/api/routing/"),
    ("get", "/api/turns/"),
    ("get", "/api/feedback/"),
    ("get", "/api/webhooks/"),
    ("get", "/api/no-such-endpoint/"),
]


@pytest.mark.parametrize("credential", CREDENTIALS)
@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
def test_a_request_without_a_valid_credential_is_counted_by_client_address(
    settings: Any, clock: Any, credential: str, method: str, path: str
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = ONE_PER_TEN_SECONDS
    client = _client(CREDENTIALS[credential])
    assert _send(client, method, path).status_code in {401, 404}
    refused = _send(client, method, path)
    assert refused.status_code == 429
    assert refused.json()["code"] == "rate_limited"
    assert 1 <= int(refused["Retry-After"]) <= 10
    other = APIClient(REMOTE_ADDR="192.0.2.8")
    assert _send(other, method, path).status_code in {401, 404}


def test_a_revoked_token_is_counted_by_client_address(
    agent: Actor, settings: Any, clock: Any
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = ONE_PER_TEN_SECONDS
    token_revoke(token=ApiToken.objects.get(name="agent-1"))
    client = _client(f"Bearer {agent.token}")
    assert _send(client, "post", "/api/learn/").status_code == 401
    assert _send(client, "get", "/api/routing/").status_code == 429


def test_a_refused_learn_post_is_counted_once(db: None, settings: Any, clock: Any) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = 2  # two a second
    client = _client("Bearer not-a-token")
    assert _send(client, "post", "/api/learn/").status_code == 401
    assert _send(client, "post", "/api/learn/").status_code == 401
    assert _send(client, "post", "/api/learn/").status_code == 429


def test_a_session_post_that_fails_its_csrf_check_is_counted(
    ann: Actor, settings: Any, clock: Any
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = ONE_PER_TEN_SECONDS
    client = Client(enforce_csrf_checks=True)
    client.force_login(User.objects.get(username="ann"))
    body = orjson.dumps({"turn": 1})
    for expected in (403, 429):
        response = client.post("/api/queue/release/", body, content_type="application/json")
        assert response.status_code == expected


def test_a_principal_refused_by_a_permission_is_counted_once(
    ann: Actor, settings: Any, clock: Any
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = 2  # two a second
    assert ann.client.get("/api/webhooks/").status_code == 403
    assert ann.client.get("/api/webhooks/").status_code == 403
    assert ann.client.get("/api/webhooks/").status_code == 429


async def _close_code(path: str, token: str | None, address: str) -> int:
    communicator = ws_communicator(token=token, path=path)
    communicator.scope["client"] = (address, 40000)
    connected, code = await communicator.connect(timeout=WS_TIMEOUT)
    if connected:  # accepted, then closed at once, so that a browser can read the code
        message = await communicator.receive_output(timeout=WS_TIMEOUT)
        await communicator.disconnect()
        return int(message["code"])
    return int(code)


@pytest.mark.parametrize("path", ["/ws/learn/", "/ws/events/"])
@pytest.mark.parametrize("token", [None, "lp_unknown"])
@pytest.mark.django_db(transaction=True)
def test_a_socket_handshake_without_a_valid_credential_is_counted_by_client_address(
    settings: Any, clock: Any, path: str, token: str | None
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = ONE_PER_TEN_SECONDS
    assert async_to_sync(_close_code)(path, token, ADDRESS) == CLOSE_UNAUTHENTICATED
    assert async_to_sync(_close_code)(path, token, ADDRESS) == CLOSE_RATE_LIMITED
    assert _send(_client(None), "get", "/api/routing/").status_code == 429  # one count
    assert async_to_sync(_close_code)(path, token, "192.0.2.8") == CLOSE_UNAUTHENTICATED
