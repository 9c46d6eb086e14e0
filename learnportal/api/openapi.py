"""Teach drf-spectacular how LearnPortal authenticates, and how its pydantic bodies look."""

from __future__ import annotations

from typing import Any

from drf_spectacular.drainage import set_override
from drf_spectacular.extensions import OpenApiAuthenticationExtension, OpenApiSerializerExtension
from drf_spectacular.plumbing import ResolvedComponent
from pydantic.json_schema import GenerateJsonSchema


class BearerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "core.accounts.authentication.BearerTokenAuthentication"
    name = "bearerToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A token from `manage.py createtoken`: `Authorization: Bearer lp_…`",
        }


class SessionScheme(OpenApiAuthenticationExtension):
    target_class = "core.accounts.authentication.PrincipalSessionAuthentication"
    name = "session"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {"type": "apiKey", "in": "cookie", "name": "sessionid"}


class ResponseJsonSchema(GenerateJsonSchema):
    """An answer carries every field of its model, defaults included: say so."""

    def field_is_required(self, field: Any, total: bool) -> bool:
        if self.mode == "serialization" and field["type"] != "typed-dict-field":
            return True
        return super().field_is_required(field, total)


class PydanticScheme(OpenApiSerializerExtension):
    """Pydantic models as bodies: what a view validates with (limits, patterns) is the schema.

    Replaces drf-spectacular's own extension, which documents request bodies in pydantic's
    serialization mode (the shape of an answer, not of what a view accepts).
    """

    target_class = "pydantic.BaseModel"
    match_subclasses = True
    priority = 1

    def get_name(self, auto_schema: Any, direction: str) -> str:
        set_override(self.target, "suppress_collision_warning", True)
        name: str = self.target.__name__
        return name

    def map_serializer(self, auto_schema: Any, direction: str) -> dict[str, Any]:
        schema: dict[str, Any] = self.target.model_json_schema(
            ref_template="#/components/schemas/{model}",
            mode="validation" if direction == "request" else "serialization",
            schema_generator=ResponseJsonSchema,
        )
        for name, sub_schema in schema.pop("$defs", {}).items():
            auto_schema.registry.register_on_missing(
                ResolvedComponent(
                    name=name, type=ResolvedComponent.SCHEMA, object=name, schema=sub_schema
                )
            )
        return schema
