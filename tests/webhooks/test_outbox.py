"""The outbox is written in the change's transaction: one row per (event, subscribed endpoint)."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from django.db import transaction

from refinement.history import history_record
from refinement.models import Plan, ProposalStatus
from tests.builders import (
    adapt_req,
    apply_req,
    feedback,
    feedback_req,
    rollback_req,
    weight_proposal,
)
from tests.factories import EndpointFactory
from tests.harness import Actor, http_send, ok
from tests.refinement.helpers import two_arms
from webhooks.catalogue import EVENTS
from webhooks.models import Delivery, Endpoint
from webhooks.services import endpoint_delete

pytestmark = pytest.mark.django_db


def register(*events: str) -> int:
    return EndpointFactory.create(events=list(events)).pk


def bodies(event: str) -> list[dict[str, object]]:
    return [json.loads(d.body) for d in Delivery.objects.filter(event=event).order_by("id")]


def test_a_batch_of_feedback_is_one_event_per_endpoint_not_one_per_item(env: Actor) -> None:
    first, second = register("feedback.recorded"), register("feedback.recorded", "plan.filed")
    register("plan.filed")
    items = [feedback(component_name="c"), feedback(component_name="d"), feedback()]
    ok(http_send(env, feedback_req(*items)))
    rows = Delivery.objects.filter(event="feedback.recorded")
    assert sorted(rows.values_list("endpoint_id", flat=True)) == [first, second]
    body = bodies("feedback.recorded")[0]
    assert body["type"] == "feedback.recorded"
    assert body["data"] == {"count": 3, "components": ["c", "d"], "by": "gym-1"}
    assert len({row.message_id for row in rows}) == 2


def test_a_batch_that_stores_nothing_new_sends_nothing(env: Actor) -> None:
    register("feedback.recorded")
    item = feedback(component_name="c")
    ok(http_send(env, feedback_req(item)))
    ok(http_send(env, feedback_req(item)))  # the same feedback_id again: stored once
    assert Delivery.objects.count() == 1


def test_no_endpoint_no_row_and_a_deleted_endpoint_gets_no_more(env: Actor) -> None:
    ok(http_send(env, feedback_req(feedback(component_name="c"))))
    assert Delivery.objects.count() == 0
    endpoint_delete(Endpoint.objects.get(pk=register("feedback.recorded")))
    ok(http_send(env, feedback_req(feedback(component_name="c"))))
    assert Delivery.objects.count() == 0


def test_a_change_rolled_back_leaves_no_outbox_row() -> None:
    register("plan.filed")
    with pytest.raises(RuntimeError), transaction.atomic():
        history_record("plan", "agent-1", project="default", plan_id="p-1")
        assert Delivery.objects.count() == 1
        raise RuntimeError
    assert Delivery.objects.count() == 0


@pytest.mark.parametrize(
    ("kind", "event"),
    [
        ("plan", "plan.filed"),
        ("approve", "proposal.approved"),
        ("reject", "proposal.rejected"),
        ("apply", "refinement.applied"),
        ("rollback", "refinement.rolled_back"),
    ],
)
def test_each_history_kind_of_the_catalogue_is_its_webhook_event(kind: str, event: str) -> None:
    register(*EVENTS)
    history_record(kind, "rev", project="default", plan_id="p-1", proposal_id="pr-1", message="why")
    (body,) = bodies(event)
    assert body["data"]["kind"] == kind  # type: ignore[index]
    assert body["data"]["actor"] == "rev"  # type: ignore[index]
    assert Delivery.objects.count() == 1


def test_a_plan_an_adapt_files_for_a_reviewer_is_a_plan_filed_webhook(agent: Actor) -> None:
    register("plan.filed")
    two_arms(agent)
    ok(http_send(agent, adapt_req("epsilon_greedy")))  # one step of 0.1, the rest for a person
    plan = Plan.objects.get(origin="adapt")
    waiting = plan.proposals.filter(status=ProposalStatus.PENDING)
    assert waiting.exists()
    (body,) = bodies("plan.filed")
    data: dict[str, Any] = body["data"]  # type: ignore[assignment]
    assert (data["kind"], data["plan_id"], data["actor"]) == ("plan", plan.plan_id, "token:agent-1")
    assert {p["path"] for p in data["diff"]} == {p.path for p in waiting}


def test_an_adapt_that_leaves_nothing_for_a_reviewer_files_no_plan_webhook(
    agent: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK = "high"  # the whole way at once
    register("plan.filed")
    two_arms(agent)
    ok(http_send(agent, adapt_req("epsilon_greedy")))
    assert not Plan.objects.get(origin="adapt").proposals.filter(status=ProposalStatus.PENDING)
    assert bodies("plan.filed") == []


def test_a_review_or_a_change_of_settings_is_no_webhook() -> None:
    register(*EVENTS)
    history_record("review", "rev", project="default", proposal_id="pr-1")
    history_record("change", "boss", project="default")
    assert Delivery.objects.count() == 0


def test_an_applied_and_rolled_back_refinement_over_learn(agent: Actor) -> None:
    register("refinement.applied", "refinement.rolled_back")
    applied = ok(http_send(agent, apply_req(weight_proposal("alpha", 0.5, 0.55))))
    ok(http_send(agent, rollback_req(applied["refinement_id"])))
    (done,) = bodies("refinement.applied")
    (undone,) = bodies("refinement.rolled_back")
    assert done["data"]["refinement_id"] == applied["refinement_id"]  # type: ignore[index]
    assert undone["data"]["kind"] == "rollback"  # type: ignore[index]


def test_with_the_cache_unreachable_a_write_queues_its_webhook_from_the_database(
    env: Actor, unreachable_cache: None, caplog: pytest.LogCaptureFixture
) -> None:
    endpoint = register("feedback.recorded")
    with caplog.at_level(logging.WARNING, logger="core.best_effort_cache"):
        ok(http_send(env, feedback_req(feedback(component_name="c"))))
        ok(http_send(env, feedback_req(feedback(component_name="d"))))
    assert list(Delivery.objects.values_list("endpoint_id", flat=True)) == [endpoint, endpoint]
    outages = [r for r in caplog.records if r.name == "core.best_effort_cache"]
    assert len(outages) == 1, outages  # once an outage, not once a write
