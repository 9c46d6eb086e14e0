"""Every /a2e answer, a refusal and the stream too, carries the Content-Security-Policy and the
`nosniff` that Django's middleware gives the portal's own answers (consumers skip it)."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import httpx
from django.test import Client

from tests.learnportal.a2e.client import A2ESession, message
from tests.learnportal.settings.test_content_security_policy import directives

if TYPE_CHECKING:
    from tests.harness import Actor


def portal_policy(host: str) -> dict[str, list[str]]:
    """What the portal sends for a JSON answer to this host."""
    response = Client().get("/api/learn/", headers={"host": host})
    return directives(response.headers["Content-Security-Policy"])


def test_every_a2e_answer_carries_the_portals_policy_and_nosniff(
    a2e_url: str, agent: Actor
) -> None:
    session = A2ESession(a2e_url, agent.token).open()
    stream = session.connect()
    unknown = {"X-Session-Id": "0" * 32 + ".nope"}
    answers = {
        "session": session.http.post("/session"),
        "send": session.post(message("ping")),
        "unknown session": httpx.post(f"{a2e_url}/send", content=b"{}", headers=unknown),
        "unknown stream": httpx.get(f"{a2e_url}/stream", headers=unknown),
        "wrong method": httpx.get(f"{a2e_url}/send"),
        "bad host": httpx.post(f"{a2e_url}/session", headers={"Host": "evil.example"}),
    }
    assert stream.headers is not None
    expected = portal_policy(urlsplit(a2e_url).netloc)
    assert "ws://" + urlsplit(a2e_url).netloc in expected["connect-src"]
    for name, headers in [
        *((n, r.headers) for n, r in answers.items()),
        ("stream", stream.headers),
    ]:
        assert headers["X-Content-Type-Options"] == "nosniff", name
        policy = directives(headers["Content-Security-Policy"])
        if name == "bad host":  # no origin of ours to name, as the middleware does
            policy["connect-src"] = expected["connect-src"]
        assert policy == expected, name
    session.close()
