"""The headers every HTTP answer carries, whatever made it: `X-Content-Type-Options: nosniff`
and a Content-Security-Policy.

Pages get the site's policy from core.csp and nosniff from Django's SecurityMiddleware,
but not every answer passes them: django-csp leaves out Django's technical 404 and 500 pages
under DEBUG (their inline style and script would be blocked), and Django's ASGI handler answers
a body it cannot read (400, 413) before any middleware. Whatever still lacks a header gets it
here, from the outermost middleware and from the ASGI handler (learnportal.asgihandler).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings

if TYPE_CHECKING:
    from collections.abc import Callable

    from django.http import HttpRequest
    from django.http.response import HttpResponseBase

# Nothing may load from anywhere: an error answer needs nothing but itself.
FALLBACK_POLICY = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
# DEBUG's technical pages style and script themselves inline; still nothing from elsewhere.
DEBUG_PAGE_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


def with_baseline_headers(response: HttpResponseBase) -> HttpResponseBase:
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    if "Content-Security-Policy" not in response.headers:
        policy = DEBUG_PAGE_POLICY if settings.DEBUG else FALLBACK_POLICY
        response.headers["Content-Security-Policy"] = policy
    return response


class BaselineHeadersMiddleware:
    """First in MIDDLEWARE: it sees every answer last, the error pages of the others too."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        return with_baseline_headers(self.get_response(request))
