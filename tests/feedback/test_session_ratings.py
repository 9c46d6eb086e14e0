"""A session is a unit people rate whole (feedback.sessions): the queue hands sessions out
(`POST /api/queue/next/?sessions=true`) by the rules of turns and steps (ratings from distinct
people, leases, never offered again to one who rated or skipped it); a rating names it by
`session_id` (or as `step_id` `@session` of the turn that begins it), answers the questions
asked of a whole turn but spans, corrects nothing, and is not its first turn's rating."""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import TYPE_CHECKING, Any

import pytest
from django.db import connections

from core.accounts.roles import Role
from feedback.models import Feedback, Lease, Rating, Turn
from feedback.queue import QueueLease, queue_next
from feedback.sessions import SESSION_STEP
from tests.builders import feedback, feedback_req, turn
from tests.factories import PrincipalFactory, TurnFactory
from tests.harness import Actor, at_once, human_actor, refused_at

if TYPE_CHECKING:
    from core.accounts.principals import Principal

pytestmark = pytest.mark.django_db

RUBRIC: list[dict[str, Any]] = [
    {"kind": "numeric", "key": "helpfulness", "label": "Helpful", "min": -1, "max": 1},
    {"kind": "spans", "key": "wrong", "label": "Wrong parts", "options": ["factual"],
     "required": True},
    {"kind": "boolean", "key": "tool_ok", "label": "Tool OK", "step_kinds": ["tool"]},
]  # fmt: skip


@pytest.fixture
def sessions(agent: Actor, boss: Actor) -> None:
    """Session s-a: turns a-1, a-2; session s-b: b-1; and a turn of no session, n-1."""
    assert boss.rest("put", "/api/projects/default/rubric/", {"questions": RUBRIC}).status_code == (
        200
    )
    body = {
        "turns": [
            {"correlation_id": key, "session_id": session, "rated_turn": turn()}
            for key, session in (("a-1", "s-a"), ("n-1", ""), ("b-1", "s-b"), ("a-2", "s-a"))
        ]
    }
    assert agent.rest("post", "/api/turns/", body).status_code == 201


def next_session(actor: Actor) -> str | None:
    """The session id the queue leases `actor`, or None for nothing."""
    response = actor.rest("post", "/api/queue/next/?sessions=true")
    if response.status_code == 204:
        return None
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["session"]["step_id"] == SESSION_STEP
    assert body["turn"]["session_id"] == body["session"]["session_id"]
    return str(body["session"]["session_id"])


def rate_session(actor: Actor, session_id: str, score: float = 1.0, **extra: Any) -> Any:
    body = {"session_id": session_id, "answers": {"helpfulness": score}, **extra}
    return actor.rest("post", "/api/ratings/", body)


def test_sessions_are_handed_out_first_first_and_each_rating_ends_its_lease(
    sessions: None, ann: Actor
) -> None:
    leased = ann.rest("post", "/api/queue/next/?sessions=true").json()
    assert (leased["turn"]["correlation_id"], leased["session"]["turns"]) == ("a-1", 2)
    assert next_session(ann) == "s-a"  # held: the same again
    assert rate_session(ann, "s-a").status_code == 201
    assert not Lease.objects.filter(username="ann").exists()
    assert next_session(ann) == "s-b"
    assert rate_session(ann, "s-b").status_code == 201
    assert next_session(ann) is None  # n-1 begins no session


def test_the_session_with_the_most_urgent_turn_comes_first(
    sessions: None, agent: Actor, ann: Actor
) -> None:
    later = {"correlation_id": "b-2", "session_id": "s-b", "rated_turn": turn()}
    assert agent.rest("post", "/api/turns/", {"turns": [later]}).status_code == 201
    judged = feedback(correlation_id="b-2", source="self", polarity="negative", score=-1.0)
    assert agent.learn(feedback_req(judged)).status_code == 200
    assert Turn.objects.get(correlation_id="b-2").priority > 0
    assert next_session(ann) == "s-b"  # its second turn went wrong: before s-a


