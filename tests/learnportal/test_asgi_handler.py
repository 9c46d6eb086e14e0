"""Under ASGI a request's middleware and view run in one thread hop (learnportal.asgihandler)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from asgiref.sync import SyncToAsync, async_to_sync
from channels.testing import HttpCommunicator

if TYPE_CHECKING:
    from tests.harness import Actor

pytestmark = pytest.mark.django_db(transaction=True)


def served(path: str, token: str) -> dict[str, Any]:
    from learnportal.asgi import application

    headers = [(b"host", b"testserver"), (b"authorization", f"Bearer {token}".encode())]
    communicator = HttpCommunicator(application, "GET", path, headers=headers)
    response: dict[str, Any] = async_to_sync(communicator.get_response)(timeout=30)
    return response


def test_a_request_enters_its_thread_once_and_meets_every_middleware(
    agent: Actor, monkeypatch: pytest.MonkeyPatch
) -> None:
    hops: list[str] = []
    enter = SyncToAsync.__call__

    async def counted(self: SyncToAsync[Any, Any], *args: Any, **kwargs: Any) -> Any:
        hops.append(getattr(self.func, "__qualname__", repr(self.func)))
        return await enter(self, *args, **kwargs)

    monkeypatch.setattr(SyncToAsync, "__call__", counted)
    response = served("/api/learn/", agent.token)
    assert response["status"] == 200, response
    headers = {name.lower(): value for name, value in response["headers"]}
    # The outermost and the innermost middleware both ran.
    assert headers[b"x-content-type-options"] == b"nosniff"
    assert headers[b"x-frame-options"] == b"DENY"
    # Three hops: request_started's receivers, the middleware chain with the view, closing the
    # response. Django's own handler made one more for each middleware's process_request and
    # process_response: 18 in all.
    assert len(hops) == 3, hops
