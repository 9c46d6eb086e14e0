"""A small A2E agent-side client written from the contract, for the tests (not the SDK's code).

`A2ESession` opens a session, sends messages (`POST /send`, text/plain) and reads replies from
the session's stream (`GET /stream`), read by a thread into a queue, as the SDK's HTTPTransport
does. `rpc` sends one message and waits for the message whose `req_id` is its `id`.
"""

from __future__ import annotations

import queue
import threading
import uuid
from typing import Any

import httpx
import orjson

TIMEOUT = 30.0


def message(type_: str, **fields: Any) -> dict[str, Any]:
    return {"type": type_, "id": uuid.uuid4().hex, "version": "1.0", "ts": 0.0, **fields}


def handshake(auth_token: str = "", **fields: Any) -> dict[str, Any]:
    return message(
        "handshake/req",
        agent_id="test-agent",
        agent_caps=["learning"],
        auth_token=auth_token,
        **fields,
    )


class Stream:
    """One `GET /stream` connection: its events in `events`, its comment lines counted."""

    def __init__(self, base_url: str, session_id: str) -> None:
        self.events: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.comments: queue.Queue[str] = queue.Queue()
        self.status: int | None = None
        self.headers: httpx.Headers | None = None
        self._ready = threading.Event()
        self._client = httpx.Client(base_url=base_url, timeout=httpx.Timeout(TIMEOUT, read=None))
        self._thread = threading.Thread(target=self._read, args=(session_id,), daemon=True)
        self._thread.start()
        assert self._ready.wait(TIMEOUT), "the stream did not answer"

    def _read(self, session_id: str) -> None:
        try:
            with self._client.stream(
                "GET", "/stream", headers={"X-Session-Id": session_id}
            ) as response:
                self.status, self.headers = response.status_code, response.headers
                self._ready.set()
                for line in response.iter_lines():
                    if line.startswith(":"):
                        self.comments.put(line)
                    elif line.startswith("data:"):
                        self.events.put(orjson.loads(line.removeprefix("data:").strip()))
        except httpx.HTTPError:
            pass
        finally:
            self._ready.set()
            self.events.put(None)  # the stream ended

    def next(self) -> dict[str, Any] | None:
        """The next message, or None once the stream has ended."""
        return self.events.get(timeout=TIMEOUT)

    def close(self) -> None:
        self._client.close()
        self._thread.join(TIMEOUT)


class A2ESession:
    def __init__(self, base_url: str, token: str | None = None, session_id: str = "") -> None:
        self.base_url = base_url.rstrip("/")
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=self.base_url, headers=headers, timeout=TIMEOUT)
        self.session_id = session_id
        self.stream: Stream | None = None

    def open(self) -> A2ESession:
        response = self.http.post("/session")
        assert response.status_code == 200, response.text
        self.session_id = response.json()["session_id"]
        return self

    def connect(self) -> Stream:
        self.stream = Stream(self.base_url, self.session_id)
        return self.stream

    def post(self, body: dict[str, Any] | str | bytes) -> httpx.Response:
        data = orjson.dumps(body) if isinstance(body, dict) else body
        return self.http.post(
            "/send",
            content=data,
            headers={"X-Session-Id": self.session_id, "Content-Type": "text/plain"},
        )

    def send(self, body: dict[str, Any] | str | bytes) -> None:
        response = self.post(body)
        assert (response.status_code, response.json()) == (200, {"ok": True}), response.text

    def rpc(self, body: dict[str, Any]) -> dict[str, Any]:
        """Send `body` and return the stream's next message, which must answer it."""
        assert self.stream is not None, "connect() first"
        self.send(body)
        reply = self.stream.next()
        assert reply is not None, "the stream ended"
        assert reply.get("req_id") == body.get("id", reply.get("req_id")), reply
        return reply

    def close(self) -> None:
        if self.stream is not None:
            self.stream.close()
        self.http.close()
