"""Comparisons the host forms from turns (issue 26, item 1), where a project asks for them
(`compare_turns`): the turns of one session that answer one prompt from different components
become one comparison to judge, however they arrive."""

from __future__ import annotations

from functools import partial
from typing import Any

import orjson
import pytest

from core.accounts.roles import Role
from core.projects.models import Project
from feedback.comparisons.formed import FORMED_BY
from feedback.comparisons.models import Candidate, Comparison
from feedback.models import Turn
from feedback.services.turns import TurnInput, turns_submit
from learnportal_protocol import RatedTurn
from tests.builders import feedback, feedback_req, turn
from tests.factories import PrincipalFactory
from tests.feedback.comparisons.test_comparisons_api import judge, lease
from tests.feedback.test_otlp import ROOT, otlp_json, post, span
from tests.harness import Actor, at_once, default_pk

pytestmark = pytest.mark.django_db

PROMPT = "Summarise the article."


@pytest.fixture
def comparing(db: None) -> None:
    Project.objects.filter(pk=default_pk()).update(compare_turns=True)


def answer(
    key: str, component: str, *, session: str = "s-1", prompt: str = PROMPT
) -> dict[str, Any]:
    return {
        "correlation_id": key,
        "session_id": session,
        "component_name": component,
        "rated_turn": turn(
            prompt=prompt, response=f"{component} says {key}", model=f"{component}-m"
        ),
    }


def send(actor: Actor, *turns: dict[str, Any]) -> None:
    response = actor.rest("post", "/api/turns/", {"turns": list(turns)})
    assert response.status_code in (200, 201), response.content


def candidates() -> list[tuple[str, str, str]]:
    """(component, response, turn's correlation_id) of every candidate, in position order."""
    rows = Candidate.objects.order_by("comparison_id", "position")
    return [(c.component_name, c.response, c.turn.correlation_id if c.turn else "") for c in rows]


def test_by_default_turns_form_no_comparison(agent: Actor) -> None:
    send(agent, answer("t-1", "summ-a"), answer("t-2", "summ-b"))
    assert not Comparison.objects.exists()


def test_two_components_answering_one_prompt_in_one_session_are_compared(
    agent: Actor, ann: Actor, comparing: None
) -> None:
    send(agent, answer("t-1", "summ-a"), answer("t-2", "summ-b"))
    formed = Comparison.objects.get()
    assert (formed.prompt, formed.submitted_by) == (PROMPT, FORMED_BY)
    assert candidates() == [
        ("summ-a", "summ-a says t-1", "t-1"),
        ("summ-b", "summ-b says t-2", "t-2"),
    ]
    assert {c.model for c in Candidate.objects.all()} == {"summ-a-m", "summ-b-m"}
    leased = lease(ann)
    assert leased is not None and leased["prompt"] == PROMPT
    assert judge(ann, leased["id"], preference=1).status_code == 201


def test_the_second_component_may_come_in_a_later_request(agent: Actor, comparing: None) -> None:
    send(agent, answer("t-1", "summ-a"))
    assert not Comparison.objects.exists()
    send(agent, answer("t-2", "summ-b"))
    assert [c[0] for c in candidates()] == ["summ-a", "summ-b"]


@pytest.mark.parametrize(
    "other",
    [
        answer("t-2", "summ-b", session="s-2"),
        answer("t-2", "summ-b", prompt="Another prompt."),
        answer("t-2", "summ-a"),
    ],
    ids=["another session", "another prompt", "the same component"],
)
def test_turns_of_another_session_prompt_or_of_one_component_are_not_compared(
    agent: Actor, comparing: None, other: dict[str, Any]
) -> None:
    send(agent, answer("t-1", "summ-a"), other)
    assert not Comparison.objects.exists()


def test_turns_of_no_session_are_not_compared(agent: Actor, comparing: None) -> None:
    send(agent, answer("t-1", "summ-a", session=""), answer("t-2", "summ-b", session=""))
    assert not Comparison.objects.exists()


def test_a_component_answering_again_keeps_its_first_answer(agent: Actor, comparing: None) -> None:
    send(agent, answer("t-1", "summ-a"), answer("t-2", "summ-b"), answer("t-3", "summ-a"))
    assert [c[2] for c in candidates()] == ["t-1", "t-2"]


