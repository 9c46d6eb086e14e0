"""A project's queue rules: how many people rate each of its turns, and whether its annotators
rate blind, each its own or else the portal's (docs/contract.md, "Teams")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from django.core.management import call_command
from django.test import Client

from core.accounts.models import User
from core.projects.services import project_add
from feedback.models import Feedback, Turn
from tests.builders import turn
from tests.harness import Actor, human_actor, token_actor

if TYPE_CHECKING:
    from core.projects.models import Project

pytestmark = pytest.mark.django_db


@pytest.fixture
def alpha(db: None) -> Project:
    return project_add(slug="alpha", name="Alpha")


@pytest.fixture
def lead(alpha: Project) -> Actor:
    return human_actor("lead", "manager", project="alpha")


def queue(project: str, *names: str) -> None:
    agent = token_actor(f"{project}-agent", "agent", project=project)
    body = {"turns": [{"correlation_id": name, "rated_turn": turn()} for name in names]}
    assert agent.rest("post", "/api/turns/", body).status_code == 201


def rate(actor: Actor, name: str, score: float = 0.5) -> Any:
    return actor.rest("post", "/api/ratings/", {"turn": name, "answers": {"correctness": score}})


def needed(name: str) -> int:
    return Turn.objects.values_list("ratings_needed", flat=True).get(correlation_id=name)


def test_a_turn_takes_as_many_people_as_its_project_says_and_no_more(
    alpha: Project, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 1
    alpha.ratings_per_turn = 2
    alpha.save()
    queue("alpha", "a-1")
    queue("default", "d-1")
    first, second, third = (human_actor(n, "annotator", project="alpha") for n in "abc")
    assert needed("a-1") == 2
    assert rate(first, "a-1").status_code == 201
    assert needed("a-1") == 1
    assert rate(second, "a-1").status_code == 201
    assert needed("a-1") == 0
    refused = rate(third, "a-1")
    assert refused.status_code == 409, refused.content
    assert "the 2 ratings it needs" in refused.content.decode()
    assert needed("d-1") == 1
    assert rate(human_actor("dana", "annotator"), "d-1").status_code == 201
    assert needed("d-1") == 0


def test_a_manager_changing_ratings_per_turn_recounts_the_projects_turns_only(
    alpha: Project, lead: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 1
    queue("alpha", "a-1", "a-2")
    queue("default", "d-1")
    aria = human_actor("aria", "annotator", project="alpha")
    assert rate(aria, "a-1").status_code == 201
    assert (needed("a-1"), needed("a-2")) == (0, 1)

    assert lead.rest("patch", "/api/projects/alpha/", {"ratings_per_turn": 3}).status_code == 200
    assert (needed("a-1"), needed("a-2"), needed("d-1")) == (2, 3, 1)
    assert lead.rest("patch", "/api/projects/alpha/", {"ratings_per_turn": None}).status_code == 200
    assert (needed("a-1"), needed("a-2"), needed("d-1")) == (0, 1, 1)


def test_a_refused_ratings_per_turn_changes_no_turn(alpha: Project, lead: Actor) -> None:
    queue("alpha", "a-1")
    before = needed("a-1")
    response = lead.rest("patch", "/api/projects/alpha/", {"ratings_per_turn": 0})
    assert response.status_code == 400
    assert "ratings_per_turn" in response.content.decode()
    assert needed("a-1") == before


def test_queue_recount_recounts_one_project_or_refuses_one_that_is_not_there(
    alpha: Project, settings: Any, capsys: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 1
    queue("alpha", "a-1")
    queue("default", "d-1")
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    call_command("queue_recount", project="alpha")
    assert (needed("a-1"), needed("d-1")) == (2, 1)
    with pytest.raises(SystemExit):
        call_command("queue_recount", project="nowhere")
    assert "No project 'nowhere'" in capsys.readouterr().err
    call_command("queue_recount")
    assert needed("d-1") == 2


@pytest.mark.parametrize("blind", [True, False])
def test_an_annotator_sees_others_ratings_before_rating_only_where_the_project_is_not_blind(
    alpha: Project, blind: bool, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    alpha.blind = blind
    alpha.save()
    queue("alpha", "a-1")
    assert rate(human_actor("aria", "annotator", project="alpha"), "a-1").status_code == 201
    human_actor("bea", "annotator", project="alpha")
    bea = Client()
    bea.force_login(User.objects.get(username="bea"))
    turn_id = Turn.objects.get(correlation_id="a-1").pk
    page = bea.get(f"/turns/{turn_id}/rated/")
    assert page.status_code == 200
    shown = [rating.annotator_id for rating, _ in page.context["ratings"]]
    assert shown == ([] if blind else ["aria"])
    assert page.context["blind"] is blind
    assert Feedback.objects.filter(annotator_id="aria").exists()
