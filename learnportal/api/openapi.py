"""Teach drf-spectacular how LearnPortal authenticates."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "learnportal.accounts.authentication.BearerTokenAuthentication"
    name = "bearerToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A token from `manage.py createtoken`: `Authorization: Bearer lp_…`",
        }


class SessionScheme(OpenApiAuthenticationExtension):
    target_class = "learnportal.accounts.authentication.PrincipalSessionAuthentication"
    name = "session"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {"type": "apiKey", "in": "cookie", "name": "sessionid"}
