"""The OpenAPI document of every HTTP endpoint, and its rendering."""

from __future__ import annotations

from rest_framework.test import APIClient


def test_the_schema_is_an_openapi_document_with_the_learn_and_turns_paths(db: None) -> None:
    response = APIClient().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"].startswith("3.")
    assert {"/api/learn/", "/api/turns/"} <= set(document["paths"])
    assert {"get", "post"} <= set(document["paths"]["/api/learn/"])
    assert {"get", "post"} <= set(document["paths"]["/api/turns/"])


def test_the_schema_describes_the_learn_error_statuses(db: None) -> None:
    document = APIClient().get("/api/schema/", {"format": "json"}).json()
    statuses = set(document["paths"]["/api/learn/"]["post"]["responses"])
    assert {"200", "400", "401", "403", "404", "409", "413", "429", "503"} <= statuses
    assert "bearerToken" in document["components"]["securitySchemes"]


def test_the_schema_defaults_to_yaml(db: None) -> None:
    response = APIClient().get("/api/schema/")
    assert response.status_code == 200
    assert b"/api/learn/:" in response.content


def test_the_docs_page_renders_html_and_its_script_loads_the_schema(db: None) -> None:
    response = APIClient().get("/api/docs/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/html")
    # The start-up script is a file of its own (no inline script under the CSP).
    assert b'<script src="/api/docs/?script="></script>' in response.content
    script = APIClient().get("/api/docs/?script=")
    assert script["Content-Type"].startswith("application/javascript")
    assert b"/api/schema/" in script.content
