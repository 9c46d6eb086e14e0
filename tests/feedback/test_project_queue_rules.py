"""A project's queue rules: how many people rate each of its turns, whether its annotators
rate blind, each its own or else the portal's, and how far up its queue a turn moves when its
agent or environment judged it badly (`priority_negative`) or a feedback on it is unsure
(`priority_unsure`) (docs/contract.md, "Teams")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from django.core.management import call_command
from django.test import Client

from core.accounts.models import User
from core.accounts.roles import Role
from core.projects.services import project_add, project_update
from feedback.models import Feedback, Turn
from feedback.queue import queue_next, queue_skip
from learnportal_protocol import FeedbackPolarity
from tests.builders import turn
from tests.factories import FeedbackFactory, PrincipalFactory, TurnFactory
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


# --- priority rules ---------------------------------------------------------------------------

ALPHA_AGENT = PrincipalFactory.build(role=Role.AGENT, name="alpha-agent", project="alpha")
ALPHA_ANN = PrincipalFactory.build(role=Role.ANNOTATOR, name="aria", project="alpha")
ALPHA_LEAD = PrincipalFactory.build(role=Role.MANAGER, name="lena", project="alpha")
AGENT = PrincipalFactory.build(role=Role.AGENT, name="agent-1")
ANN = PrincipalFactory.build(role=Role.ANNOTATOR, name="ann")


def signalled(agent: Any, prefix: str) -> None:
    """Three turns, oldest first: a plain one, one its agent judged badly, one it was unsure
    of."""
    for name in ("plain", "bad", "unsure"):
        TurnFactory.create(by=agent, correlation_id=f"{prefix}{name}")
    bad = {"polarity": FeedbackPolarity.NEGATIVE, "score": -0.5}
    unsure = {"polarity": FeedbackPolarity.POSITIVE, "confidence": 0.2}
    FeedbackFactory.create(by=agent, correlation_id=f"{prefix}bad", **bad)
    FeedbackFactory.create(by=agent, correlation_id=f"{prefix}unsure", **unsure)


def queue_order(person: Any) -> list[str]:
    """Every turn the queue offers `person`, in its order, each skipped for the next."""
    seen = []
    while (lease := queue_next(person)) is not None:
        seen.append(lease.turn.correlation_id)
        queue_skip(person, lease.turn.pk)
    return seen


def set_rules(project: Project, **weights: int) -> None:
    project_update(project=project, changes=weights, member=ALPHA_LEAD)


def test_by_default_a_turn_judged_badly_comes_before_an_unsure_one_then_the_oldest(
    alpha: Project,
) -> None:
    signalled(ALPHA_AGENT, "")
    assert queue_order(ALPHA_ANN) == ["bad", "unsure", "plain"]


def test_a_project_that_weighs_unsure_feedback_higher_is_offered_that_turn_first(
    alpha: Project,
) -> None:
    set_rules(alpha, priority_negative=1, priority_unsure=3)
    signalled(ALPHA_AGENT, "")
    assert queue_order(ALPHA_ANN) == ["unsure", "bad", "plain"]


def test_a_weight_of_zero_leaves_the_signal_out_of_the_order(alpha: Project) -> None:
    set_rules(alpha, priority_negative=0, priority_unsure=0)
    signalled(ALPHA_AGENT, "")
    assert queue_order(ALPHA_ANN) == ["plain", "bad", "unsure"]
    assert set(Turn.objects.filter(project=alpha).values_list("priority", flat=True)) == {0}


def test_a_turn_with_both_signals_sums_the_weights(alpha: Project) -> None:
    set_rules(alpha, priority_negative=4, priority_unsure=5)
    TurnFactory.create(by=ALPHA_AGENT, correlation_id="both")
    both = {"polarity": FeedbackPolarity.NEGATIVE, "score": -1.0, "confidence": 0.1}
    FeedbackFactory.create(by=ALPHA_AGENT, correlation_id="both", **both)
    assert Turn.objects.get(project=alpha, correlation_id="both").priority == 9


def test_changed_rules_reorder_the_turns_already_queued(alpha: Project) -> None:
    signalled(ALPHA_AGENT, "")
    set_rules(alpha, priority_negative=0, priority_unsure=7)
    priorities = dict(Turn.objects.filter(project=alpha).values_list("correlation_id", "priority"))
    assert priorities == {"plain": 0, "bad": 0, "unsure": 7}
    assert queue_order(ALPHA_ANN) == ["unsure", "plain", "bad"]


def test_one_projects_rules_leave_another_projects_queue_as_it_was(alpha: Project) -> None:
    signalled(ALPHA_AGENT, "a-")
    signalled(AGENT, "d-")
    set_rules(alpha, priority_negative=0, priority_unsure=7)
    assert queue_order(ANN) == ["d-bad", "d-unsure", "d-plain"]
    assert queue_order(ALPHA_ANN) == ["a-unsure", "a-plain", "a-bad"]
