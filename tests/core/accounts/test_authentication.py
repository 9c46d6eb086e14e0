"""`principal_of`: the caller a REST view reads, as the authenticators set it."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import RequestFactory
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request

from core.accounts.authentication import BearerTokenAuthentication, principal_of
from core.accounts.roles import Role
from tests.factories import ApiTokenFactory


def _request(**headers: Any) -> Request:
    django_request = RequestFactory().get("/api/routing/", **headers)
    return Request(django_request, authenticators=[BearerTokenAuthentication()])


def test_a_view_reads_the_principal_of_the_token(db: None) -> None:
    raw = ApiTokenFactory.create(name="bot").raw
    principal = principal_of(_request(HTTP_AUTHORIZATION=f"Bearer {raw}"))
    assert (principal.name, principal.role, principal.is_human) == ("bot", Role.AGENT, False)


def test_a_request_with_no_credential_is_unauthenticated(db: None) -> None:
    with pytest.raises(NotAuthenticated):
        principal_of(_request())
