"""The OpenAPI document as a Markdown page: every operation by tag, then every schema.

Generated at build time from the same drf-spectacular generator as `/api/schema/`, so the page
cannot drift from the API; read offline, with no script and nothing from a CDN.
"""

from __future__ import annotations

import json
import re
from typing import Any

METHODS = ("get", "put", "post", "patch", "delete")
CODE_SPAN = re.compile(r"(`+.+?`+)")


def schema_document() -> dict[str, Any]:
    """The OpenAPI document `/api/schema/` serves, as plain JSON values (Django set up)."""
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.renderers import OpenApiJsonRenderer

    schema = SchemaGenerator().get_schema(request=None, public=True)
    return dict(json.loads(OpenApiJsonRenderer().render(schema, renderer_context={})))


def cell(text: str) -> str:
    """Text for one table cell: one line, no column break, no HTML outside code spans."""
    text = " ".join(str(text).split()).replace("|", "\\|")
    return "".join(
        part if CODE_SPAN.fullmatch(part) else part.replace("<", "&lt;").replace(">", "&gt;")
        for part in CODE_SPAN.split(text)
    )


def anchor(name: str) -> str:
    return "schema-" + re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def type_of(schema: dict[str, Any]) -> str:
    """A schema's type in a few words, a referenced one linked to its section."""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[`{name}`](#{anchor(name)})"
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return " or ".join(type_of(part) for part in schema[key])
    if "allOf" in schema:
        return " ".join(type_of(part) for part in schema["allOf"])
    if set(schema) == {"properties"}:  # a constraint within allOf: `code` is one of these
        return ", ".join(f"with `{k}` {type_of(v)}" for k, v in schema["properties"].items())
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    if "enum" in schema:
        return "one of " + ", ".join(f"`{json.dumps(value)}`" for value in schema["enum"])
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        return " or ".join(type_of({**schema, "type": one}) for one in kind)
    if kind == "array":
        return f"list of {type_of(schema.get('items', {}))}"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"object of {type_of(schema['additionalProperties'])}"
    return f"`{kind}`"


def body_of(content: dict[str, Any]) -> str:
    return "; ".join(
        f"`{media}`: {type_of(value.get('schema', {}))}" for media, value in content.items()
    )


def operation_section(path: str, method: str, operation: dict[str, Any]) -> list[str]:
    lines = [f"### `{method.upper()} {path}`", ""]
    if operation.get("summary"):
        lines += [f"**{operation['summary']}**", ""]
    if operation.get("description"):
        lines += [operation["description"], ""]
    parameters = operation.get("parameters", [])
    if parameters:
        lines += [
            "| parameter | in | type | required | meaning |",
            "| --- | --- | --- | --- | --- |",
        ]
        lines += [
            f"| `{p['name']}` | {p['in']} | {cell(type_of(p.get('schema', {})))} | "
            f"{'yes' if p.get('required') else 'no'} | {cell(p.get('description', ''))} |"
            for p in parameters
        ]
        lines.append("")
    if "requestBody" in operation:
        lines += [f"Body: {body_of(operation['requestBody'].get('content', {}))}", ""]
    lines += ["| answer | meaning | body |", "| --- | --- | --- |"]
    for status, response in operation.get("responses", {}).items():
        body = cell(body_of(response.get("content", {})))
        lines.append(f"| {status} | {cell(response.get('description', ''))} | {body} |")
    return [*lines, ""]


def schema_section(name: str, schema: dict[str, Any]) -> list[str]:
    lines = [f"### `{name}` {{#{anchor(name)}}}", ""]
    if schema.get("description"):
        lines += [schema["description"], ""]
    properties = schema.get("properties", {})
    if not properties:
        return [*lines, f"Type: {type_of(schema)}", ""]
    required = set(schema.get("required", []))
    lines += ["| field | type | required | meaning |", "| --- | --- | --- | --- |"]
    lines += [
        f"| `{field}` | {cell(type_of(value))} | {'yes' if field in required else 'no'} | "
        f"{cell(value.get('description', ''))} |"
        for field, value in properties.items()
    ]
    return [*lines, ""]


def markdown(document: dict[str, Any]) -> str:
    """The operations, grouped by their first tag, and the schemas they name."""
    by_tag: dict[str, list[str]] = {}
    for path, item in document["paths"].items():
        for method in METHODS:
            if method in item:
                operation = item[method]
                tag = (operation.get("tags") or ["other"])[0]
                by_tag.setdefault(tag, []).extend(operation_section(path, method, operation))
    lines = [f"## `{tag}`\n\n" + "\n".join(section) for tag, section in sorted(by_tag.items())]
    schemas = document.get("components", {}).get("schemas", {})
    lines.append("## Schemas\n")
    lines += ["\n".join(schema_section(name, schemas[name])) for name in sorted(schemas)]
    return "\n".join(lines)
