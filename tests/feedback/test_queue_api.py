"""`/api/queue/next/`, `release/`, `skip/`, `undo/`: the queue over REST, for people only.

A person's human feedback ends their lease whatever path it takes: learn/feedback/req over
HTTP and WebSocket, and the portal's rating form.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
import pytest
from django.test import Client

from core.accounts.models import User
from feedback.models import Lease, Retraction, Skip, Turn
from tests.builders import feedback, feedback_req, turn
from tests.harness import ok

if TYPE_CHECKING:
    from tests.harness import Actor, APIClientResponse, Send

pytestmark = pytest.mark.django_db


def queue_turns(agent: Actor, *names: str, **fields: Any) -> list[Turn]:
    body = {
        "turns": [
            {
                "correlation_id": n,
                "session_id": "s-1",
                "component_name": "search",
                "rated_turn": turn(**fields),
            }
            for n in names
        ]
    }
    assert agent.rest("post", "/api/turns/", body).status_code == 201
    return [Turn.objects.get(correlation_id=n) for n in names]


def post(
    actor: Actor, action: str, body: dict[str, Any] | bytes | None = None
) -> APIClientResponse:
    data = body if isinstance(body, bytes) else orjson.dumps(body if body is not None else {})
    return actor.client.post(f"/api/queue/{action}/", data=data, content_type="application/json")


def take(actor: Actor) -> dict[str, Any]:
    response = post(actor, "next")
    assert response.status_code == 200, response.content
    answer: dict[str, Any] = response.json()
    return answer


def test_next_leases_a_turn_in_the_contracts_shape(agent: Actor, ann: Actor) -> None:
    (queued,) = queue_turns(agent, "t-1", environment={"url": "https://x"}, version="v2")
    answer = take(ann)
    assert answer == {
        "turn": {
            "id": queued.pk,
            "correlation_id": "t-1",
            "session_id": "s-1",
            "component_name": "search",
            "rated_turn": {
                "prompt": "What is the answer?",
                "response": "The answer is 42.",
                "model": "agent-v1",
                "environment": {"url": "https://x"},
                "version": "v2",
            },
        },
        "lease_expires": Lease.objects.get(username="ann").expires,
    }


def test_next_answers_204_when_nothing_is_left(agent: Actor, ann: Actor, rev: Actor) -> None:
    queue_turns(agent, "t-1")
    take(ann)
    response = post(rev, "next")
    assert response.status_code == 204
    assert response.content == b""


def test_the_body_of_next_may_be_left_out(agent: Actor, ann: Actor) -> None:
    queue_turns(agent, "t-1")
    response = ann.client.post("/api/queue/next/")
    assert response.status_code == 200
    assert response.json()["turn"]["correlation_id"] == "t-1"


def test_reviewers_and_admins_rate_from_the_queue_too(
    agent: Actor, rev: Actor, boss: Actor
) -> None:
    queue_turns(agent, "t-1", "t-2")
    assert {take(rev)["turn"]["correlation_id"], take(boss)["turn"]["correlation_id"]} == {
        "t-1",
        "t-2",
    }


@pytest.mark.parametrize("action", ["next", "release", "skip", "undo"])
def test_agents_and_environments_are_refused(
    agent: Actor, env: Actor, anonymous: Actor, action: str
) -> None:
    (queued,) = queue_turns(agent, "t-1")
    body = {"next": {}, "undo": {"feedback_id": "fb-x"}}.get(action, {"turn": queued.pk})
    for machine in (agent, env):
        response = post(machine, action, body)
        assert (response.status_code, response.json()["code"]) == (403, "forbidden")
    response = post(anonymous, action, body)
    assert (response.status_code, response.json()["code"]) == (401, "unauthenticated")
    assert not Lease.objects.exists()


def test_release_gives_the_turn_back(agent: Actor, ann: Actor, rev: Actor) -> None:
    queue_turns(agent, "t-1")
    held = take(ann)["turn"]["id"]
    response = post(ann, "release", {"turn": held})
    assert response.status_code == 204
    assert take(rev)["turn"]["id"] == held


def test_skip_never_offers_the_turn_to_that_person_again(
    agent: Actor, ann: Actor, rev: Actor
) -> None:
    queue_turns(agent, "t-1")
    held = take(ann)["turn"]["id"]
    assert post(ann, "skip", {"turn": held}).status_code == 204
    assert Skip.objects.filter(username="ann", turn_id=held).exists()
    assert post(ann, "next").status_code == 204
    assert take(rev)["turn"]["id"] == held


@pytest.mark.parametrize("action", ["release", "skip"])
def test_another_persons_turn_is_refused(agent: Actor, ann: Actor, rev: Actor, action: str) -> None:
    queue_turns(agent, "t-1")
    held = take(ann)["turn"]["id"]
    response = post(rev, action, {"turn": held})
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert response.json()["details"][0]["loc"] == ["turn"]
    assert Lease.objects.filter(username="ann", turn_id=held).exists()
    assert not Skip.objects.exists()


def test_undo_retracts_the_rating_and_leases_the_turn_back(agent: Actor, ann: Actor) -> None:
    (queued,) = queue_turns(agent, "t-1")
    take(ann)
    rated = ann.learn(feedback_req(feedback(feedback_id="fb-1", correlation_id="t-1")))
    assert rated.status_code == 200
    assert not Lease.objects.filter(username="ann").exists()
    response = post(ann, "undo", {"feedback_id": "fb-1"})
    assert response.status_code == 200, response.json()
    answer = response.json()
    lease = Lease.objects.get(username="ann")
    assert answer["turn"]["id"] == queued.pk == lease.turn_id
    assert answer["lease_expires"] == lease.expires
    assert Retraction.objects.filter(feedback__feedback_id="fb-1", by="ann").exists()


def test_another_persons_rating_cannot_be_undone(agent: Actor, ann: Actor, rev: Actor) -> None:
    queue_turns(agent, "t-1")
    ann.learn(feedback_req(feedback(feedback_id="fb-1", correlation_id="t-1")))
    response = post(rev, "undo", {"feedback_id": "fb-1"})
    assert response.status_code == 404
    assert response.json()["details"][0]["loc"] == ["feedback_id"]
    assert not Retraction.objects.exists()


NOT_A_TURN = [
    (b"not json", []),
    (b"[1]", []),
    (b"{}", ["turn"]),
    (b'{"turn": "1"}', ["turn"]),
    (b'{"turn": true}', ["turn"]),
    (b'{"turn": 1.5}', ["turn"]),
    (b'{"turn": 0}', ["turn"]),
    (b'{"turn": 99999999999999999999999}', ["turn"]),
    (b'{"turn": NaN}', []),
    (b'{"turn": 1, "turn": 2}', []),
    (b'{"turn": 1, "extra": 1}', ["extra"]),
]


@pytest.mark.parametrize("action", ["release", "skip"])
@pytest.mark.parametrize(("body", "loc"), NOT_A_TURN)
def test_a_bad_turn_body_is_invalid_naming_the_field(
    agent: Actor, ann: Actor, action: str, body: bytes, loc: list[str]
) -> None:
    queue_turns(agent, "t-1")
    take(ann)
    response = post(ann, action, body)
    assert response.status_code == 400, response.content
    answer = response.json()
    assert answer["code"] == "invalid"
    if loc:
        assert [d["loc"] for d in answer["details"]] == [loc]
    assert Lease.objects.filter(username="ann").exists()
    assert not Skip.objects.exists()


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        (b'{"feedback_id": ""}', ["feedback_id"]),
        (b'{"feedback_id": 5}', ["feedback_id"]),
        (b'{"feedback_id": "a\\u0000b"}', ["feedback_id"]),
        (orjson.dumps({"feedback_id": "x" * 201}), ["feedback_id"]),
        (b'{"feedback": "fb-1"}', ["feedback"]),
    ],
)
def test_a_bad_undo_body_is_invalid_naming_the_field(
    agent: Actor, ann: Actor, body: bytes, loc: list[str]
) -> None:
    queue_turns(agent, "t-1")
    ann.learn(feedback_req(feedback(feedback_id="fb-1", correlation_id="t-1")))
    response = post(ann, "undo", body)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert loc in [d["loc"] for d in response.json()["details"]]
    assert not Retraction.objects.exists()


@pytest.mark.parametrize(
    ("body", "locs"),
    [(b'{"component": "search"}', [["component"]]), (b"[]", None), (b"{", None), (b"null", None)],
)
def test_a_body_sent_to_next_must_be_empty(
    agent: Actor, ann: Actor, body: bytes, locs: list[list[str]] | None
) -> None:
    queue_turns(agent, "t-1")
    response = post(ann, "next", body)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    if locs is not None:
        assert [d["loc"] for d in response.json()["details"]] == locs
    assert not Lease.objects.exists()


def test_the_turns_api_calls_a_turn_unrated_until_a_person_rates_it(
    agent: Actor, ann: Actor
) -> None:
    queue_turns(agent, "by-agent", "by-ann")
    agent.learn(feedback_req(feedback(correlation_id="by-agent", source="self")))
    ann.learn(feedback_req(feedback(correlation_id="by-ann")))
    response = ann.client.get("/api/turns/?unrated=1")
    assert [t["correlation_id"] for t in response.json()["results"]] == ["by-agent"]


def test_a_session_needs_its_csrf_token(agent: Actor, ann: Actor) -> None:
    queue_turns(agent, "t-1")
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(User.objects.get(username="ann"))
    refused = browser.post("/api/queue/next/", content_type="application/json")
    assert refused.status_code == 403
    assert not Lease.objects.exists()
    browser.get("/turns/")  # sets the CSRF cookie
    token = browser.cookies["csrftoken"].value
    answered = browser.post(
        "/api/queue/next/", content_type="application/json", headers={"X-CSRFToken": token}
    )
    assert answered.status_code == 200
    assert answered.json()["turn"]["correlation_id"] == "t-1"


# --- a person's rating ends their lease, whatever path it takes -----------------------------


def test_a_rating_over_learn_feedback_ends_the_lease(
    transport: Send, agent: Actor, ann: Actor, rev: Actor
) -> None:
    queue_turns(agent, "t-1", "t-2")
    take(ann)
    take(rev)
    ok(transport(ann, feedback_req(feedback(correlation_id="t-1"))))
    assert list(Lease.objects.values_list("username", flat=True)) == ["rev"]
    assert post(ann, "next").status_code == 204  # t-1 is rated, t-2 is rev's


def test_an_agents_feedback_ends_no_lease_and_rates_nothing(
    transport: Send, agent: Actor, ann: Actor
) -> None:
    queue_turns(agent, "t-1")
    held = take(ann)
    ok(transport(agent, feedback_req(feedback(correlation_id="t-1", source="self"))))
    assert take(ann) == held
    assert Turn.objects.get(correlation_id="t-1").ratings_needed == 1


def test_a_rating_from_the_portal_form_ends_the_lease(agent: Actor, ann: Actor) -> None:
    (queued,) = queue_turns(agent, "t-1")
    take(ann)
    browser = Client()
    browser.force_login(User.objects.get(username="ann"))
    response = browser.post(
        f"/turns/{queued.pk}/",
        {
            "feedback_id": "fb-form",
            "polarity": "positive",
            "score": "0.5",
            "dimension": "helpfulness",
            "confidence": "0.9",
            "comment": "",
            "correction": "",
            "span_start": "",
            "span_end": "",
        },
    )
    assert response.status_code == 302
    assert not Lease.objects.exists()
    assert Turn.objects.get(pk=queued.pk).ratings_needed == 0
