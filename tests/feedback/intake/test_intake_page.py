"""The intake rules' page (/intake/): a manager reads each rule in words with what it let in,
adds, changes, disables and deletes rules through the same service as the API, a refusal
shown beside its field with nothing stored; nobody else may."""

from __future__ import annotations

import pytest
from django.test import Client

from core.accounts.models import User
from feedback.assignments.models import QueueAssignment
from feedback.intake.models import IntakeRule
from tests.feedback.intake.test_intake_rules import admitted, queued, rule
from tests.harness import Actor, human_actor

pytestmark = pytest.mark.django_db

URL = "/intake/"


def logged_in(name: str, role: str) -> Client:
    human_actor(name, role)
    client = Client()
    client.force_login(User.objects.get(username=name))
    return client


def form(**fields: str) -> dict[str, str]:
    return {"do": "save", "name": "r", "rate": "1", "priority": "0", "enabled": "on", **fields}


def test_a_manager_reads_each_rule_in_words_with_the_turns_it_let_in(
    agent: Actor, boss: Actor
) -> None:
    rule(boss, name="failures", source="env", polarity="negative", rate=1.0, priority=3)
    rule(boss, name="a tenth", rate=0.1, metadata_key="customer")
    queued(agent, [f"t-{i}" for i in range(50)])
    page = logged_in("lead", "manager").get(URL)
    assert page.status_code == 200
    text = page.content.decode()
    assert "on environments&#x27; feedback, negative" in text
    assert "whose environment holds customer" in text
    assert "10%" in text and "100%" in text


def test_an_empty_project_says_the_queue_takes_every_turn() -> None:
    page = logged_in("lead", "manager").get(URL)
    assert 'id="rules-empty"' in page.content.decode()


def test_a_manager_adds_a_rule_and_it_takes_what_the_api_would(agent: Actor) -> None:
    client = logged_in("lead", "manager")
    response = client.post(URL, form(name="unsure judges", judge_agreement_below="0.6", rate="0.5"))
    assert response.status_code == 302
    stored = IntakeRule.objects.get()
    assert (stored.name, stored.judge_agreement_below, stored.rate, stored.by) == (
        "unsure judges",
        0.6,
        0.5,
        "lead",
    )
    assert stored.about_feedback
    queued(agent, ["t-1"])
    assert admitted() == set()


def test_a_refused_rule_is_shown_beside_its_field_and_nothing_is_stored() -> None:
    client = logged_in("lead", "manager")
    for fields, named in (
        ({"rate": "2"}, "rate"),
        ({"score_min": "0.5", "score_max": "-0.5"}, "score_max"),
        ({"judge_agreement_below": "0"}, "judge_agreement_below"),
        ({"name": ""}, "name"),
    ):
        response = client.post(URL, form(**fields))
        assert response.status_code == 400
        assert f'data-field="{named}"' in response.content.decode()
    assert not IntakeRule.objects.exists()


def test_a_manager_changes_disables_and_deletes_a_rule(boss: Actor) -> None:
    made = rule(boss, name="all", rate=1.0)
    client = logged_in("lead", "manager")
    edit = client.get(URL, {"edit": made["id"]}).content.decode()
    assert 'value="all"' in edit and "Change the rule all" in edit
    changed = client.post(URL, form(rule=str(made["id"]), name="half", rate="0.5"))
    assert changed.status_code == 302
    assert IntakeRule.objects.get().rate == 0.5
    client.post(URL, {"do": "toggle", "rule": str(made["id"])})
    assert IntakeRule.objects.get().enabled is False
    client.post(URL, {"do": "delete", "rule": str(made["id"])})
    assert not IntakeRule.objects.exists()


def test_another_projects_rule_or_none_changes_nothing(boss: Actor) -> None:
    made = rule(boss, name="all", rate=1.0)
    client = logged_in("lead", "manager")
    for rule_id in ("999999", "x", "9" * 40, "\u00b2"):
        response = client.post(URL, {"do": "delete", "rule": rule_id})
        assert response.status_code == 302
    assert IntakeRule.objects.filter(pk=made["id"]).exists()


@pytest.mark.parametrize("role", ["annotator", "reviewer"])
def test_only_managers_see_the_page(role: str) -> None:
    assert logged_in("someone", role).get(URL).status_code == 403


def test_a_manager_keeps_a_component_for_named_people_and_opens_it_again(
    people_in_project: None,
) -> None:
    client = logged_in("lead", "manager")
    kept = client.post(
        URL, {"do": "assign", "assign-component": "legal", "assign-usernames": "ada, bea"}
    )
    assert kept.status_code == 302
    (assignment,) = QueueAssignment.objects.all()
    assert (assignment.component, assignment.usernames, assignment.by) == (
        "legal",
        ["ada", "bea"],
        "lead",
    )
    page = client.get(URL).content.decode()
    assert "Turns of legal" in page and "Kept the turns of legal for ada, bea." in page
    refused = client.post(
        URL, {"do": "assign", "assign-component": "chat", "assign-usernames": "ada, nobody"}
    )
    assert refused.status_code == 400
    assert 'data-field="usernames"' in refused.content.decode()
    client.post(URL, {"do": "unassign", "assignment": str(assignment.pk)})
    assert not QueueAssignment.objects.exists()


@pytest.fixture
def people_in_project(db: None) -> None:
    for name in ("ada", "bea"):
        human_actor(name, "annotator")
