"""The API speaks JSON to every client, whatever its Accept header asks for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation

if TYPE_CHECKING:
    from collections.abc import Iterable

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