def test_the_same_turns_sent_again_form_no_second_comparison(agent: Actor, comparing: None) -> None:
    both = (answer("t-1", "summ-a"), answer("t-2", "summ-b"))
    send(agent, *both)
    send(agent, *both)
    assert Comparison.objects.count() == 1
    assert len(candidates()) == 2


def test_a_third_component_joins_until_someone_has_it(
    agent: Actor, ann: Actor, comparing: None
) -> None:
    send(agent, answer("t-1", "summ-a"), answer("t-2", "summ-b"))
    send(agent, answer("t-3", "summ-c"))
    assert [c[0] for c in candidates()] == ["summ-a", "summ-b", "summ-c"]
    assert lease(ann) is not None  # leased: what it shows stays as it was shown
    send(agent, answer("t-4", "summ-d"))
    assert [c[0] for c in candidates()] == ["summ-a", "summ-b", "summ-c"]


def test_a_comparison_formed_holds_at_most_the_candidates_allowed(
    agent: Actor, comparing: None, settings: Any
) -> None:
    settings.LEARNPORTAL_MAX_CANDIDATES = 3
    send(agent, *(answer(f"t-{i}", f"summ-{i}") for i in range(5)))
    assert [c[0] for c in candidates()] == ["summ-0", "summ-1", "summ-2"]


def test_turns_carried_by_feedback_are_compared_too(agent: Actor, comparing: None) -> None:
    carried = [
        feedback(
            correlation_id=key,
            session_id="s-1",
            component_name=component,
            rated_turn=turn(prompt=PROMPT, response=f"{component} answer"),
        )
        for key, component in (("t-1", "summ-a"), ("t-2", "summ-b"))
    ]
    response = agent.learn(feedback_req(*carried))
    assert response.status_code == 200, response.json()
    assert [c[0] for c in candidates()] == ["summ-a", "summ-b"]


def test_another_projects_setting_forms_nothing_here(agent: Actor) -> None:
    Project.objects.create(slug="beta", name="Beta", compare_turns=True)
    send(agent, answer("t-1", "summ-a"), answer("t-2", "summ-b"))
    assert not Comparison.objects.exists()


def test_two_services_traced_answering_one_prompt_in_one_session_are_compared(
    agent: Actor, comparing: None
) -> None:
    for trace, service in (("a" * 32, "summ-a"), ("b" * 32, "summ-b")):
        root = span(ROOT, "", "agent", session_id="s-1", input_value=PROMPT, output_value=service)
        body = otlp_json({**root, "traceId": trace}, service=service)
        assert post(agent, orjson.dumps(body)).status_code == 200
    assert [c[:2] for c in candidates()] == [("summ-a", "summ-a"), ("summ-b", "summ-b")]


def test_a_comparison_once_shown_takes_no_later_component_even_when_given_back(
    agent: Actor, ann: Actor, comparing: None
) -> None:
    send(agent, answer("t-1", "summ-a"), answer("t-2", "summ-b"))
    assert lease(ann) is not None
    assert (
        ann.rest(
            "post", "/api/queue/release/", {"comparison": Comparison.objects.get().pk}
        ).status_code
        == 204
    )
    send(agent, answer("t-3", "summ-c"))
    assert [c[0] for c in candidates()] == ["summ-a", "summ-b"]


@pytest.mark.django_db(transaction=True)
def test_two_components_turns_stored_at_once_form_one_comparison_of_both(agent: Actor) -> None:
    Project.objects.filter(pk=default_pk()).update(compare_turns=True)
    sender = PrincipalFactory.build(role=Role.AGENT, name="agent-1")

    def store(key: str, component: str) -> Any:
        item = answer(key, component)
        rated = RatedTurn.model_validate(item["rated_turn"])
        return turns_submit(
            principal=sender,
            turns=[TurnInput(key, item["session_id"], component, rated)],
        )

    for round_ in range(3):
        Comparison.objects.all().delete()
        keys = (f"r{round_}-a", f"r{round_}-b")
        at_once([partial(store, keys[0], "summ-a"), partial(store, keys[1], "summ-b")])
        assert Comparison.objects.count() == 1, round_
        assert sorted(c[0] for c in candidates()) == ["summ-a", "summ-b"]
        Turn.objects.all().delete()
