"""Where a small HTTP request's time goes in the ASGI app, in-process (no socket, no server).

Django's and asgiref's own code is counted for the probe (sync/async hops, threads started,
connections opened) and put back after it; then what-ifs that change one setting at a time in
the probe's process (the app is unchanged). A task of bench/child.py.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine

import orjson


async def _asgi_call(app: Any, body: bytes, token: str) -> tuple[int, bytes]:
    """One POST /api/learn/ through an ASGI app, as a server would make it, without a socket."""
    import asyncio

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/learn/",
        "raw_path": b"/api/learn/",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"authorization", f"Bearer {token}".encode()),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    sent = False
    never = asyncio.Event()
    status, chunks = 0, []

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await never.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(chunks)


def asgi_probe(*, token: str, requests: int = 1000) -> dict[str, Any]:
    """Where a small HTTP request's time goes in the ASGI app, in-process (no socket, no server):
    the sync<->async hops Django makes and what each costs, threads started, DB connections
    opened; then what-ifs that change one thing at a time in this process (the app is unchanged)."""
    import threading
    from collections import defaultdict

    from asgiref import sync as asgi_sync
    from django.db.backends.base import base as db_base

    from bench.harness.payloads import stats_body

    counts = {"threads": 0, "connects": 0}
    hops: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])  # n, awaited s, ran s
    original_call = asgi_sync.SyncToAsync.__call__
    original_connect = db_base.BaseDatabaseWrapper.connect
    original_start = threading.Thread.start

    async def counted_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        func = self.func
        ran = [0.0]

        def timed(*a: Any, **k: Any) -> Any:
            t = time.perf_counter()
            try:
                return func(*a, **k)
            finally:
                ran[0] = time.perf_counter() - t

        name = getattr(func, "__qualname__", type(func).__name__)
        self.func = timed
        t0 = time.perf_counter()
        try:
            return await original_call(self, *args, **kwargs)
        finally:
            self.func = func
            entry = hops[name]
            entry[0] += 1
            entry[1] += time.perf_counter() - t0
            entry[2] += ran[0]

    def counted_connect(self: Any) -> None:
        counts["connects"] += 1
        original_connect(self)

    def counted_start(self: Any, *args: Any, **kwargs: Any) -> None:
        counts["threads"] += 1
        original_start(self, *args, **kwargs)

    # Instrumented in place for this probe and put back below: mypy rightly refuses assigning
    # to a method, which is the point here.
    asgi_sync.SyncToAsync.__call__ = counted_call  # type: ignore[method-assign]
    db_base.BaseDatabaseWrapper.connect = counted_connect  # type: ignore[method-assign]
    threading.Thread.start = counted_start  # type: ignore[method-assign]
    bodies = [stats_body("component-07", f"probe-{i}") for i in range(requests)]

    async def drive(app: Any) -> dict[str, Any]:
        for body in bodies[:50]:
            await _asgi_call(app, body, token)
        counts.update(threads=0, connects=0)
        hops.clear()
        start = time.perf_counter()
        for body in bodies:
            status, content = await _asgi_call(app, body, token)
            if status != 200:
                raise SystemExit(f"asgi probe: {status} {content[:300]!r}")
        elapsed = time.perf_counter() - start
        n = len(bodies)
        return {
            "ms": 1000 * elapsed / n,
            "hops": sum(h[0] for h in hops.values()) / n,
            "threads": counts["threads"] / n,
            "connects": counts["connects"] / n,
            "by_hop": [
                {
                    "what": name,
                    "per_request": h[0] / n,
                    "ms_awaited": 1000 * h[1] / n,
                    "ms_ran": 1000 * h[2] / n,
                }
                for name, h in sorted(hops.items(), key=lambda kv: -kv[1][1])
            ],
        }

    try:
        return _drive_variants(drive, token)
    finally:
        asgi_sync.SyncToAsync.__call__ = original_call  # type: ignore[method-assign]
        db_base.BaseDatabaseWrapper.connect = original_connect  # type: ignore[method-assign]
        threading.Thread.start = original_start  # type: ignore[method-assign]


def _drive_variants(
    drive: Callable[[Any], Coroutine[Any, Any, dict[str, Any]]], token: str
) -> dict[str, Any]:
    """The shipped app, then each what-if, driven by `drive`."""
    import asyncio

    from asgiref import sync as asgi_sync
    from django.conf import settings
    from django.core.handlers.asgi import ASGIHandler
    from django.db import connections
    from django.test.utils import override_settings

    from core.accounts.principals import principal_for_token
    from learnportal import dispatch

    out: dict[str, Any] = {"middleware": list(settings.MIDDLEWARE)}
    out["shipped"] = asyncio.run(drive(ASGIHandler()))
    conn_settings = connections["default"].settings_dict
    pooled = bool(conn_settings.get("OPTIONS", {}).get("pool"))
    if not pooled:
        # With PostgreSQL's pool, connections are reused already (and persistent ones are refused).
        conn_settings["CONN_MAX_AGE"] = None
        connections["default"].close()
        out["conn_max_age_none"] = asyncio.run(drive(ASGIHandler()))
    with override_settings(MIDDLEWARE=[]):
        out["no_middleware"] = asyncio.run(drive(ASGIHandler()))
    # The floor: authenticate once and dispatch in one hop, as the WebSocket consumer does.
    principal = principal_for_token(token)
    if principal is None:
        raise SystemExit("unknown token")

    async def one_hop(scope: Any, receive: Any, send: Any) -> None:
        message = await receive()
        reply = await asgi_sync.sync_to_async(dispatch.dispatch)(principal, message["body"])
        payload = orjson.dumps(reply.body)
        await send({"type": "http.response.start", "status": reply.status, "headers": []})
        await send({"type": "http.response.body", "body": payload})

    out["one_hop_dispatch"] = asyncio.run(drive(one_hop))
    conn_settings["CONN_MAX_AGE"] = 0
    out["pooled"] = pooled
    return out