def test_a_session_rating_is_the_sessions_and_not_its_first_turns(
    sessions: None, ann: Actor, rev: Actor
) -> None:
    assert rate_session(ann, "s-a", -1.0, comment="went in circles").status_code == 201
    stored = Feedback.objects.get()
    assert (stored.correlation_id, stored.session_id, stored.step_id) == ("a-1", "s-a", "@session")
    assert stored.rated_turn is None
    assert Rating.objects.get().step_id == SESSION_STEP
    assert Turn.objects.get(correlation_id="a-1").ratings_needed == 1  # the turn still needs one
    rated = rev.rest("post", "/api/ratings/", {"turn": "a-1", "answers": {"helpfulness": 1}})
    assert rated.status_code == 400  # the turn's own rating must mark its spans: required
    both = {"turn": "a-1", "answers": {"helpfulness": 1, "wrong": []}}
    assert rev.rest("post", "/api/ratings/", both).status_code == 201
    assert Turn.objects.get(correlation_id="a-1").ratings_needed == 0
    # It rates no one response: no pair, no reward sample; the answers export keeps it.
    rating_ids = set(Rating.objects.values_list("rating_id", flat=True))
    turns_own = Rating.objects.get(step_id="").rating_id
    assert {line["rating_id"] for line in rev.exported("rewards")} == {turns_own} != rating_ids
    assert [line["label"] for line in rev.exported("kto")] == [True]
    answers = {
        (line["correlation_id"], line["session_id"], line["step_id"])
        for line in rev.exported("answers")
    }
    assert answers == {("a-1", "s-a", "@session"), ("a-1", "s-a", "")}


