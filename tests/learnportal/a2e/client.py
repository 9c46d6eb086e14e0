"""A small A2E agent-side client written from the contract, for the tests (not the SDK's code).

`A2ESession` opens a session, sends messages (`POST /send`, text/plain) and reads replies from
the session's stream (`GET /stream`), read by a thread into a queue, as the SDK's HTTPTransport
does, with the session's headers. `rpc` sends one message and waits for the message whose
`req_id` is its `id`. A stream reconnects as a browser's EventSource does, with `Last-Event-ID`
the last event id it read; `resume=False` reconnects as the SDK does, without it.
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
    """One `GET /stream` connection: its events in `events` (the raw `data` in `raw`), its
    comment lines counted, the id of the last event read in `last_event_id`."""

    def __init__(
        self,
        base_url: str,
        session_id: str,
        headers: dict[str, str] | None = None,
        last_event_id: str | None = None,
    ) -> None:
        self.events: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.raw: list[str] = []
        self.comments: queue.Queue[str] = queue.Queue()
        self.status: int | None = None
        self.error: httpx.HTTPError | None = None  # why it ended, unless it ended cleanly
        self.headers: httpx.Headers | None = None
        self.last_event_id = last_event_id
        self._ready = threading.Event()
        sent = {**(headers or {}), "X-Session-Id": session_id}
        if last_event_id is not None:
            sent["Last-Event-ID"] = last_event_id
        self._client = httpx.Client(
            base_url=base_url, headers=sent, timeout=httpx.Timeout(TIMEOUT, read=None)
        )
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        assert self._ready.wait(TIMEOUT), "the stream did not answer"

    def _read(self) -> None:
        event_id = None
        try:
            with self._client.stream("GET", "/stream") as response:
                self.status, self.headers = response.status_code, response.headers
                self._ready.set()
                for line in response.iter_lines():
                    if line.startswith(":"):
                        self.comments.put(line)
                    elif line.startswith("id:"):
                        event_id = line.removeprefix("id:").strip()
                    elif line.startswith("data:"):
                        data = line.removeprefix("data:").strip()
                        self.raw.append(data)
                        self.last_event_id = event_id
                        self.events.put(orjson.loads(data))
        except httpx.HTTPError as exc:
            self.error = exc
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
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.http = httpx.Client(base_url=self.base_url, headers=self.headers, timeout=TIMEOUT)
        self.session_id = session_id
        self.stream: Stream | None = None

    def open(self) -> A2ESession:
        response = self.http.post("/session")
        assert response.status_code == 200, response.text
        self.session_id = response.json()["session_id"]
        return self

    def connect(self, *, resume: bool = True) -> Stream:
        """A new stream of the session; with `resume`, it says which event it read last."""
        last = self.stream.last_event_id if resume and self.stream is not None else None
        self.stream = Stream(self.base_url, self.session_id, dict(self.headers), last)
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
