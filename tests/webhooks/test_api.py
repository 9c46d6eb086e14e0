"""`/api/webhooks/`: admins register (the secret answered once), list, read the delivery log,
redeliver and remove; everyone else is refused."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from standardwebhooks import Webhook

from tests.builders import feedback, feedback_req
from tests.factories import DeliveryFactory
from tests.harness import Actor, http_send, ok
from webhooks.delivery import client
from webhooks.models import Delivery, Endpoint
from webhooks.worker import deliver_due

if TYPE_CHECKING:
    from tests.webhooks.receiver import Receiver

pytestmark = pytest.mark.django_db


def test_an_admin_registers_lists_reads_the_log_redelivers_and_removes(
    boss: Actor, env: Actor, receiver: Receiver
) -> None:
    body = {"url": receiver.url, "events": ["feedback.recorded"], "description": "pipeline"}
    created = boss.rest("post", "/api/webhooks/", body)
    assert created.status_code == 201, created.content
    endpoint = created.json()
    assert endpoint["secret"].startswith("whsec_")
    listed = boss.rest("get", "/api/webhooks/").json()["results"]
    assert [e["url"] for e in listed] == [receiver.url]
    assert "secret" not in listed[0]
    assert "secret" not in boss.rest("get", f"/api/webhooks/{endpoint['id']}/").json()

    ok(http_send(env, feedback_req(feedback(component_name="c"))))
    with client() as http:
        deliver_due(http)
    log = boss.rest("get", f"/api/webhooks/{endpoint['id']}/deliveries/").json()["results"]
    assert [(d["event"], d["state"], d["attempts"], d["last_status"]) for d in log] == [
        ("feedback.recorded", "delivered", 1, 200)
    ]
    Webhook(endpoint["secret"]).verify(receiver.received[0].body, receiver.received[0].headers)

    again = boss.rest(
        "post", f"/api/webhooks/{endpoint['id']}/deliveries/{log[0]['id']}/redeliver/"
    )
    assert again.status_code == 202, again.content
    assert again.json()["state"] == "pending"
    with client() as http:
        deliver_due(http)
    assert receiver.ids() == [log[0]["webhook_id"]] * 2

    assert boss.rest("delete", f"/api/webhooks/{endpoint['id']}/").status_code == 204
    assert boss.rest("get", "/api/webhooks/").json()["results"] == []
    assert Delivery.objects.count() == 0
    missing = boss.rest("get", f"/api/webhooks/{endpoint['id']}/deliveries/")
    assert (missing.status_code, missing.json()["code"]) == (404, "not_found")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"url": "http://127.0.0.1/x", "events": ["nope"]}, "events"),
        ({"url": "http://127.0.0.1/x", "events": []}, "events"),
        ({"url": "gopher://x/", "events": ["plan.filed"]}, "url"),
        ({"events": ["plan.filed"]}, "url"),
        ({"url": "http://127.0.0.1/x", "events": ["plan.filed"], "secret": "mine"}, "secret"),
    ],
)
def test_a_bad_registration_names_its_field_and_stores_nothing(
    boss: Actor, body: dict[str, object], field: str
) -> None:
    response = boss.rest("post", "/api/webhooks/", body)
    assert (response.status_code, response.json()["code"]) == (400, "invalid")
    assert field in str(response.json()["details"])
    assert boss.rest("get", "/api/webhooks/").json()["results"] == []


def test_the_same_url_for_an_event_it_already_receives_is_a_conflict_naming_url(
    boss: Actor, receiver: Receiver
) -> None:
    body = {"url": receiver.url, "events": ["plan.filed", "proposal.approved"]}
    assert boss.rest("post", "/api/webhooks/", body).status_code == 201
    again = boss.rest("post", "/api/webhooks/", {"url": receiver.url, "events": ["plan.filed"]})
    assert (again.status_code, again.json()["code"]) == (409, "conflict")
    assert [d["loc"] for d in again.json()["details"]] == [["url"]]
    assert len(boss.rest("get", "/api/webhooks/").json()["results"]) == 1


def test_redelivering_what_was_never_tried_is_a_conflict(boss: Actor, env: Actor) -> None:
    body = {"url": "http://127.0.0.1:9/x", "events": ["feedback.recorded"]}
    endpoint = boss.rest("post", "/api/webhooks/", body).json()
    ok(http_send(env, feedback_req(feedback(component_name="c"))))
    delivery = Delivery.objects.get()
    url = f"/api/webhooks/{endpoint['id']}/deliveries/{delivery.pk}/redeliver/"
    assert boss.rest("post", url).status_code == 409
    assert (
        boss.rest("post", f"/api/webhooks/{endpoint['id']}/deliveries/999/redeliver/").status_code
        == 404
    )


@pytest.mark.parametrize("who", ["agent", "env", "ann", "rev"])
def test_only_admins_manage_webhooks(request: pytest.FixtureRequest, who: str) -> None:
    actor: Actor = request.getfixturevalue(who)
    body = {"url": "http://127.0.0.1/x", "events": ["plan.filed"]}
    for method, url, sent in [
        ("get", "/api/webhooks/", None),
        ("post", "/api/webhooks/", body),
        ("delete", "/api/webhooks/1/", None),
        ("get", "/api/webhooks/1/deliveries/", None),
        ("post", "/api/webhooks/1/deliveries/1/redeliver/", None),
    ]:
        response = actor.rest(method, url, sent)
        assert (response.status_code, response.json()["code"]) == (403, "forbidden"), url


def test_anonymous_is_asked_to_authenticate(anonymous: Actor) -> None:
    assert anonymous.rest("get", "/api/webhooks/").status_code == 401


def test_the_openapi_document_describes_the_webhook_paths(boss: Actor) -> None:
    document = boss.client.get("/api/schema/", {"format": "json"}).json()
    paths = document["paths"]
    assert {"get", "post"} <= set(paths["/api/webhooks/"])
    assert "201" in paths["/api/webhooks/"]["post"]["responses"]
    assert "delete" in paths["/api/webhooks/{endpoint_id}/"]
    assert "get" in paths["/api/webhooks/{endpoint_id}/deliveries/"]
    assert "post" in paths["/api/webhooks/{endpoint_id}/deliveries/{delivery_id}/redeliver/"]


def fill_log(endpoint_id: int, states: list[str]) -> list[int]:
    """Deliveries of these states, oldest first: their ids."""
    endpoint = Endpoint.objects.get(pk=endpoint_id)
    return [
        DeliveryFactory.create(endpoint=endpoint, state=state, attempts=1).pk for state in states
    ]


def test_the_delivery_log_pages_newest_first_by_state(boss: Actor) -> None:
    body = {"url": "http://127.0.0.1:9/x", "events": ["plan.filed"]}
    endpoint = boss.rest("post", "/api/webhooks/", body).json()["id"]
    states = ["failed", "delivered", "failed", "pending", "failed", "failed"]
    ids = fill_log(endpoint, states)
    url: str | None = f"/api/webhooks/{endpoint}/deliveries/?state=failed&limit=3"
    pages = []
    while url is not None:
        answer = boss.rest("get", url.removeprefix("http://testserver")).json()
        pages.append([(d["id"], d["state"]) for d in answer["results"]])
        url = answer["next"]
    failed = [pk for pk, state in zip(ids, states, strict=True) if state == "failed"][::-1]
    assert pages == [
        [(pk, "failed") for pk in failed[:3]],
        [(failed[3], "failed")],
    ]
    every = boss.rest("get", f"/api/webhooks/{endpoint}/deliveries/").json()
    assert [d["id"] for d in every["results"]] == ids[::-1] and every["next"] is None


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("state=lost", "state"),
        ("limit=0", "limit"),
        ("limit=501", "limit"),
        ("cursor=abc", "cursor"),
    ],
)
def test_a_bad_delivery_log_query_is_invalid_naming_its_parameter(
    boss: Actor, query: str, field: str
) -> None:
    body = {"url": "http://127.0.0.1:9/x", "events": ["plan.filed"]}
    endpoint = boss.rest("post", "/api/webhooks/", body).json()["id"]
    response = boss.rest("get", f"/api/webhooks/{endpoint}/deliveries/?{query}")
    assert (response.status_code, response.json()["code"]) == (400, "invalid")
    assert [d["loc"][-1] for d in response.json()["details"]] == [field]
