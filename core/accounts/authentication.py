"""DRF authentication: bearer tokens and browser sessions both yield a Principal."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework import authentication, exceptions

from core.accounts.credentials import Credential, principals, usage
from core.accounts.models import hash_token
from core.accounts.principals import Principal, bearer_token, principal_for_user
from core.projects.selection import PROJECT_FIELD, principal_in

if TYPE_CHECKING:
    from django.http import HttpRequest
    from rest_framework.request import Request


class BearerTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request: Request) -> tuple[Principal, None] | None:
        header = authentication.get_authorization_header(request)
        if not header:
            return None
        raw = bearer_token(header)
        if raw is None:
            raise exceptions.AuthenticationFailed(
                "The Authorization header must be 'Bearer <token>'."
            )
        principal = token_principal(raw)
        if principal is None:
            raise exceptions.AuthenticationFailed("The token is unknown or has been revoked.")
        return principal_in(principal, request.query_params.get(PROJECT_FIELD)), None

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


def token_principal(raw: str) -> Principal | None:
    """Who a raw bearer token stands for now, from the principal cache (no query on most
    requests: accounts.credentials), its use noted; None if it is unknown or revoked."""
    principal = principals.principal(Credential("token", hash_token(raw)))
    if principal is not None:
        usage.seen(principal)
    return principal


def working_bearer_principal(request: HttpRequest) -> Principal | None:
    """The principal of a request's bearer token if it has one that works, else None (for a
    view's fast path: every other request goes through the authenticators above, which give
    the error, or a session with its CSRF check)."""
    raw = bearer_token(request.META.get("HTTP_AUTHORIZATION"))
    return None if raw is None else token_principal(raw)


class PrincipalSessionAuthentication(authentication.SessionAuthentication):
    """A logged-in person, with CSRF enforced as DRF does for sessions."""

    def authenticate(self, request: Request) -> tuple[Principal, None] | None:
        result = super().authenticate(request)
        if result is None:
            return None
        principal = principal_for_user(result[0])
        return principal_in(principal, request.query_params.get(PROJECT_FIELD)), None

    def enforce_csrf(self, request: Request) -> None:
        # Check the Django request: the CSRF check reads `request.POST`, which on DRF's request
        # would run the view's parsers, and the learn/* views have none (they read the raw body),
        # so every JSON POST with a CSRF cookie would be refused with 415.
        # DRF's check takes any HttpRequest (it calls CsrfViewMiddleware); its stubs say Request.
        super().enforce_csrf(request._request)  # type: ignore[arg-type]


def principal_of(request: Request) -> Principal:
    """The caller of a REST view, in the project its `?project=` names (core.projects.selection):
    the Principal one of the authenticators above set.

    DRF's stubs type `request.user` as a Django user; here it is a Principal whenever a view
    runs, since IsAuthenticated (the default permission) lets no request without one through.
    """
    user: object = request.user
    if not isinstance(user, Principal):
        raise exceptions.NotAuthenticated()
    return principal_in(user, request.query_params.get(PROJECT_FIELD))
