"""Every page carries one strict Content-Security-Policy: no inline script, no eval, no framing."""

from __future__ import annotations

from typing import Any

from django.test import Client

from core.accounts.models import User
from feedback.models import Turn
from refinement.models import Plan

POLICY = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "connect-src": ["'self'", "ws://testserver"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "frame-ancestors": ["'none'"],
    "form-action": ["'self'"],
}


def directives(header: str) -> dict[str, list[str]]:
    parts = [part.split() for part in header.split(";") if part.strip()]
    return {name: values for name, *values in parts}


def pages() -> list[tuple[str | None, str, int]]:
    """(who is logged in, path, status) for every kind of page the portal serves."""
    turn = Turn.objects.order_by("pk").first()
    plan = Plan.objects.order_by("pk").first()
    assert turn is not None and plan is not None
    admin = User.objects.get(username="admin")
    return [
        (None, "/login/", 200),
        ("annotator", "/", 200),
        ("annotator", "/turns/", 200),
        ("annotator", f"/turns/{turn.pk}/", 200),
        ("annotator", "/plans/", 403),  # the portal's own 403 page
        ("reviewer", "/plans/", 200),
        ("reviewer", f"/plans/{plan.plan_id}/", 200),
        ("reviewer", "/history/", 200),
        ("reviewer", "/api/docs/", 200),
        ("reviewer", "/api/docs/?script=", 200),
        ("admin", "/admin/", 200),
        ("admin", "/admin/accounts/user/", 200),
        ("admin", f"/admin/accounts/user/{admin.pk}/change/", 200),
        ("admin", "/admin/accounts/apitoken/add/", 200),
        (None, "/admin/login/", 200),
        ("annotator", "/no-such-page/", 404),
    ]


def test_every_page_carries_the_strict_policy(seeded: None) -> None:
    for who, path, status in pages():
        client = Client()
        if who is not None:
            client.force_login(User.objects.get(username=who))
        response = client.get(path)
        assert response.status_code == status, path
        assert directives(response.headers.get("Content-Security-Policy", "")) == POLICY, path


def test_the_pages_websocket_origin_follows_the_scheme_and_host(db: None) -> None:
    response = Client().get("/login/", secure=True, headers={"host": "127.0.0.1:8443"})
    assert directives(response.headers["Content-Security-Policy"])["connect-src"] == [
        "'self'",
        "wss://127.0.0.1:8443",
    ]


def test_a_request_for_a_host_the_portal_does_not_serve_is_refused_without_a_websocket_origin(
    db: None,
) -> None:
    response = Client().get("/login/", headers={"host": "evil.example"})
    assert response.status_code == 400
    policy = directives(response.headers.get("Content-Security-Policy", ""))
    assert "evil.example" not in " ".join(policy.get("connect-src", []))


def test_no_page_template_has_inline_script_or_style(settings: Any) -> None:
    """The policy would block them; a page must load its script from static/<app>/."""
    import re
    from pathlib import Path

    inline = re.compile(
        r"<script(?![^>]*\bsrc=)[^>]*>|<style\b|\son[a-z]+\s*=|javascript:|\sstyle\s*=", re.I
    )
    templates = Path(settings.BASE_DIR, "templates").rglob("*.html")
    found = {
        str(path): inline.findall(path.read_text())
        for path in templates
        if inline.search(path.read_text())
    }
    assert found == {}
