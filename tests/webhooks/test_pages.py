"""The admins' webhook pages: register with the secret shown once, the list, each endpoint's
delivery log with a redeliver button, removal; a 403 page for everyone else."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.test import Client
from standardwebhooks import Webhook

from core.accounts.models import User
from tests.builders import feedback, feedback_req
from tests.harness import Actor, http_send, ok
from tests.webhooks.test_api import fill_log
from webhooks.delivery import client
from webhooks.log import PAGE_SIZE
from webhooks.models import Delivery, Endpoint
from webhooks.worker import deliver_due

if TYPE_CHECKING:
    from tests.webhooks.receiver import Receiver

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(seeded: None) -> Client:
    client = Client()
    client.force_login(User.objects.get(username="admin"))
    return client


def test_an_admin_registers_an_endpoint_and_sees_its_secret_once(
    admin: Client, receiver: Receiver
) -> None:
    form = {"url": receiver.url, "events": ["feedback.recorded", "plan.filed"], "description": "ci"}
    posted = admin.post("/webhooks/new/", form)
    assert (posted.status_code, posted["Location"]) == (302, "/webhooks/")
    response = admin.get("/webhooks/")
    assert "no-store" in response["Cache-Control"]
    secret = response.context["created"]["secret"]
    assert secret.startswith("whsec_") and secret in response.content.decode()
    listing = admin.get("/webhooks/").content.decode()
    assert receiver.url in listing and secret not in listing
    assert Endpoint.objects.get().events == ["feedback.recorded", "plan.filed"]


def test_reloading_the_page_after_registering_registers_nothing_again(
    admin: Client, receiver: Receiver
) -> None:
    form = {"url": receiver.url, "events": ["plan.filed"]}
    landed = admin.post("/webhooks/new/", form, follow=True)
    assert landed.redirect_chain == [("/webhooks/", 302)]
    assert landed.request["REQUEST_METHOD"] == "GET"  # a reload asks for the page again
    admin.get("/webhooks/")
    assert Endpoint.objects.count() == 1


def test_the_same_url_for_an_event_it_already_receives_is_refused_beside_the_url_field(
    admin: Client, receiver: Receiver
) -> None:
    admin.post("/webhooks/new/", {"url": receiver.url, "events": ["plan.filed"]})
    again = {"url": receiver.url, "events": ["proposal.approved", "plan.filed"]}
    response = admin.post("/webhooks/new/", again)
    assert response.status_code == 400
    (error,) = response.context["form"].errors["url"]
    assert "already registered for plan.filed" in error
    shouted = {**again, "url": receiver.url.replace("http://127.0.0.1", "HTTP://127.0.0.1")}
    assert admin.post("/webhooks/new/", shouted).context["form"].errors["url"]
    assert Endpoint.objects.count() == 1
    other_events = admin.post("/webhooks/new/", {**again, "events": ["proposal.approved"]})
    assert other_events.status_code == 302  # other events to the same receiver: not a duplicate
    assert Endpoint.objects.count() == 2


def test_a_refused_url_is_shown_next_to_its_field(admin: Client, settings: object) -> None:
    response = admin.post("/webhooks/new/", {"url": "ftp://x/", "events": ["plan.filed"]})
    assert response.status_code == 400
    assert response.context["form"].errors["url"]
    assert Endpoint.objects.count() == 0


def test_the_delivery_log_shows_each_delivery_and_redelivers_one(
    admin: Client, env: Actor, receiver: Receiver
) -> None:
    form = {"url": receiver.url, "events": ["feedback.recorded"]}
    raw = admin.post("/webhooks/new/", form, follow=True).context["created"]["secret"]
    ok(http_send(env, feedback_req(feedback(component_name="c"))))
    endpoint = Endpoint.objects.get()
    log = admin.get(f"/webhooks/{endpoint.pk}/").content.decode()
    delivery = Delivery.objects.get()
    assert delivery.message_id in log and "pending" in log and "Redeliver" not in log
    with client() as http:
        deliver_due(http)
    log = admin.get(f"/webhooks/{endpoint.pk}/").content.decode()
    assert "delivered" in log and "Redeliver" in log
    response = admin.post(f"/webhooks/{endpoint.pk}/deliveries/{delivery.pk}/redeliver/")
    assert response.status_code == 302
    with client() as http:
        deliver_due(http)
    assert receiver.ids() == [delivery.message_id] * 2
    for got in receiver.received:
        Webhook(raw).verify(got.body, got.headers)


def test_the_delivery_log_page_filters_by_state_and_pages_older(admin: Client) -> None:
    admin.post("/webhooks/new/", {"url": "http://127.0.0.1:9/x", "events": ["plan.filed"]})
    endpoint = Endpoint.objects.get()
    ids = fill_log(endpoint.pk, ["failed"] * (PAGE_SIZE + 1) + ["delivered"])
    first = admin.get(f"/webhooks/{endpoint.pk}/", {"state": "failed"})
    assert first.status_code == 200
    shown = [row["delivery"].pk for row in first.context["rows"]]
    assert shown == ids[-2::-1][:PAGE_SIZE]
    older = admin.get(f"/webhooks/{endpoint.pk}/{first.context['next_url']}")
    assert [row["delivery"].pk for row in older.context["rows"]] == [ids[0]]
    assert older.context["next_url"] is None and "Newest" in older.content.decode()
    bad = admin.get(f"/webhooks/{endpoint.pk}/", {"state": "lost"})
    assert bad.status_code == 400 and "state" in bad.context["query_errors"]
    assert len(bad.context["rows"]) == PAGE_SIZE  # the newest of every state instead


def test_an_admin_removes_an_endpoint(admin: Client) -> None:
    admin.post("/webhooks/new/", {"url": "http://127.0.0.1:9/x", "events": ["plan.filed"]})
    endpoint = Endpoint.objects.get()
    assert admin.post(f"/webhooks/{endpoint.pk}/delete/").status_code == 302
    assert Endpoint.objects.count() == 0
    assert admin.get(f"/webhooks/{endpoint.pk}/").status_code == 404


def test_the_nav_links_webhooks_for_admins_only(admin: Client, reviewer: Client) -> None:
    assert 'href="/webhooks/"' in admin.get("/").content.decode()
    assert 'href="/webhooks/"' not in reviewer.get("/").content.decode()


@pytest.mark.parametrize("who", ["reviewer", "annotator"])
def test_others_get_the_403_page(request: pytest.FixtureRequest, who: str) -> None:
    person: Client = request.getfixturevalue(who)
    assert person.get("/webhooks/").status_code == 403
    assert person.get("/webhooks/1/").status_code == 403
    form = {"url": "http://127.0.0.1:9/x", "events": ["plan.filed"]}
    assert person.post("/webhooks/new/", form).status_code == 403
    assert person.post("/webhooks/1/delete/").status_code == 403
    assert Endpoint.objects.count() == 0
