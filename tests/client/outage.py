"""A host that is `unavailable` for its first learn/* posts, then the live server: httpx
transports (blocking and awaited) that record what each post carried."""

from __future__ import annotations

import json

import httpx

UNAVAILABLE = {
    "type": "learn/error",
    "id": "outage",
    "version": "1.0",
    "ts": 0.0,
    "req_id": "",
    "code": "unavailable",
    "message": "the database is busy",
    "details": [],
}


class Outage:
    """The first `failures` posts to /api/learn/ are answered 503; `sent` is each post's ids."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.sent: list[list[str]] = []

    def refusal(self, request: httpx.Request) -> httpx.Response | None:
        if request.method != "POST" or request.url.path != "/api/learn/":
            return None
        body = json.loads(request.content)
        items = body.get("experiences") or body.get("feedbacks") or []
        self.sent.append([i.get("experience_id") or i.get("feedback_id") for i in items])
        if len(self.sent) > self.failures:
            return None
        return httpx.Response(503, json=UNAVAILABLE, headers={"Retry-After": "0"})


class OutageTransport(httpx.HTTPTransport):
    def __init__(self, outage: Outage) -> None:
        super().__init__()
        self.outage = outage

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self.outage.refusal(request) or super().handle_request(request)


class AsyncOutageTransport(httpx.AsyncHTTPTransport):
    def __init__(self, outage: Outage) -> None:
        super().__init__()
        self.outage = outage

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return self.outage.refusal(request) or await super().handle_async_request(request)
