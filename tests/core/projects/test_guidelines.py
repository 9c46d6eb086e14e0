"""A project's guidelines, versioned (core.projects.guidelines): a new version only when a text
changed, the project's settings reading the newest, each question's kept under its key; and the
rule that, where a project asks for it, a person acknowledges the newest version before they
rate again, by whichever path the rating comes (docs/contract.md, "Teams: guidelines")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from core.accounts.models import User
from core.accounts.principals import principal_for_user
from core.projects.guidelines import (
    VERSION_FIELD,
    guidelines_at,
    guidelines_changes,
    guidelines_current,
    guidelines_due,
    guidelines_replace,
)
from core.projects.models import (
    GUIDELINES_LENGTH,
    MAX_QUESTION_GUIDELINES,
    QUESTION_GUIDELINES_LENGTH,
    GuidelinesVersion,
    Project,
)
from core.projects.services import project_update
from feedback.models import Feedback
from learnportal_protocol.errors import ErrorCode, LearnError
from tests.builders import feedback, feedback_req, turn
from tests.factories import TurnFactory
from tests.harness import Actor, human_actor

if TYPE_CHECKING:
    from core.accounts.principals import Principal

pytestmark = pytest.mark.django_db


@pytest.fixture
def project(db: None) -> Project:
    return Project.objects.get(slug="default")


@pytest.fixture
def lead(db: None) -> Principal:
    human_actor("lead", "manager")
    return principal_for_user(User.objects.get(username="lead"))


def person(actor: Actor) -> Principal:
    return principal_for_user(User.objects.get(username=actor.name))


def save(lead: Principal, project: Project, text: str, **questions: str) -> int:
    return guidelines_replace(member=lead, project=project, text=text, questions=questions).version


def test_it_makes_a_new_version_only_when_a_text_changed(lead: Principal, project: Project) -> None:
    assert guidelines_current(project.pk).version == 0
    assert save(lead, project, "# Be kind", correctness="Check the numbers.") == 1
    assert save(lead, project, "# Be kind", correctness="Check the numbers.") == 1
    assert save(lead, project, "# Be kind", correctness="Check every number.") == 2
    assert save(lead, project, "# Be fair", correctness="Check every number.") == 3
    project.refresh_from_db()
    assert project.guidelines == "# Be fair"
    first = guidelines_at(project.pk, 1)
    assert (first.text, first.questions, first.by) == (
        "# Be kind",
        {"correctness": "Check the numbers."},
        "lead",
    )


def test_a_question_left_empty_has_no_guidelines_of_its_own(
    lead: Principal, project: Project
) -> None:
    save(lead, project, "x", correctness="  ", tone="Warm.")
    assert guidelines_current(project.pk).questions == {"tone": "Warm."}


def test_new_guidelines_in_the_settings_are_the_next_version_and_keep_the_questions(
    lead: Principal, project: Project
) -> None:
    save(lead, project, "old", tone="Warm.")
    project_update(project=project, changes={"guidelines": "new", "blind": False}, member=lead)
    current = guidelines_current(project.pk)
    assert (current.version, current.text, current.questions) == (2, "new", {"tone": "Warm."})
    project_update(project=project, changes={"guidelines": "new"}, member=lead)
    assert guidelines_current(project.pk).version == 2


@pytest.mark.parametrize(
    ("text", "questions", "place"),
    [
        ("x" * (GUIDELINES_LENGTH + 1), {}, ["guidelines"]),
        ("a\x00b", {}, ["guidelines"]),
        ("", {"Bad Key": "text"}, ["questions", "Bad Key"]),
        ("", {"tone": "x" * (QUESTION_GUIDELINES_LENGTH + 1)}, ["questions", "tone"]),
        ("", {"tone": "a\x00"}, ["questions", "tone"]),
        ("", {f"q{i}": "x" for i in range(MAX_QUESTION_GUIDELINES + 1)}, ["questions"]),
        ("", {f"q{i}": "x" * QUESTION_GUIDELINES_LENGTH for i in range(11)}, ["questions"]),
    ],
)
def test_a_bad_text_or_key_is_refused_naming_it_and_nothing_changes(
    lead: Principal, project: Project, text: str, questions: dict[str, str], place: list[Any]
) -> None:
    save(lead, project, "kept")
    with pytest.raises(LearnError) as refused:
        guidelines_replace(member=lead, project=project, text=text, questions=questions)
    assert refused.value.code is ErrorCode.INVALID
    assert [d["loc"] for d in refused.value.details] == [place]
    assert GuidelinesVersion.objects.count() == 1
    project.refresh_from_db()
    assert project.guidelines == "kept"


def test_only_managers_and_site_admins_write_them(ann: Actor, project: Project) -> None:
    with pytest.raises(LearnError) as refused:
        guidelines_replace(member=person(ann), project=project, text="mine", questions={})
    assert refused.value.code is ErrorCode.FORBIDDEN
    assert not GuidelinesVersion.objects.exists()


def test_the_changes_between_two_versions_are_a_line_diff_a_text(
    lead: Principal, project: Project
) -> None:
    save(lead, project, "one\ntwo", tone="Warm.")
    save(lead, project, "one\nthree", safety="No harm.")
    changes = guidelines_changes(guidelines_at(project.pk, 1), guidelines_at(project.pk, 2))
    assert [c.key for c in changes] == ["", "safety", "tone"]
    kinds = [(line.kind, line.text) for line in changes[0].lines if line.kind in ("add", "del")]
    assert kinds == [("del", "-two"), ("add", "+three")]
    assert [line.text for line in changes[2].lines if line.kind == "del"] == ["-Warm."]


# --- acknowledging before one rates --------------------------------------------------------


@pytest.fixture
def asking(lead: Principal, project: Project) -> Project:
    """`default` asks for each new version to be acknowledged, and has version 1."""
    project_update(project=project, changes={"guidelines_ack_required": True}, member=lead)
    save(lead, project, "# Read me")
    return project


def rate_over_rest(actor: Actor) -> Any:
    made = TurnFactory.create()
    return actor.rest(
        "post", "/api/ratings/", {"turn": str(made.pk), "answers": {"correctness": 0.5}}
    )


def refused_for_guidelines(response: Any, version: int) -> bool:
    body = response.json()
    return (
        response.status_code == 409
        and body["code"] == "conflict"
        and body["details"]
        == [{"loc": [VERSION_FIELD], "msg": f"version {version} is not acknowledged yet"}]
    )


def test_a_project_that_asks_nothing_lets_people_rate(
    lead: Principal, project: Project, ann: Actor
) -> None:
    save(lead, project, "# Read me")
    assert guidelines_due(person(ann)) is None
    assert rate_over_rest(ann).status_code == 201


def test_a_person_who_has_not_acknowledged_the_newest_version_may_not_rate(
    asking: Project, ann: Actor
) -> None:
    assert guidelines_due(person(ann)) == 1
    assert refused_for_guidelines(rate_over_rest(ann), 1)
    assert not Feedback.objects.exists()
    acknowledged = ann.rest("post", "/api/projects/default/guidelines/acknowledge/", {"version": 1})
    assert acknowledged.json() == {"version": 1, "due": None}
    assert rate_over_rest(ann).status_code == 201


def test_a_new_version_asks_again_and_an_older_acknowledgement_is_not_enough(
    asking: Project, lead: Principal, ann: Actor
) -> None:
    ann.rest("post", "/api/projects/default/guidelines/acknowledge/", {"version": 1})
    save(lead, asking, "# Read me again")
    assert refused_for_guidelines(rate_over_rest(ann), 2)
    again = ann.rest("post", "/api/projects/default/guidelines/acknowledge/", {"version": 1})
    assert again.json() == {"version": 1, "due": 2}


def test_the_author_of_a_version_has_read_it(asking: Project, lead: Principal) -> None:
    assert guidelines_due(lead) is None


def test_the_rule_holds_for_a_rating_over_learn_feedback_and_never_for_a_machine(
    asking: Project, ann: Actor, agent: Actor
) -> None:
    sent = ann.learn(feedback_req(feedback(rated_turn=turn())))
    assert sent.status_code == 409
    assert sent.json()["details"][0]["loc"] == [VERSION_FIELD]
    assert agent.learn(feedback_req(feedback(source="self"))).status_code == 200
