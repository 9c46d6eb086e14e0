"""People logged in with a session use the same API, with CSRF enforced."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.test import Client, RequestFactory

from feedback.models import Feedback
from tests.builders import experience, experience_req, feedback_req, stats_req

if TYPE_CHECKING:
    from tests.harness import Actor, ClientResponse

PASSWORD = "correct-horse-9"


def logged_in(username: str) -> Client:
    client = Client(enforce_csrf_checks=True)
    assert client.login(request=HttpRequest(), username=username, password=PASSWORD)
    return client


def csrf_token_for(client: Client) -> str:
    """Give the client a CSRF cookie and return the token a page would embed."""
    request = RequestFactory().get("/")
    token = get_token(request)
    client.cookies["csrftoken"] = request.META["CSRF_COOKIE"]
    return token


def post(client: Client, body: dict[str, Any], **headers: Any) -> ClientResponse:
    return client.post(
        "/api/learn/", data=orjson.dumps(body), content_type="application/json", **headers
    )


def test_a_session_post_without_a_csrf_token_is_forbidden(ann: Actor) -> None:
    client = logged_in("ann")
    response = post(client, feedback_req({"feedback_id": "fb-csrf", "polarity": "positive"}))
    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"
    assert response.json()["type"] == "learn/error"
    assert not Feedback.objects.filter(feedback_id="fb-csrf").exists()


def test_a_session_post_with_a_wrong_csrf_token_is_forbidden(ann: Actor) -> None:
    client = logged_in("ann")
    csrf_token_for(client)
    body = feedback_req({"polarity": "positive"})
    response = post(client, body, HTTP_X_CSRFTOKEN="x" * 32)
    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"
    assert Feedback.objects.count() == 0


def test_a_session_post_with_the_csrf_token_is_answered(ann: Actor) -> None:
    client = logged_in("ann")
    token = csrf_token_for(client)
    body = feedback_req({"feedback_id": "fb-session", "polarity": "positive", "score": 0.5})
    response = post(client, body, HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 200, response.json()
    assert response.json()["recorded"] == 1
    row = Feedback.objects.get(feedback_id="fb-session")
    assert (row.annotator_id, row.source) == ("ann", "human")


def test_a_session_keeps_the_role_of_the_person(ann: Actor) -> None:
    client = logged_in("ann")
    token = csrf_token_for(client)
    response = post(client, experience_req(experience()), HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"
    assert post(client, stats_req(), HTTP_X_CSRFTOKEN=token).status_code == 200


def test_a_session_may_read_the_capability_without_csrf(ann: Actor) -> None:
    response = logged_in("ann").get("/api/learn/")
    assert response.status_code == 200
    assert response.json()["capability"] == "learning"


def test_after_logout_the_session_is_unauthenticated(ann: Actor) -> None:
    client = logged_in("ann")
    client.logout()
    token = csrf_token_for(client)
    response = post(client, stats_req(), HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"
