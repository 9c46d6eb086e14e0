"""The rate limit for every request Django serves outside the API: the portal's pages, the login
page, the admin, a page that is not there.

Under /api/ the DRF views count their own requests (core.ratelimit), so that a learn/*
POST is counted once, in dispatch. Static files are served by WhiteNoise before this middleware
and are not counted. A person is counted as their principal, as with a personal token; anyone
else under their client's address.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.accounts.principals import principal_for_user
from core.ratelimit import address_key, retry_after_for
from core.web import page
from learnportal.api.errors import with_retry_after

if TYPE_CHECKING:
    from collections.abc import Callable

    from django.http import HttpRequest, HttpResponse
    from django.http.response import HttpResponseBase

API_PREFIX = "/api/"


def page_key(request: HttpRequest) -> str:
    user = request.user
    if user.is_authenticated:
        return principal_for_user(user).key
    return address_key(request)


def too_many_requests_page(request: HttpRequest, retry_after: int) -> HttpResponse:
    response = page(request, "portal/429.html", {"retry_after": retry_after}, status=429)
    return with_retry_after(response, retry_after)


class PageRateLimitMiddleware:
    """After AuthenticationMiddleware, which says who the person is."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        if not request.path_info.startswith(API_PREFIX):
            retry_after = retry_after_for(page_key(request))
            if retry_after is not None:
                return too_many_requests_page(request, retry_after)
        return self.get_response(request)