def test_a_session_goes_to_as_many_people_at_once_as_it_needs_and_no_more(
    sessions: None, ann: Actor, rev: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    third = human_actor("tess", "annotator")
    assert next_session(ann) == next_session(rev) == "s-a"
    assert next_session(third) == "s-b"  # s-a is held by the two it needs
    held = rate_session(third, "s-a")
    assert refused_at(held, 409) == [["feedbacks", 0, "correlation_id"]]
    assert held.json()["details"][0]["msg"] == (
        "the ratings this session still needs are leased to other people"
    )
    assert rate_session(ann, "s-a").status_code == 201
    assert next_session(ann) == "s-b"  # never s-a again: ann rated it
    assert rate_session(rev, "s-a").status_code == 201
    refused = rate_session(third, "s-a")
    assert refused_at(refused, 409) == [["feedbacks", 0, "correlation_id"]]
    said = refused.json()["details"][0]["msg"]
    assert said == "this session has the 2 ratings it needs from distinct people"


def test_a_skipped_session_is_not_offered_again_and_a_released_one_is(
    sessions: None, ann: Actor
) -> None:
    assert next_session(ann) == "s-a"
    a1 = Turn.objects.get(correlation_id="a-1").pk
    lease = {"turn": a1, "step_id": SESSION_STEP}
    assert ann.rest("post", "/api/queue/release/", lease).status_code == 204
    assert next_session(ann) == "s-a"
    assert ann.rest("post", "/api/queue/skip/", lease).status_code == 204
    assert next_session(ann) == "s-b"
    assert ann.rest("post", "/api/queue/skip/", lease).status_code == 404


def test_an_undone_session_rating_leases_the_session_back(sessions: None, ann: Actor) -> None:
    assert next_session(ann) == "s-a"
    assert rate_session(ann, "s-a").status_code == 201
    rating = ann.rest("get", "/api/feedback/?source=human").json()["results"][0]
    assert rating["step_id"] == SESSION_STEP
    undone = ann.rest("post", "/api/queue/undo/", {"feedback_id": rating["feedback_id"]})
    assert undone.status_code == 200, undone.content
    assert Lease.objects.get(username="ann").step_id == SESSION_STEP
    assert next_session(ann) == "s-a"


def test_what_a_session_rating_may_not_be_is_invalid_naming_the_field(
    sessions: None, ann: Actor
) -> None:
    a2 = {"turn": "a-2", "step_id": SESSION_STEP, "answers": {"helpfulness": 1}}
    assert refused_at(ann.rest("post", "/api/ratings/", a2)) == [["step_id"]]
    assert refused_at(rate_session(ann, "s-zz"), 404) == [["session_id"]]
    both = {"turn": "a-1", "session_id": "s-a", "answers": {"helpfulness": 1}}
    assert refused_at(ann.rest("post", "/api/ratings/", both)) == [["turn"]]
    assert refused_at(rate_session(ann, "s-a", correction="better")) == [["correction"]]
    spans = {"helpfulness": 1, "wrong": [{"start": 0, "end": 1, "label": "factual"}]}
    marked = ann.rest("post", "/api/ratings/", {"session_id": "s-a", "answers": spans})
    assert refused_at(marked) == [["answers", "wrong"]]
    tool = ann.rest("post", "/api/ratings/", {"session_id": "s-a", "answers": {"tool_ok": True}})
    assert ["answers", "tool_ok"] in refused_at(tool)
    both_units = ann.rest("post", "/api/queue/next/?sessions=true&steps=tool")
    assert refused_at(both_units) == [["sessions"]]
    assert not Feedback.objects.exists()
    assert not Rating.objects.exists()
    assert not Lease.objects.exists()


def test_an_agent_may_rate_a_session_through_its_first_turn_only(
    sessions: None, agent: Actor
) -> None:
    on_session = feedback(correlation_id="a-1", step_id=SESSION_STEP, score=-0.5, source="self")
    assert agent.learn(feedback_req(on_session)).status_code == 200
    for wrong, place in (
        ({"correlation_id": "a-2", "step_id": SESSION_STEP}, ["feedbacks", 0, "step_id"]),
        ({"correlation_id": "n-1", "step_id": SESSION_STEP}, ["feedbacks", 0, "step_id"]),
        (
            {"correlation_id": "a-1", "step_id": SESSION_STEP, "polarity": "corrective",
             "correction": "x"},
            ["feedbacks", 0, "correction"],
        ),
    ):  # fmt: skip
        reply = agent.learn(feedback_req(feedback(**wrong)))
        assert reply.status_code == 400, reply.content
        assert [d["loc"] for d in reply.json()["details"]] == [place]
    assert Feedback.objects.count() == 1


def test_no_step_may_take_the_sessions_step_id(agent: Actor) -> None:
    step = {"step_id": SESSION_STEP, "name": "chat", "kind": "llm"}
    body = {"turns": [{"correlation_id": "t-1", "rated_turn": turn(), "steps": [step]}]}
    response = agent.rest("post", "/api/turns/", body)
    assert refused_at(response) == [["turns", 0, "steps", 0, "step_id"]]
    assert not Turn.objects.exists()


PEOPLE = [PrincipalFactory.build(role=Role.ANNOTATOR, name=f"p-{i}") for i in range(6)]


def _ask_for_sessions_at_once(people: list[Principal]) -> list[QueueLease | None]:
    return at_once([partial(queue_next, who, sessions=True) for who in people])


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("per_turn", [1, 2])
def test_people_asking_for_sessions_at_once_never_share_one_beyond_its_need(
    settings: Any, per_turn: int
) -> None:
    """Six people, two sessions: none held by more people than it needs."""
    settings.LEARNPORTAL_RATINGS_PER_TURN = per_turn
    for round_ in range(3):
        Lease.objects.all().delete()
        Turn.objects.all().delete()
        for index in range(2):
            for part in range(2):
                TurnFactory.create(
                    correlation_id=f"r{round_}-{index}-{part}", session_id=f"s{index}"
                )
        answers = _ask_for_sessions_at_once(PEOPLE)
        held = Counter(a.turn.session_id for a in answers if a is not None and a.session)
        assert set(held) == {"s0", "s1"}, held
        assert all(count <= per_turn for count in held.values()), held
        if connections["default"].vendor == "sqlite":
            assert held == {"s0": per_turn, "s1": per_turn}, held
        leased = Lease.objects.values_list("turn__session_id", "step_id")
        assert Counter(session for session, step in leased if step == SESSION_STEP) == held
