"""The overview's counters are per project: the feedback that counts and the turns waiting for a
rating, on the home page and in the live totals its counters are updated with
(feedback.selectors.overview.live_counts), count only the project the person acts in; a rating
undone takes it out of its own project's count alone (docs/contract.md, "Teams: projects").

Two projects throughout: `default` and `alpha`, each with its agent and an annotator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from core.projects.selection import project_pk
from core.projects.services import project_add
from feedback.selectors.overview import live_counts
from tests.builders import feedback, feedback_req
from tests.harness import Actor, human_actor, token_actor

if TYPE_CHECKING:
    from django.test import Client

pytestmark = pytest.mark.django_db

ALPHA = "alpha"
TURN = {"prompt": "Q?", "response": "A.", "model": "m"}


@pytest.fixture
def teams(db: None) -> dict[str, Actor]:
    project_add(slug=ALPHA, name="Alpha")
    return {
        "default-agent": token_actor("default-agent", "agent"),
        "default-ann": human_actor("dana", "annotator"),
        "alpha-agent": token_actor("alpha-agent", "agent", project=ALPHA),
        "alpha-ann": human_actor("aria", "annotator", project=ALPHA),
        "boss": human_actor("boss", "admin"),
    }


def queued(agent: Actor, *keys: str) -> None:
    body = {"turns": [{"correlation_id": k, "rated_turn": TURN} for k in keys]}
    response = agent.rest("post", "/api/turns/", body)
    assert response.status_code == 201, response.content


def sent(actor: Actor, *items: dict[str, Any]) -> None:
    response = actor.learn(feedback_req(*items))
    assert response.status_code == 200, response.content


def on_the_home_page(client: Client) -> tuple[Any, Any]:
    response = client.get("/")
    assert response.status_code == 200
    return response.context["feedback_count"], response.context["turns_unrated"]


def live(project: str) -> tuple[Any, Any]:
    counts = live_counts(project_pk(project))
    return counts["feedback_count"], counts["turns_unrated"]


def test_a_projects_feedback_and_turns_move_its_counters_and_not_the_others(
    teams: dict[str, Actor],
) -> None:
    queued(teams["default-agent"], "d-1", "d-2")
    sent(teams["default-agent"], feedback(feedback_id="d-fb"))
    before = on_the_home_page(teams["default-ann"].browser())
    assert before == live("default") == (1, 2)
    queued(teams["alpha-agent"], "a-1", "a-2", "a-3")
    sent(teams["alpha-agent"], *(feedback(feedback_id=f"a-fb-{i}") for i in range(4)))
    assert on_the_home_page(teams["default-ann"].browser()) == live("default") == before
    assert on_the_home_page(teams["alpha-ann"].browser()) == live(ALPHA) == (4, 3)
    # An admin who chooses alpha in the header sees alpha's counters on the same page.
    browser = teams["boss"].browser()
    assert on_the_home_page(browser) == (1, 2)
    browser.post("/choose-project/", {"project": ALPHA})
    assert on_the_home_page(browser) == (4, 3)


def test_an_undone_rating_leaves_its_own_projects_count_alone(teams: dict[str, Actor]) -> None:
    queued(teams["default-agent"], "d-1")
    queued(teams["alpha-agent"], "a-1")
    sent(teams["default-ann"], feedback(feedback_id="dana-1", correlation_id="d-1"))
    sent(teams["alpha-ann"], feedback(feedback_id="aria-1", correlation_id="a-1"))
    sent(teams["alpha-agent"], feedback(feedback_id="a-fb"))
    assert (live("default"), live(ALPHA)) == ((1, 0), (2, 0))
    response = teams["alpha-ann"].rest("post", "/api/queue/undo/", {"feedback_id": "aria-1"})
    assert response.status_code == 200, response.content
    assert (live("default"), live(ALPHA)) == ((1, 0), (1, 1))
    assert on_the_home_page(teams["default-ann"].browser()) == (1, 0)
