"""Turns and the queue are per project: an agent's turns go to its token's project, and a person
is offered, listed and shown only the turns of the project they act in (docs/contract.md,
"Teams")."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from django.test import Client

from core.accounts.models import User
from core.projects.models import Project
from core.projects.services import member_set, project_add, project_named
from feedback.models import Turn
from tests.builders import turn
from tests.harness import Actor, human_actor, token_actor

if TYPE_CHECKING:
    from tests.harness import APIClientResponse

pytestmark = pytest.mark.django_db


def post_turns(actor: Actor, *names: str) -> APIClientResponse:
    body = {"turns": [{"correlation_id": name, "rated_turn": turn()} for name in names]}
    return actor.client.post(
        "/api/turns/", data=orjson.dumps(body), content_type="application/json"
    )


def listed(actor: Actor, project: str = "") -> list[str]:
    query = f"?project={project}" if project else ""
    response = actor.rest("get", f"/api/turns/{query}")
    assert response.status_code == 200, response.content
    return sorted(row["correlation_id"] for row in response.json()["results"])


def leased(actor: Actor, project: str = "") -> list[str]:
    """Every turn the queue leases this person, rating none: each one skipped for the next."""
    query = f"?project={project}" if project else ""
    seen = []
    while (response := actor.rest("post", f"/api/queue/next/{query}", {})).status_code == 200:
        lease: dict[str, Any] = response.json()
        seen.append(lease["turn"]["correlation_id"])
        actor.rest("post", f"/api/queue/skip/{query}", {"turn": lease["turn"]["id"]})
    assert response.status_code == 204, response.content
    return sorted(seen)


@pytest.fixture
def two_teams(agent: Actor) -> dict[str, Actor]:
    project_add(slug="alpha", name="Alpha")
    alpha_agent = token_actor("alpha-agent", "agent", project="alpha")
    assert post_turns(alpha_agent, "a-1", "a-2").status_code == 201
    assert post_turns(agent, "d-1").status_code == 201
    return {
        "alpha-agent": alpha_agent,
        "alpha-ann": human_actor("aria", "annotator", project="alpha"),
        "alpha-rev": human_actor("rene", "reviewer", project="alpha"),
        "default-ann": human_actor("dana", "annotator"),
    }


def test_a_turn_belongs_to_the_project_of_the_token_that_sent_it(
    two_teams: dict[str, Actor],
) -> None:
    projects = dict(Turn.objects.values_list("correlation_id", "project__slug"))
    assert projects == {"a-1": "alpha", "a-2": "alpha", "d-1": "default"}


def test_each_person_is_leased_only_their_projects_turns(two_teams: dict[str, Actor]) -> None:
    assert leased(two_teams["alpha-ann"]) == ["a-1", "a-2"]
    assert leased(two_teams["alpha-rev"]) == ["a-1", "a-2"]
    assert leased(two_teams["default-ann"]) == ["d-1"]


def test_each_principal_lists_only_its_projects_turns(two_teams: dict[str, Actor]) -> None:
    assert listed(two_teams["alpha-agent"]) == ["a-1", "a-2"]
    assert listed(two_teams["alpha-ann"]) == ["a-1", "a-2"]
    assert listed(two_teams["default-ann"]) == ["d-1"]


def test_another_projects_turns_are_not_found_by_naming_it(two_teams: dict[str, Actor]) -> None:
    for role, actor in two_teams.items():
        other = "default" if role.startswith("alpha") else "alpha"
        assert actor.rest("get", f"/api/turns/?project={other}").status_code == 404
        assert actor.rest("post", f"/api/queue/next/?project={other}", {}).status_code in (403, 404)


def test_a_person_in_two_projects_works_in_the_one_they_name(
    two_teams: dict[str, Actor],
) -> None:
    dana = two_teams["default-ann"]
    member_set(
        project=project_named("alpha"), person=User.objects.get(username="dana"), role="annotator"
    )
    assert leased(dana, "alpha") == ["a-1", "a-2"]
    assert leased(dana, "default") == ["d-1"]


def test_another_projects_turn_page_is_not_found(two_teams: dict[str, Actor]) -> None:
    theirs = Turn.objects.get(correlation_id="a-1").pk
    ours = Turn.objects.get(correlation_id="d-1").pk
    client = Client()
    client.force_login(User.objects.get(username="dana"))
    for url in (f"/turns/{theirs}/", f"/turns/{theirs}/rated/", f"/explorer/turns/{theirs}/"):
        assert client.get(url).status_code == 404, url
    assert client.get(f"/turns/{ours}/").status_code == 200


def test_a_lease_lasts_as_long_as_its_project_says_else_as_the_portal_says(
    two_teams: dict[str, Actor], settings: Any
) -> None:
    settings.LEARNPORTAL_LEASE_SECONDS = 900
    Project.objects.filter(slug="alpha").update(lease_seconds=60)

    def lease_seconds(actor: Actor) -> float:
        asked = time.time()
        response = actor.rest("post", "/api/queue/next/", {})
        assert response.status_code == 200, response.content
        return float(response.json()["lease_expires"]) - asked

    assert 59 <= lease_seconds(two_teams["alpha-ann"]) <= 61
    assert 899 <= lease_seconds(two_teams["default-ann"]) <= 901
