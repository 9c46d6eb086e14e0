"""LEARNPORTAL_URL and LEARNPORTAL_TOKEN: where a client goes and as whom when not told.

The host is httpx's MockTransport, which records where each request went and its credential.
"""

from __future__ import annotations

import httpx
import pytest

from learnportal_client import AsyncLearnClient, LearnClient

CAPABILITY = {"capability": "learning", "max_batch": 10}


class Host:
    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []  # (url, Authorization) of each request

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append((str(request.url), request.headers["Authorization"]))
        return httpx.Response(200, json=CAPABILITY)


@pytest.fixture
def host() -> Host:
    return Host()


def test_a_client_made_without_url_or_token_reads_both_from_the_environment(
    host: Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEARNPORTAL_URL", "http://portal.example:8000/")
    monkeypatch.setenv("LEARNPORTAL_TOKEN", "env-token")
    with LearnClient(transport=httpx.MockTransport(host)) as client:
        client.discover()
    assert host.seen == [("http://portal.example:8000/api/learn/", "Bearer env-token")]


async def test_the_awaited_client_reads_them_too(
    host: Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEARNPORTAL_URL", "http://portal.example")
    monkeypatch.setenv("LEARNPORTAL_TOKEN", "env-token")
    async with AsyncLearnClient(transport=httpx.MockTransport(host)) as client:
        await client.discover()
    assert host.seen == [("http://portal.example/api/learn/", "Bearer env-token")]


def test_arguments_passed_win_over_the_environment(
    host: Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEARNPORTAL_URL", "http://from-env")
    monkeypatch.setenv("LEARNPORTAL_TOKEN", "env-token")
    transport = httpx.MockTransport(host)
    with LearnClient("http://given", token="given-token", transport=transport) as client:
        client.discover()
    with LearnClient(token="given-token", transport=transport) as client:  # the URL from env
        client.discover()
    assert host.seen == [
        ("http://given/api/learn/", "Bearer given-token"),
        ("http://from-env/api/learn/", "Bearer given-token"),
    ]


@pytest.mark.parametrize(
    ("unset", "argument"), [("LEARNPORTAL_URL", "base_url"), ("LEARNPORTAL_TOKEN", "token")]
)
@pytest.mark.parametrize("kind", [LearnClient, AsyncLearnClient])
def test_neither_argument_nor_variable_is_an_error_that_names_both(
    unset: str,
    argument: str,
    kind: type[LearnClient | AsyncLearnClient],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LEARNPORTAL_URL", "http://from-env")
    monkeypatch.setenv("LEARNPORTAL_TOKEN", "env-token")
    monkeypatch.delenv(unset)
    with pytest.raises(ValueError, match=rf"pass {argument}=\.\.\. or set {unset}$"):
        kind()
    monkeypatch.setenv(unset, "  ")  # blank is not set
    with pytest.raises(ValueError, match=unset):
        kind()
