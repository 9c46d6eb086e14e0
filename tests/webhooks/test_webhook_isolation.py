"""Webhook endpoints are per project, as turns and feedback are: an endpoint belongs to the
project the admin acted in when registering it, every webhook view and page (the list, one
endpoint, its delivery log, redeliver, remove) reads and writes only the endpoints of the
project the request acts in (`?project=` over REST, the chosen project on the pages), another
project's endpoint id is not found exactly as one that does not exist, and an event of a project
is delivered only to that project's endpoints subscribed to it (docs/contract.md, "Teams:
projects"). Who may manage endpoints is as before: admins only.

Two projects throughout: `default` and `alpha`; `boss`, a site admin, acts in each in turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from core.accounts.models import User
from core.projects.services import member_set, project_add, project_named
from tests.builders import feedback, feedback_req
from tests.factories import DeliveryFactory, EndpointFactory
from tests.harness import Actor, default_pk, http_send, human_actor, ok, token_actor
from webhooks.models import Delivery, DeliveryState, Endpoint

if TYPE_CHECKING:
    from django.test import Client

pytestmark = pytest.mark.django_db

ALPHA = "alpha"


@pytest.fixture
def alpha(db: None) -> int:
    return project_add(slug=ALPHA, name="Alpha").pk


def registered(boss: Actor, url: str, *events: str, project: str = "") -> dict[str, Any]:
    """POST /api/webhooks/ acting in `project` (the admin's home, `default`, if empty)."""
    query = f"?project={project}" if project else ""
    body = {"url": url, "events": list(events or ["feedback.recorded"])}
    response = boss.rest("post", f"/api/webhooks/{query}", body)
    assert response.status_code == 201, response.content
    answer: dict[str, Any] = response.json()
    return answer


def listed_urls(boss: Actor, project: str = "") -> list[str]:
    query = f"?project={project}" if project else ""
    response = boss.rest("get", f"/api/webhooks/{query}")
    assert response.status_code == 200, response.content
    return [endpoint["url"] for endpoint in response.json()["results"]]


def acting_in(client: Client, slug: str) -> Client:
    """The browser of a person who chose `slug` in the header's picker."""
    response = client.post("/choose-project/", {"project": slug})
    assert response.status_code == 302, response.content
    return client


# --- 1. the list and the registration -------------------------------------------------------


def test_an_admin_lists_and_registers_only_the_endpoints_of_the_project_acted_in(
    boss: Actor, alpha: int
) -> None:
    registered(boss, "http://127.0.0.1:9/default-hook")
    made = registered(boss, "http://127.0.0.1:9/alpha-hook", project=ALPHA)
    assert listed_urls(boss) == ["http://127.0.0.1:9/default-hook"]
    assert listed_urls(boss, ALPHA) == ["http://127.0.0.1:9/alpha-hook"]
    assert Endpoint.objects.get(pk=made["id"]).project_id == alpha


def test_the_same_url_and_events_may_be_registered_in_two_projects_but_twice_in_one_is_a_conflict(
    boss: Actor, alpha: int
) -> None:
    url = "http://127.0.0.1:9/shared-receiver"
    registered(boss, url)
    registered(boss, url, project=ALPHA)  # alpha's events, to the same receiver: no duplicate
    again = boss.rest(
        "post", f"/api/webhooks/?project={ALPHA}", {"url": url, "events": ["feedback.recorded"]}
    )
    assert (again.status_code, again.json()["code"]) == (409, "conflict")
    assert sorted(Endpoint.objects.values_list("project_id", flat=True)) == sorted(
        [default_pk(), alpha]
    )


def test_the_pages_list_and_register_the_endpoints_of_the_chosen_project(
    boss: Actor, alpha: int
) -> None:
    EndpointFactory.create(url="http://127.0.0.1:9/default-hook")
    EndpointFactory.create(url="http://127.0.0.1:9/alpha-hook", project=alpha)
    browser = boss.browser()
    home = browser.get("/webhooks/")
    assert [e.url for e in home.context["endpoints"]] == ["http://127.0.0.1:9/default-hook"]
    acting_in(browser, ALPHA)
    there = browser.get("/webhooks/")
    assert [e.url for e in there.context["endpoints"]] == ["http://127.0.0.1:9/alpha-hook"]
    made = browser.post(
        "/webhooks/new/", {"url": "http://127.0.0.1:9/alpha-new", "events": ["plan.filed"]}
    )
    assert made.status_code == 302, made.content
    assert Endpoint.objects.get(url="http://127.0.0.1:9/alpha-new").project_id == alpha


# --- 2. another project's endpoint ------------------------------------------------------------


def test_another_projects_endpoint_is_not_found_over_rest_as_one_that_does_not_exist(
    boss: Actor, alpha: int
) -> None:
    theirs = EndpointFactory.create(project=alpha)
    delivery = DeliveryFactory.create(endpoint=theirs, state=DeliveryState.FAILED, attempts=1)
    missing = theirs.pk + 1000  # no endpoint of any project
    for method, path in (
        ("get", "/api/webhooks/{}/"),
        ("get", "/api/webhooks/{}/deliveries/"),
        ("post", f"/api/webhooks/{{}}/deliveries/{delivery.pk}/redeliver/"),
        ("delete", "/api/webhooks/{}/"),
    ):
        response = boss.rest(method, path.format(theirs.pk))  # acting in default
        nothing = boss.rest(method, path.format(missing))
        assert (response.status_code, response.json()["code"]) == (404, "not_found"), path
        assert response.json()["message"] == nothing.json()["message"].replace(
            str(missing), str(theirs.pk)
        ), path
    kept = Delivery.objects.get(pk=delivery.pk)
    assert (kept.state, kept.attempts) == (DeliveryState.FAILED, 1)  # not redelivered
    # In alpha it is there: the refusals were the project's, not the endpoint's.
    assert boss.rest("get", f"/api/webhooks/{theirs.pk}/?project={ALPHA}").status_code == 200
    assert boss.rest("delete", f"/api/webhooks/{theirs.pk}/?project={ALPHA}").status_code == 204
    assert not Endpoint.objects.exists()


def test_another_projects_endpoint_is_missing_on_the_pages_and_cannot_be_removed_there(
    boss: Actor, alpha: int
) -> None:
    theirs = EndpointFactory.create(project=alpha)
    delivery = DeliveryFactory.create(endpoint=theirs, state=DeliveryState.FAILED, attempts=1)
    browser = boss.browser()  # acting in default
    page = browser.get(f"/webhooks/{theirs.pk}/")
    assert page.status_code == 404
    assert "webhooks/missing.html" in [t.name for t in page.templates]
    browser.post(f"/webhooks/{theirs.pk}/deliveries/{delivery.pk}/redeliver/")
    browser.post(f"/webhooks/{theirs.pk}/delete/")
    assert Delivery.objects.get(pk=delivery.pk).state == DeliveryState.FAILED
    assert Endpoint.objects.filter(pk=theirs.pk).exists()
    acting_in(browser, ALPHA)
    assert browser.get(f"/webhooks/{theirs.pk}/").status_code == 200
    browser.post(f"/webhooks/{theirs.pk}/delete/")
    assert not Endpoint.objects.filter(pk=theirs.pk).exists()


def test_a_projects_manager_still_may_not_manage_its_webhooks(alpha: int) -> None:
    manager = human_actor("mona", "manager", project=ALPHA)
    response = manager.rest("get", "/api/webhooks/")
    assert (response.status_code, response.json()["code"]) == (403, "forbidden")
    assert manager.browser().get("/webhooks/").status_code == 403


# --- 3. the outbox ------------------------------------------------------------------------------


def test_a_feedback_in_a_project_is_queued_only_for_its_endpoints_subscribed_to_it(
    alpha: int,
) -> None:
    ours = EndpointFactory.create(events=["feedback.recorded"], project=alpha)
    EndpointFactory.create(events=["plan.filed"], project=alpha)  # alpha's, another event
    EndpointFactory.create(events=["feedback.recorded"])  # default's, the same event
    ok(http_send(token_actor("alpha-agent", "agent", project=ALPHA), feedback_req(feedback())))
    assert list(Delivery.objects.values_list("endpoint_id", "event")) == [
        (ours.pk, "feedback.recorded")
    ]


def queued(agent: Actor, key: str) -> None:
    body = {
        "turns": [
            {"correlation_id": key, "rated_turn": {"prompt": "Q?", "response": "A.", "model": "m"}}
        ]
    }
    response = agent.rest("post", "/api/turns/", body)
    assert response.status_code == 201, response.content


def test_a_person_in_two_projects_sends_the_webhooks_of_the_project_acted_in(
    alpha: int,
) -> None:
    default_hook = EndpointFactory.create(events=["feedback.recorded"])
    alpha_hook = EndpointFactory.create(events=["feedback.recorded"], project=alpha)
    queued(token_actor("default-agent", "agent"), "turn-1")
    queued(token_actor("alpha-agent", "agent", project=ALPHA), "turn-1")
    ann = human_actor("ann", "annotator")
    member_set(
        project=project_named(ALPHA), person=User.objects.get(username="ann"), role="annotator"
    )
    rating = {"turn": "turn-1", "answers": {"helpfulness": 0.5}}
    response = ann.rest("post", f"/api/ratings/?project={ALPHA}", rating)
    assert response.status_code == 201, response.content
    assert list(Delivery.objects.values_list("endpoint_id", flat=True)) == [alpha_hook.pk]
    response = ann.rest("post", "/api/ratings/", rating)  # in her home project, default
    assert response.status_code == 201, response.content
    assert sorted(Delivery.objects.values_list("endpoint_id", flat=True)) == sorted(
        [alpha_hook.pk, default_hook.pk]
    )
