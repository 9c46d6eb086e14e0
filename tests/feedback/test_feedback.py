"""learn/feedback: recording, scores, component resolution, provenance and safe retries."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
import pytest

from feedback.models import Feedback, Turn
from tests.builders import (
    experience,
    experience_req,
    feedback,
    feedback_req,
    stats_req,
    stored,
    turn,
)

if TYPE_CHECKING:
    from tests.harness import Actor, Send


def stats_of(transport: Send, actor: Actor, component: str) -> dict[str, Any]:
    status, reply = transport(actor, stats_req(component))
    assert status == 200, reply
    (record,) = reply["components"]
    return record


def test_feedback_is_recorded_with_every_field(transport: Send, ann: Actor) -> None:
    item = feedback(
        correlation_id="turn-42",
        session_id="s1",
        rated_turn=turn(model="agent-v2", version="2.3.1"),
        polarity="corrective",
        score=-0.5,
        dimension="correctness",
        confidence=0.9,
        comment="Too verbose",
        correction="Provide a concise answer",
        correction_span=[0, 4],
        ts=1716123456.789,
    )
    status, reply = transport(ann, feedback_req(item))
    assert status == 200, reply
    assert reply["recorded"] == 1
    row = Feedback.objects.get(feedback_id=item["feedback_id"])
    assert (row.correlation_id, row.session_id) == ("turn-42", "s1")
    assert (row.polarity, row.score, row.dimension, row.confidence) == (
        "corrective",
        -0.5,
        "correctness",
        0.9,
    )
    assert (row.comment, row.correction) == ("Too verbose", "Provide a concise answer")
    assert (row.span_start, row.span_end) == (0, 4)
    assert row.ts == 1716123456.789
    assert row.component_name == "agent-v2"


def test_new_score_is_the_confidence_weighted_mean_of_the_component(
    transport: Send, agent: Actor
) -> None:
    items = [
        feedback(component_name="planner", source="self", score=1.0, confidence=0.5),
        feedback(component_name="planner", source="self", score=-0.5, confidence=1.0),
    ]
    status, reply = transport(agent, feedback_req(*items))
    assert status == 200, reply
    assert reply["recorded"] == 2
    assert reply["new_score"] == pytest.approx((0.5 - 0.5) / 1.5, abs=1e-12)
    status, reply = transport(
        agent, feedback_req(feedback(component_name="planner", score=0.2, confidence=0.25))
    )
    expected = (1.0 * 0.5 - 0.5 * 1.0 + 0.2 * 0.25) / (0.5 + 1.0 + 0.25)
    assert reply["new_score"] == pytest.approx(expected)
    assert stats_of(transport, agent, "planner")["avg_score"] == pytest.approx(expected)


def test_new_score_is_null_when_the_feedback_has_no_component(
    transport: Send, agent: Actor
) -> None:
    status, reply = transport(agent, feedback_req(feedback(score=0.9)))
    assert status == 200, reply
    assert (reply["recorded"], reply["new_score"]) == (1, None)
    assert stored()["components"] == 0


def test_a_component_name_wins_over_the_experience_and_the_model(
    transport: Send, agent: Actor
) -> None:
    transport(agent, experience_req(experience("search", experience_id="exp-search")))
    item = feedback(
        component_name="explicit", correlation_id="exp-search", rated_turn=turn(model="m-1")
    )
    status, reply = transport(agent, feedback_req(item))
    assert status == 200, reply
    assert reply["new_score"] == 0.5
    assert Feedback.objects.get(feedback_id=item["feedback_id"]).component_name == "explicit"
    assert stats_of(transport, agent, "explicit")["avg_score"] == 0.5


def test_feedback_correlated_to_a_stored_experience_rates_its_component(
    transport: Send, agent: Actor, ann: Actor
) -> None:
    transport(agent, experience_req(experience("search", experience_id="exp-s")))
    item = feedback(correlation_id="exp-s", score=-0.6, rated_turn=turn(model="m-1"))
    status, reply = transport(ann, feedback_req(item))
    assert status == 200, reply
    assert reply["new_score"] == pytest.approx(-0.6)
    assert stats_of(transport, agent, "search")["avg_score"] == pytest.approx(-0.6)
    assert Feedback.objects.get(feedback_id=item["feedback_id"]).component_name == "search"


def test_feedback_without_component_or_experience_rates_the_turn_model(
    transport: Send, ann: Actor
) -> None:
    item = feedback(correlation_id="no-such-experience", score=0.3, rated_turn=turn(model="m-7"))
    status, reply = transport(ann, feedback_req(item))
    assert status == 200, reply
    assert reply["new_score"] == pytest.approx(0.3)
    assert stats_of(transport, ann, "m-7")["avg_score"] == pytest.approx(0.3)


def test_new_score_is_that_of_the_last_feedback_component(transport: Send, agent: Actor) -> None:
    items = [
        feedback(component_name="a", score=1.0),
        feedback(component_name="b", score=-1.0),
    ]
    status, reply = transport(agent, feedback_req(*items))
    assert status == 200, reply
    assert reply["new_score"] == -1.0


# --- provenance ------------------------------------------------------------------------------


@pytest.mark.parametrize("source", ["env", "human"])
def test_agent_cannot_send_env_or_human_feedback(
    transport: Send, agent: Actor, source: str
) -> None:
    before = stored()
    status, reply = transport(agent, feedback_req(feedback(source=source, component_name="c")))
    assert status == 403
    assert reply["code"] == "forbidden"
    assert reply["details"][0]["loc"] == ["feedbacks", 0, "source"]
    assert stored() == before


def test_agent_feedback_without_a_source_is_self(transport: Send, agent: Actor) -> None:
    item = {"feedback_id": "fb-agent", "polarity": "positive"}
    status, reply = transport(agent, feedback_req(item))
    assert status == 200, reply
    assert Feedback.objects.get(feedback_id="fb-agent").source == "self"


def test_environment_may_send_env_feedback(transport: Send, env: Actor) -> None:
    status, reply = transport(env, feedback_req(feedback(feedback_id="fb-env-1", source="env")))
    assert status == 200, reply
    assert Feedback.objects.get(feedback_id="fb-env-1").source == "env"


def test_environment_feedback_without_a_source_is_env(transport: Send, env: Actor) -> None:
    status, reply = transport(env, feedback_req({"feedback_id": "fb-env", "polarity": "neutral"}))
    assert status == 200, reply
    assert Feedback.objects.get(feedback_id="fb-env").source == "env"


def test_environment_cannot_send_human_feedback(transport: Send, env: Actor) -> None:
    status, reply = transport(env, feedback_req(feedback(source="human")))
    assert (status, reply["code"]) == (403, "forbidden")


def test_annotator_omitted_annotator_id_is_their_username_and_source_human(
    transport: Send, ann: Actor
) -> None:
    status, reply = transport(ann, feedback_req({"feedback_id": "fb-ann", "polarity": "positive"}))
    assert status == 200, reply
    row = Feedback.objects.get(feedback_id="fb-ann")
    assert (row.annotator_id, row.source) == ("ann", "human")


def test_annotator_may_name_themselves(transport: Send, ann: Actor) -> None:
    status, reply = transport(ann, feedback_req(feedback(feedback_id="fb-a", annotator_id="ann")))
    assert status == 200, reply
    assert Feedback.objects.get(feedback_id="fb-a").annotator_id == "ann"


def test_annotator_cannot_send_feedback_as_someone_else(transport: Send, ann: Actor) -> None:
    before = stored()
    items = [feedback(), feedback(annotator_id="user1")]
    status, reply = transport(ann, feedback_req(*items))
    assert status == 403
    assert reply["code"] == "forbidden"
    assert [d["loc"] for d in reply["details"]] == [["feedbacks", 1, "annotator_id"]]
    assert stored() == before


@pytest.mark.parametrize("source", ["self", "env"])
def test_annotator_feedback_is_always_human(transport: Send, ann: Actor, source: str) -> None:
    status, reply = transport(ann, feedback_req(feedback(source=source)))
    assert (status, reply["code"]) == (403, "forbidden")


def test_reviewer_and_admin_feedback_is_human_under_their_name(
    transport: Send, rev: Actor, boss: Actor
) -> None:
    for actor in (rev, boss):
        status, reply = transport(
            actor, feedback_req({"feedback_id": f"fb-{actor.name}", "polarity": "neutral"})
        )
        assert status == 200, reply
        row = Feedback.objects.get(feedback_id=f"fb-{actor.name}")
        assert (row.annotator_id, row.source) == (actor.name, "human")


# --- all or nothing, and safe retries --------------------------------------------------------


def test_a_batch_with_one_bad_item_stores_nothing_and_names_it(
    transport: Send, agent: Actor
) -> None:
    before = stored()
    items = [
        feedback(component_name="c", rated_turn=turn()),
        feedback(component_name="c"),
        feedback(component_name="c", score=1.5),
    ]
    status, reply = transport(agent, feedback_req(*items))
    assert status == 400
    assert reply["code"] == "invalid"
    assert [d["loc"] for d in reply["details"]] == [["feedbacks", 2, "score"]]
    assert stored() == before


def test_a_retry_with_the_same_ids_stores_nothing_twice_and_still_counts(
    transport: Send, agent: Actor
) -> None:
    request = feedback_req(
        feedback(component_name="c", score=1.0, rated_turn=turn(), correlation_id="t-1"),
        feedback(component_name="c", score=-0.5, confidence=0.5),
        feedback(component_name="c", score=0.0),
    )
    status, first = transport(agent, request)
    assert status == 200, first
    after_first = stored()
    stats_first = stats_of(transport, agent, "c")
    status, second = transport(agent, request)
    assert status == 200, second
    assert first["recorded"] == second["recorded"] == 3
    assert stored() == after_first
    assert after_first["feedback"] == 3 and after_first["turn"] == 1
    assert stats_of(transport, agent, "c") == stats_first
    assert second["new_score"] == pytest.approx(first["new_score"])


def test_a_retry_without_ts_matches_the_first_send(transport: Send, agent: Actor) -> None:
    item = {"feedback_id": "fb-no-ts", "polarity": "positive", "score": 0.5}
    assert transport(agent, feedback_req(item))[0] == 200
    status, reply = transport(agent, feedback_req(item))
    assert status == 200, reply
    assert Feedback.objects.filter(feedback_id="fb-no-ts").count() == 1


def test_a_kept_feedback_resent_as_a_library_remakes_it_is_recorded_once(
    transport: Send, agent: Actor
) -> None:
    # A library that makes a model of the kept dict stamps a fresh `ts` and may spell out every
    # default (and the source the credential gives): the same content, so not a conflict.
    item = feedback(component_name="c", rated_turn=turn(), ts=1716000000.0)
    assert transport(agent, feedback_req(item))[0] == 200
    remade = {
        **item,
        "ts": 1716000099.5,
        "rated_turn": {**item["rated_turn"], "environment": None, "version": None},
        "dimension": "helpfulness",
        "confidence": 1.0,
        "comment": "",
        "correction_span": None,
        "source": "self",
        "annotator_id": "",
    }
    status, reply = transport(agent, feedback_req(remade))
    assert (status, reply.get("recorded")) == (200, 1), reply
    assert Feedback.objects.get(feedback_id=item["feedback_id"]).ts == 1716000000.0


def test_the_same_feedback_id_with_another_chosen_source_is_a_conflict(
    transport: Send, env: Actor
) -> None:
    item = feedback(component_name="c")
    assert transport(env, feedback_req(item))[0] == 200  # the credential's own: env
    status, reply = transport(env, feedback_req({**item, "source": "self"}))
    assert (status, reply["code"]) == (409, "conflict")


def test_the_same_feedback_id_with_other_content_is_a_conflict(
    transport: Send, agent: Actor
) -> None:
    item = feedback(component_name="c", score=0.5)
    transport(agent, feedback_req(item))
    before = stored()
    fresh = feedback(component_name="c")
    status, reply = transport(agent, feedback_req(fresh, {**item, "score": -0.5}))
    assert status == 409
    assert reply["code"] == "conflict"
    assert [d["loc"] for d in reply["details"]] == [["feedbacks", 1, "feedback_id"]]
    assert stored() == before
    assert not Feedback.objects.filter(feedback_id=fresh["feedback_id"]).exists()


def test_the_same_feedback_id_twice_in_one_batch_with_other_content_is_a_conflict(
    transport: Send, agent: Actor
) -> None:
    item = feedback()
    status, reply = transport(agent, feedback_req(item, {**item, "comment": "changed"}))
    assert status == 409
    assert reply["code"] == "conflict"
    assert [d["loc"] for d in reply["details"]] == [["feedbacks", 1, "feedback_id"]]
    assert stored()["feedback"] == 0


def test_the_same_feedback_twice_in_one_batch_is_stored_once(transport: Send, agent: Actor) -> None:
    item = feedback(component_name="c", score=1.0)
    status, reply = transport(agent, feedback_req(item, item))
    assert status == 200, reply
    assert Feedback.objects.filter(feedback_id=item["feedback_id"]).count() == 1
    assert stats_of(transport, agent, "c")["avg_score"] == 1.0


def test_a_rated_turn_is_kept_on_its_feedback_as_every_field_of_it(
    transport: Send, ann: Actor
) -> None:
    item = feedback(rated_turn={"response": "Hi", "model": "m-1", "prompt": "Say hi"})
    status, reply = transport(ann, feedback_req(item))
    assert status == 200, reply
    row = Feedback.objects.get(feedback_id=item["feedback_id"])
    assert row.rated_turn is not None
    # Every field, in the model's order, the ones not sent as their defaults.
    assert list(orjson.loads(row.rated_turn).items()) == [
        ("prompt", "Say hi"),
        ("response", "Hi"),
        ("model", "m-1"),
        ("environment", None),
        ("version", None),
    ]


# --- turns inside feedback --------------------------------------------------------------------


def test_a_rated_turn_inside_a_feedback_becomes_a_turn(transport: Send, ann: Actor) -> None:
    item = feedback(
        correlation_id="turn-77",
        session_id="s-9",
        rated_turn=turn(model="m-3", response="Hi!", version="v1", environment={"os": "linux"}),
    )
    status, reply = transport(ann, feedback_req(item))
    assert status == 200, reply
    queued = Turn.objects.get(correlation_id="turn-77")
    assert (queued.session_id, queued.model, queued.response, queued.version) == (
        "s-9",
        "m-3",
        "Hi!",
        "v1",
    )
    assert queued.component_name == "m-3"


def test_one_new_turn_rated_twice_in_a_batch_is_queued_once_as_first_sent(
    transport: Send, ann: Actor
) -> None:
    first = feedback(correlation_id="turn-2x", rated_turn=turn(response="First"))
    second = feedback(
        correlation_id="turn-2x", dimension="tone", rated_turn=turn(response="Second")
    )
    status, reply = transport(ann, feedback_req(first, second))
    assert status == 200, reply
    assert list(Turn.objects.filter(correlation_id="turn-2x").values_list("response")) == [
        ("First",)
    ]
    assert Feedback.objects.filter(correlation_id="turn-2x").count() == 2


def test_a_rated_turn_already_queued_keeps_what_was_queued(transport: Send, ann: Actor) -> None:
    status, reply = transport(
        ann, feedback_req(feedback(correlation_id="turn-q", rated_turn=turn(response="Queued")))
    )
    assert status == 200, reply
    again = feedback(correlation_id="turn-q", rated_turn=turn(response="Other"))
    fresh = feedback(correlation_id="turn-new", rated_turn=turn(response="New"))
    status, reply = transport(ann, feedback_req(again, fresh))
    assert status == 200, reply
    assert dict(
        Turn.objects.filter(correlation_id__startswith="turn-").values_list(
            "correlation_id", "response"
        )
    ) == {"turn-q": "Queued", "turn-new": "New"}
