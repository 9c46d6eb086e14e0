"""DRF authentication: bearer tokens and browser sessions both yield a Principal."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rest_framework import authentication, exceptions

from learnportal.accounts.credentials import Credential, principals, usage
from learnportal.accounts.models import hash_token
from learnportal.accounts.principals import Principal, bearer_token, principal_for_user

if TYPE_CHECKING:
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
        # From the principal cache: no query on most requests (accounts.credentials).
        principal = principals.principal(Credential("token", hash_token(raw)))
        if principal is None:
            raise exceptions.AuthenticationFailed("The token is unknown or has been revoked.")
        usage.seen(principal)
        return principal, None

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


class PrincipalSessionAuthentication(authentication.SessionAuthentication):
    """A logged-in person, with CSRF enforced as DRF does for sessions."""

    def authenticate(self, request: Request) -> tuple[Principal, None] | None:
        result = super().authenticate(request)
        if result is None:
            return None
        return principal_for_user(result[0]), None

    def enforce_csrf(self, request: Request) -> None:
        # Check the Django request: the CSRF check reads `request.POST`, which on DRF's request
        # would run the view's parsers, and the learn/* views have none (they read the raw body),
        # so every JSON POST with a CSRF cookie would be refused with 415.
        # DRF's check takes any HttpRequest (it calls CsrfViewMiddleware); its stubs say Request.
        super().enforce_csrf(request._request)  # type: ignore[arg-type]


def principal_of(request: Request) -> Principal:
    """The caller of a REST view: the Principal one of the authenticators above set.

    DRF's stubs type `request.user` as a Django user; here it is a Principal whenever a view
    runs, since IsAuthenticated (the default permission) lets no request without one through.
    """
    user: object = request.user
    if not isinstance(user, Principal):
        raise exceptions.NotAuthenticated()
    return user
