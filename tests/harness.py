"""The one harness: who sends (an `Actor`), and how (`http_send`, `ws_send`, `ws_communicator`).

An `Actor` is a principal and a client that sends as it; tests/conftest.py casts them (`agent`,
`env`, `ann`, `rev`, `rev2`, `boss`, `anonymous`) and gives the `transport` fixture, which runs
one test over HTTP and over WebSocket with one `send(actor, body) -> (status, reply)`. Over
WebSocket the status is the HTTP status of the error code (200 for a response), so that one
assertion reads the same on both.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import orjson
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator
from django.test import Client
from rest_framework.test import APIClient

from core.accounts.principals import Principal
from core.accounts.roles import Role
from core.projects.models import DEFAULT_PROJECT
from core.projects.selection import project_pk
from learnportal_protocol.errors import HTTP_STATUS, ErrorCode
from tests.factories.accounts import PASSWORD as PASSWORD  # every person of the cast's
from tests.factories.accounts import ApiTokenFactory, UserFactory

if TYPE_CHECKING:
    # What Django's and DRF's test clients answer: classes of the stubs only (`json()`,
    # `context`, `templates`), so they are imported for the type checker alone.
    from typing import TypeAlias

    from django.test.client import _MonkeyPatchedWSGIResponse
    from rest_framework.response import _MonkeyPatchedResponse

    from core.accounts.roles import Action

    ClientResponse: TypeAlias = _MonkeyPatchedWSGIResponse
    APIClientResponse: TypeAlias = _MonkeyPatchedResponse

Body = dict[str, Any] | bytes | str
WS_TIMEOUT = 30


@dataclass
class Actor:
    """A principal and a client that sends as it."""

    name: str
    client: APIClient
    raw_token: str | None = None

    @property
    def token(self) -> str:
        """The raw bearer token: every actor of the cast has one, but `anonymous`."""
        assert self.raw_token is not None, f"{self.name} has no token"
        return self.raw_token

    def learn(self, body: dict[str, Any] | bytes, **extra: Any) -> Any:
        """POST one learn/* message to /api/learn/."""
        data = body if isinstance(body, bytes) else orjson.dumps(body)
        return self.client.post("/api/learn/", data=data, content_type="application/json", **extra)

    def browser(self) -> Client:
        """A session of this person, as a browser has it: pages authenticate by session."""
        from core.accounts.models import User

        client = Client()
        client.force_login(User.objects.get(username=self.name))
        return client

    def rest(self, method: str, url: str, body: dict[str, Any] | None = None) -> Any:
        """Call a REST endpoint, with `body` as JSON."""
        call = getattr(self.client, method)
        if body is None:
            return call(url)
        return call(url, data=orjson.dumps(body), content_type="application/json")

    def exported(self, name: str, query: str = "") -> list[dict[str, Any]]:
        """The lines of the export `name` (`GET /api/exports/<name>.jsonl?<query>`), read
        whole."""
        return [orjson.loads(line) for line in self.exported_bytes(name, query).splitlines()]

    def exported_bytes(self, name: str, query: str = "") -> bytes:
        """The export `name` as it downloads."""
        from django.http import StreamingHttpResponse

        response = self.client.get(f"/api/exports/{name}.jsonl?{query}")
        assert response.status_code == 200, (name, response)
        assert isinstance(response, StreamingHttpResponse)
        return b"".join(response.streaming_content)


def refused_at(response: Any, status: int = 400) -> list[list[Any]]:
    """The places a refusal names (its details' `loc`), once its status is `status`."""
    assert response.status_code == status, response.content
    return [line["loc"] for line in response.json()["details"]]


def keyed(key: str, *, project: str = DEFAULT_PROJECT) -> Principal:
    """A principal whose key is `key`: `user:NAME` a person (a reviewer), `token:NAME` a machine
    (an agent), acting in `project`."""
    kind, _, name = key.partition(":")
    if kind not in ("user", "token") or not name:
        raise ValueError(f"{key!r} is no principal's key")
    human = kind == "user"
    role = Role.REVIEWER if human else Role.AGENT
    return Principal(role=role, name=name, is_human=human, project=project)


def default_pk() -> int:
    """The `default` project's id: where the fixtures' actors act unless told otherwise."""
    return project_pk(DEFAULT_PROJECT)


def token_actor(name: str, role: str, *, project: str = DEFAULT_PROJECT) -> Actor:
    """A machine principal (an agent, an environment): a token with a role and no person, in
    `project`."""
    raw = ApiTokenFactory.create(name=name, role=role, project=project).raw
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return Actor(name, client, raw)


def human_actor(name: str, role: str, *, project: str = DEFAULT_PROJECT) -> Actor:
    """A person with `role` in `project` (password PASSWORD) who sends with a personal token."""
    user = UserFactory.create(username=name, role=role, project=project)
    raw = ApiTokenFactory.create(name=f"{name}-personal", user=user).raw
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return Actor(name, client, raw)


# --- sending over either transport -------------------------------------------------------------

Send = Callable[[Actor, Body], tuple[int, dict[str, Any]]]


def _frame(body: Body) -> str:
    if isinstance(body, dict):
        return orjson.dumps(body).decode()
    return body.decode() if isinstance(body, bytes) else body


def ws_status(reply: dict[str, Any]) -> int:
    if reply.get("type") == "learn/error":
        return HTTP_STATUS[ErrorCode(reply["code"])]
    return 200


def ws_communicator(
    *,
    token: str | None = None,
    query: str = "",
    headers: list[tuple[bytes, bytes]] | None = None,
    path: str = "/ws/learn/",
) -> WebsocketCommunicator:
    """A WebSocket client of the real ASGI application (`path` /ws/events/ for the dashboards)."""
    from learnportal.asgi import application

    headers = list(headers or [])
    if token is not None:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    return WebsocketCommunicator(
        application, path + (f"?{query}" if query else ""), headers=headers
    )


async def ws_exchange(token: str | None, frames: list[Body]) -> list[dict[str, Any]]:
    """Open one connection, send every frame, then read as many replies, and close."""
    communicator = ws_communicator(token=token)
    connected, _ = await communicator.connect(timeout=WS_TIMEOUT)
    assert connected
    try:
        for frame in frames:
            await communicator.send_to(text_data=_frame(frame))
        return [await communicator.receive_json_from(timeout=WS_TIMEOUT) for _ in frames]
    finally:
        await communicator.disconnect()


def http_send(actor: Actor, body: Body) -> tuple[int, dict[str, Any]]:
    data = body if isinstance(body, bytes) else _frame(body).encode()
    response = actor.learn(data)
    return response.status_code, response.json()


def ws_send(actor: Actor, body: Body) -> tuple[int, dict[str, Any]]:
    assert actor.raw_token, "WebSocket actors authenticate with a token"
    (reply,) = async_to_sync(ws_exchange)(actor.raw_token, [body])
    return ws_status(reply), reply


def ok(result: tuple[int, dict[str, Any]]) -> dict[str, Any]:
    """The reply of a send that must succeed."""
    status, body = result
    assert status == 200, body
    return body


def refused(result: tuple[int, dict[str, Any]], status: int, code: str) -> dict[str, Any]:
    """The `learn/error` of a send that must be refused with `status` and `code`."""
    got, body = result
    assert (got, body.get("code")) == (status, code), body
    assert body["type"] == "learn/error"
    return body


# --- broadcasts ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Broadcast:
    event: str
    payload: dict[str, Any]
    audience: Action
    project: str  # the slug of the project it was broadcast in


@dataclass
class Broadcasts:
    """What the services broadcast (after commit), captured instead of sent."""

    sent: list[Broadcast]

    def events(self) -> list[str]:
        return [b.event for b in self.sent]


# --- at once ------------------------------------------------------------------------------------

Result = TypeVar("Result")


def at_once(calls: list[Callable[[], Result]]) -> list[Result | None]:
    """Each call on a thread and a database connection of its own, all released at the same
    moment; their results in order (None for one that did not finish). An error in any is
    raised here."""
    import threading

    from django.db import connections

    barrier = threading.Barrier(len(calls))
    answers: list[Result | None] = [None] * len(calls)
    errors: list[BaseException] = []

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=10)
            answers[index] = calls[index]()
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors
    return answers
