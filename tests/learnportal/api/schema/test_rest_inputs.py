"""What the REST views accept beside learn/*: typed query parameters, JSON to every client."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import orjson
import pytest
from rest_framework.test import APIClient

from core.accounts.models import User

if TYPE_CHECKING:
    from tests.harness import Actor


def _login(username: str) -> APIClient:
    client = APIClient()
    client.force_login(User.objects.get(username=username))
    return client


def test_a_logged_in_browser_listing_turns_gets_json(ann: Actor) -> None:
    browser = _login("ann")

    response = browser.get("/api/turns/", HTTP_ACCEPT="text/html,application/xhtml+xml")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json()["results"] == []


def test_a_client_asking_for_xml_gets_json_too(ann: Actor) -> None:
    response = ann.client.get("/api/routing/", HTTP_ACCEPT="application/xml")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"


@pytest.mark.parametrize("url", ["/api/turns/", "/api/plans/", "/api/history/"])
@pytest.mark.parametrize("limit", ["", "ten", "1.5", "0", "100000"])
def test_a_limit_that_is_no_whole_number_in_range_is_invalid_naming_it(
    boss: Actor, url: str, limit: str
) -> None:
    response = boss.client.get(url, {"limit": limit})

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert [d["loc"] for d in body["details"]] == [["limit"]]


def test_unrated_is_true_or_false(agent: Actor, ann: Actor) -> None:
    response = ann.client.get("/api/turns/", {"unrated": "maybe"})

    assert response.status_code == 400
    assert response.json()["details"][0]["loc"] == ["unrated"]
    assert ann.client.get("/api/turns/", {"unrated": "false"}).status_code == 200


def test_a_nul_character_in_a_filter_is_invalid_naming_it(ann: Actor) -> None:
    response = ann.client.get("/api/turns/", {"component_name": "a\x00b"})

    assert response.status_code == 400
    assert response.json()["details"][0]["loc"] == ["component_name"]


def test_a_cursor_of_no_page_is_not_found_naming_the_cursor(ann: Actor) -> None:
    response = ann.client.get("/api/turns/", {"cursor": "not-a-cursor"})

    assert response.status_code == 404
    body = response.json()
    assert body["code"] == "not_found"
    assert body["details"][0]["loc"] == ["cursor"]


@pytest.mark.parametrize("position", ["abc", "99999999999999999999", "1e5", "-"])
def test_a_cursor_whose_position_is_no_turn_id_is_not_found_naming_the_cursor(
    ann: Actor, position: str
) -> None:
    cursor = base64.b64encode(urlencode({"p": position}).encode()).decode()

    response = ann.client.get("/api/turns/", {"cursor": cursor})

    assert response.status_code == 404
    body = response.json()
    assert body["code"] == "not_found"
    assert body["details"][0]["loc"] == ["cursor"]


def test_a_step_filter_that_is_no_step_id_is_invalid_naming_it(ann: Actor) -> None:
    response = ann.client.get("/api/skills/", {"step": "../etc"})

    assert response.status_code == 400
    assert response.json()["details"][0]["loc"] == ["step"]


def test_a_rest_body_over_the_size_limit_is_too_large(agent: Actor, settings: Any) -> None:
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024
    turn = {"prompt": "p" * 2000, "response": "r", "model": "m"}
    body = orjson.dumps({"turns": [{"correlation_id": "c-1", "rated_turn": turn}]})

    response = agent.client.post("/api/turns/", body, content_type="application/json")

    assert response.status_code == 413
    assert response.json()["code"] == "too_large"


def test_a_blank_rejection_reason_is_invalid_naming_it(rev: Actor) -> None:
    body = orjson.dumps({"reason": " \t\x1c"})

    response = rev.client.post("/api/proposals/p-1/reject/", body, content_type="application/json")

    assert response.status_code == 400
    assert response.json()["details"][0]["loc"] == ["reason"]


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("get", "/api/nothing-here/"),
        ("post", "/api/nothing-here/"),
        ("get", "/api/steps/a/b/c/"),
    ],
)
def test_an_api_url_that_no_endpoint_serves_is_a_json_not_found(
    ann: Actor, method: str, url: str
) -> None:
    response = getattr(ann.client, method)(url)

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json()["code"] == "not_found"


def test_an_api_url_without_its_trailing_slash_is_still_redirected(ann: Actor) -> None:
    response = ann.client.get("/api/turns", {"limit": "2"})

    assert response.status_code == 301
    assert response["Location"] == "/api/turns/?limit=2"
