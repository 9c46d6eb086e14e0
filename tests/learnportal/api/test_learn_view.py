"""POST /api/learn/ with a working bearer token skips DRF's per-request machinery
(learnportal.api.learn.LearnView.dispatch): it answers as DRF's path does, and every other
request still goes DRF's way."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.accounts import services
from core.accounts.models import ApiToken
from tests.builders import stats_req
from tests.core.accounts.test_session import csrf_token_for, logged_in, post

if TYPE_CHECKING:
    from tests.harness import Actor

LEARN_HEADERS = ("Content-Type", "Allow")


def test_a_bearer_post_answers_with_the_headers_of_a_session_post(ann: Actor) -> None:
    by_token = ann.learn(stats_req())
    client = logged_in("ann")
    by_session = post(client, stats_req(), HTTP_X_CSRFTOKEN=csrf_token_for(client))
    assert by_token.status_code == by_session.status_code == 200
    assert [by_token.get(h) for h in LEARN_HEADERS] == [by_session.get(h) for h in LEARN_HEADERS]
    assert by_token["Content-Type"] == "application/json"
    assert set(by_token.json()) == set(by_session.json())


def test_a_bearer_error_answers_with_the_headers_of_a_session_error(ann: Actor) -> None:
    body = {"type": "learn/stats/req", "id": "s1", "component_name": 7}
    by_token = ann.learn(body)
    client = logged_in("ann")
    by_session = post(client, body, HTTP_X_CSRFTOKEN=csrf_token_for(client))
    assert by_token.status_code == by_session.status_code == 400
    assert [by_token.get(h) for h in LEARN_HEADERS] == [by_session.get(h) for h in LEARN_HEADERS]
    assert by_token.json()["code"] == by_session.json()["code"] == "invalid"


def test_a_refused_bearer_token_beside_a_session_is_unauthenticated(ann: Actor) -> None:
    """As DRF decides: the bearer authenticator comes first, and a token it refuses is an
    answer, not a reason to try the session."""
    client = logged_in("ann")
    services.token_revoke(token=ApiToken.objects.get(name="ann-personal"))
    response = post(
        client,
        stats_req(),
        HTTP_X_CSRFTOKEN=csrf_token_for(client),
        HTTP_AUTHORIZATION=f"Bearer {ann.token}",
    )
    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"
    assert response["WWW-Authenticate"] == "Bearer"


def test_a_session_post_beside_no_bearer_header_still_needs_its_csrf_token(ann: Actor) -> None:
    response = post(logged_in("ann"), stats_req())
    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"
