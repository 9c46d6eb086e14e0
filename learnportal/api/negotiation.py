"""The API speaks JSON to every client, whatever its Accept header asks for (and fast)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import JSONRenderer

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from rest_framework.renderers import BaseRenderer
    from rest_framework.request import Request


class JSONForEveryClient(DefaultContentNegotiation):
    """A browser asking for HTML, or a client for XML, gets the view's first renderer (JSON).

    Views with several renderers (the schema's YAML and JSON) still honour Accept and
    `?format=`.
    """

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        try:
            selected: tuple[BaseRenderer, str] = super().select_renderer(
                request, renderers, format_suffix
            )
        except NotAcceptable:
            renderer = next(iter(renderers))  # DRF passes the view's list of renderers
            return renderer, renderer.media_type
        return selected


class FastJSONRenderer(JSONRenderer):
    """JSON by orjson: learn/* envelopes are plain JSON values already (the protocol's models
    dump them so), and DRF's encoder costs a noticeable share of a small request."""

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        if data is None:
            return b""
        return orjson.dumps(data)
