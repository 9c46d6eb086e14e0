"""Django's ASGI handler, running a request's middleware and (sync) view in one thread hop.

Under ASGI Django runs an async-capable middleware (every `MiddlewareMixin`) on the event loop
and hands each of its `process_request` and `process_response` to a worker thread and back:
with this project's middleware that was a dozen hops a request, 4-5 ms of a small request's
8-10 (BENCHMARKS.md, "The request's thread hops"). Every view here is sync, so the chain runs
as a sync chain, entered once, the way Django itself runs it when the outermost middleware is
sync-only: one hop into the request's thread, the view called in it directly. What runs, and in
which order, is unchanged; the request still has its own thread and database connection, and
a streamed response still pulls its chunks in that thread (feedback.api.streamed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler

from learnportal.baseline import with_baseline_headers

if TYPE_CHECKING:
    from collections.abc import Callable

    from django.http import HttpRequest
    from django.http.response import HttpResponseBase


class OneHopASGIHandler(ASGIHandler):
    async def send_response(self, response: HttpResponseBase, send: Any) -> None:
        # Also the answers Django gives before any middleware (a body it cannot read).
        await super().send_response(with_baseline_headers(response), send)

    def load_middleware(self, is_async: bool = False) -> None:
        super().load_middleware(is_async=False)
        chain: Callable[[HttpRequest], HttpResponseBase] = self._middleware_chain  # type: ignore[has-type]
        # Django awaits the chain (BaseHandler.get_response_async).
        self._middleware_chain = sync_to_async(chain, thread_sensitive=True)
