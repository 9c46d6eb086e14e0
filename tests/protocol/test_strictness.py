"""Parsing is strict: JSON numbers only, finite, known fields, and the bounds and rules of the
spec (docs/learning-capability-spec.txt) and docs/extensions.md."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from learnportal_protocol import parse_request
from learnportal_protocol.errors import ErrorCode, LearnError

TURN = {"prompt": "Say hi", "response": "Hello there", "model": "m-1"}


def parse(data: dict[str, Any] | str | bytes, *, max_batch: int = 1000) -> Any:
    body = data if isinstance(data, str | bytes) else orjson.dumps(data)
    return parse_request(body, max_batch=max_batch)


def refusal(data: dict[str, Any] | str | bytes, **kwargs: Any) -> LearnError:
    with pytest.raises(LearnError) as caught:
        parse(data, **kwargs)
    return caught.value


def locs(error: LearnError) -> list[list[str | int]]:
    return [item["loc"] for item in error.details]


def feedback_req(**fields: Any) -> dict[str, Any]:
    return {"type": "learn/feedback/req", "feedbacks": [{"polarity": "positive", **fields}]}


def experience_req(**fields: Any) -> dict[str, Any]:
    return {"type": "learn/experience/req", "experiences": [fields]}


def with_raw(template: dict[str, Any], raw_value: str) -> str:
    """The JSON text of `template` with the placeholder replaced by raw JSON (NaN, 1e400...)."""
    return orjson.dumps(template).decode().replace('"@RAW@"', raw_value)


# --- numbers are JSON numbers ---------------------------------------------------------------

NUMBER_FIELDS = [
    (feedback_req, "score", ["feedbacks", 0, "score"]),
    (feedback_req, "confidence", ["feedbacks", 0, "confidence"]),
    (feedback_req, "ts", ["feedbacks", 0, "ts"]),
    (experience_req, "reward", ["experiences", 0, "reward"]),
    (experience_req, "step", ["experiences", 0, "step"]),
    (experience_req, "ts", ["experiences", 0, "ts"]),
]


@pytest.mark.parametrize("not_a_number", ["0.5", True, False, None, [0.5], {"v": 0.5}])
@pytest.mark.parametrize(("build", "field", "loc"), NUMBER_FIELDS)
def test_a_number_field_refuses_anything_but_a_json_number(
    build: Any, field: str, loc: list[Any], not_a_number: Any
) -> None:
    error = refusal(build(**{field: not_a_number}))
    assert error.code is ErrorCode.INVALID
    assert loc in locs(error)


@pytest.mark.parametrize("not_a_number", ["0.5", True])
def test_envelope_ts_and_action_numbers_refuse_strings_and_booleans(not_a_number: Any) -> None:
    assert refusal({"type": "learn/stats/req", "ts": not_a_number}).code is ErrorCode.INVALID
    error = refusal(experience_req(action={"duration_ms": not_a_number}))
    assert ["experiences", 0, "action", "duration_ms"] in locs(error)


def test_a_boolean_field_refuses_numbers_and_strings() -> None:
    for not_a_bool in (1, 0, "true"):
        assert ["experiences", 0, "done"] in locs(refusal(experience_req(done=not_a_bool)))
        error = refusal(experience_req(action={"success": not_a_bool}))
        assert ["experiences", 0, "action", "success"] in locs(error)


def test_a_step_refuses_a_fraction() -> None:
    assert ["experiences", 0, "step"] in locs(refusal(experience_req(step=1.5)))


def test_integral_json_numbers_are_accepted_where_floats_are_expected() -> None:
    request = parse(feedback_req(score=1, confidence=0))
    assert request.feedbacks[0].score == 1.0
    assert request.feedbacks[0].confidence == 0.0


NON_FINITE = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"]
NON_FINITE_PLACES = [
    feedback_req(score="@RAW@"),
    feedback_req(confidence="@RAW@"),
    experience_req(reward="@RAW@"),
    experience_req(ts="@RAW@"),
    experience_req(state={"deep": {"x": ["@RAW@"]}}),
    experience_req(next_state={"x": "@RAW@"}),
    experience_req(action={"input": {"x": "@RAW@"}}),
    experience_req(action={"runtime_key": "@RAW@"}),
    experience_req(action={"duration_ms": "@RAW@"}),
    feedback_req(rated_turn={**TURN, "environment": {"x": "@RAW@"}}),
    {"type": "learn/stats/req", "ts": "@RAW@"},
]


@pytest.mark.parametrize("raw_value", NON_FINITE)
@pytest.mark.parametrize("template", NON_FINITE_PLACES)
def test_non_finite_and_overflowing_numbers_are_invalid_anywhere(
    template: dict[str, Any], raw_value: str
) -> None:
    assert refusal(with_raw(template, raw_value)).code is ErrorCode.INVALID


# --- unknown fields -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "loc"),
    [
        ({"type": "learn/stats/req", "colour": "red"}, ["colour"]),
        ({"type": "learn/feedback/req", "feedbacks": [], "extra": 1}, ["extra"]),
        (feedback_req(rating=5), ["feedbacks", 0, "rating"]),
        (feedback_req(rated_turn={**TURN, "tokens": 3}), ["feedbacks", 0, "rated_turn", "tokens"]),
        (experience_req(observation={}), ["experiences", 0, "observation"]),
        ({"type": "learn/refinement/history/req", "since": 0}, ["since"]),
        ({"type": "learn/adapt/req", "strategy": "ppo", "lr": 0.1}, ["lr"]),
        (experience_req(action={"runtime": "b-7"}), ["experiences", 0, "action", "runtime"]),
    ],
)
def test_unknown_fields_in_the_spec_models_are_invalid(
    data: dict[str, Any], loc: list[Any]
) -> None:
    error = refusal(data)
    assert error.code is ErrorCode.INVALID
    assert loc in locs(error)


def test_free_json_fields_keep_whatever_keys_they_carry() -> None:
    request = parse(
        {
            "type": "learn/experience/req",
            "experiences": [
                {
                    "state": {"page": "home", "nested": {"any": [1, "two", None]}},
                    "action": {
                        "component_name": "click",
                        "input": {"selector": "#btn", "runtime": "browser-7", "retries": 2},
                    },
                    "next_state": {"page": "result", "flags": [True]},
                }
            ],
        }
    )
    item = request.experiences[0]
    assert item.state == {"page": "home", "nested": {"any": [1, "two", None]}}
    assert item.next_state == {"page": "result", "flags": [True]}
    assert item.action.input == {"selector": "#btn", "runtime": "browser-7", "retries": 2}


def test_a_rated_turn_environment_is_free_json() -> None:
    environment = {"repo": "x", "tests": {"passed": 3, "failed": [1, 2]}, "extra": None}
    request = parse(feedback_req(rated_turn={**TURN, "environment": environment}))
    assert request.feedbacks[0].rated_turn.environment == environment


# --- bounds and rules -----------------------------------------------------------------------


@pytest.mark.parametrize("score", [-1.0, -0.3, 0.0, 1.0])
def test_a_score_within_minus_one_and_one_is_accepted(score: float) -> None:
    assert parse(feedback_req(score=score)).feedbacks[0].score == score


@pytest.mark.parametrize("score", [-1.0001, 1.0001, 2, -5])
def test_a_score_outside_minus_one_and_one_is_invalid(score: float) -> None:
    assert locs(refusal(feedback_req(score=score))) == [["feedbacks", 0, "score"]]


@pytest.mark.parametrize("confidence", [0.0, 0.5, 1.0])
def test_a_confidence_within_zero_and_one_is_accepted(confidence: float) -> None:
    assert parse(feedback_req(confidence=confidence)).feedbacks[0].confidence == confidence


@pytest.mark.parametrize("confidence", [-0.01, 1.01])
def test_a_confidence_outside_zero_and_one_is_invalid(confidence: float) -> None:
    assert locs(refusal(feedback_req(confidence=confidence))) == [["feedbacks", 0, "confidence"]]


@pytest.mark.parametrize("field", ["polarity", "dimension", "source"])
def test_an_enum_field_refuses_values_outside_the_spec(field: str) -> None:
    assert ["feedbacks", 0, field] in locs(refusal(feedback_req(**{field: "excellent"})))


def test_a_feedback_needs_a_polarity() -> None:
    data = {"type": "learn/feedback/req", "feedbacks": [{"score": 0.5}]}
    assert ["feedbacks", 0, "polarity"] in locs(refusal(data))


@pytest.mark.parametrize("correction", [None, ""])
def test_corrective_feedback_without_a_correction_is_invalid(correction: str | None) -> None:
    fields = {"polarity": "corrective"}
    if correction is not None:
        fields["correction"] = correction
    error = refusal({"type": "learn/feedback/req", "feedbacks": [fields]})
    assert error.code is ErrorCode.INVALID
    assert locs(error) == [["feedbacks", 0, "correction"]]


def test_corrective_feedback_with_a_correction_is_accepted() -> None:
    request = parse(feedback_req(polarity="corrective", correction="Say hello"))
    assert request.feedbacks[0].correction == "Say hello"


def test_a_correction_span_within_the_response_is_accepted() -> None:
    end = len(TURN["response"])
    request = parse(feedback_req(rated_turn=TURN, correction_span=[0, end]))
    assert request.feedbacks[0].correction_span == (0, end)


@pytest.mark.parametrize(
    "span",
    [[0, len(TURN["response"]) + 1], [50, 60], [5, 2], [-1, 3], [0, 1, 2], [1]],
    ids=["past-the-end", "outside", "reversed", "negative", "three-ints", "one-int"],
)
def test_a_correction_span_outside_the_response_or_reversed_is_invalid(span: list[int]) -> None:
    error = refusal(feedback_req(rated_turn=TURN, correction_span=span))
    assert error.code is ErrorCode.INVALID
    assert [loc[:3] for loc in locs(error)] == [["feedbacks", 0, "correction_span"]]


@pytest.mark.parametrize("span", [[0.0, 1], [0, 1.5], [True, 1], ["0", 1], {"0": 0, "1": 1}, "0,1"])
def test_a_correction_span_is_an_array_of_two_integers(span: Any) -> None:
    error = refusal(feedback_req(rated_turn=TURN, correction_span=span))
    assert [loc[:3] for loc in locs(error)] == [["feedbacks", 0, "correction_span"]]


@pytest.mark.parametrize("value", [1, True, None, ["positive"], {"value": "positive"}])
@pytest.mark.parametrize("field", ["polarity", "dimension", "source"])
def test_an_enum_field_refuses_anything_but_one_of_its_strings(field: str, value: Any) -> None:
    assert ["feedbacks", 0, field] in locs(refusal(feedback_req(**{field: value})))


@pytest.mark.parametrize(
    ("data", "loc", "message"),
    [
        ({"type": "learn/feedback/req", "feedbacks": {"0": {}}}, ["feedbacks"], "a valid array"),
        ({"type": "learn/feedback/req", "feedbacks": [1]}, ["feedbacks", 0], "an object"),
        (feedback_req(rated_turn=[]), ["feedbacks", 0, "rated_turn"], "an object"),
        (
            feedback_req(rated_turn=TURN, correction_span=5),
            ["feedbacks", 0, "correction_span"],
            "a valid array",
        ),
        (experience_req(state=[1]), ["experiences", 0, "state"], "an object"),
        ({"type": "learn/refinement/apply/req", "proposal": []}, ["proposal"], "an object"),
    ],
)
def test_a_refusal_names_the_json_type_that_was_expected(
    data: dict[str, Any], loc: list[Any], message: str
) -> None:
    error = refusal(data)
    assert [d["msg"] for d in error.details if d["loc"] == loc] == [f"Input should be {message}"]


def test_an_integer_too_wide_for_a_float_is_refused_as_not_finite() -> None:
    error = refusal(with_raw(feedback_req(score="@RAW@"), "1" + "0" * 400))
    assert error.details == [
        {"loc": ["feedbacks", 0, "score"], "msg": "Input should be a finite number"}
    ]


def test_a_correction_span_without_a_rated_turn_is_invalid() -> None:
    error = refusal(feedback_req(correction_span=[0, 1]))
    assert locs(error) == [["feedbacks", 0, "correction_span"]]


def test_a_rated_turn_needs_prompt_response_and_model() -> None:
    error = refusal(feedback_req(rated_turn={"prompt": "p"}))
    assert ["feedbacks", 0, "rated_turn", "response"] in locs(error)
    assert ["feedbacks", 0, "rated_turn", "model"] in locs(error)


def test_every_bad_item_of_a_batch_is_named() -> None:
    data = {
        "type": "learn/feedback/req",
        "feedbacks": [
            {"polarity": "positive"},
            {"polarity": "positive", "score": 3},
            {"polarity": "positive"},
            {"polarity": "corrective"},
        ],
    }
    error = refusal(data)
    assert locs(error) == [["feedbacks", 1, "score"], ["feedbacks", 3, "correction"]]
    assert "2 fields are invalid" in error.message


# --- envelopes ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body", [b"", b"{", b"not json", b"\xff\xfe", b'{"type": "learn/stats/req",}']
)
def test_a_body_that_is_not_json_is_invalid(body: bytes) -> None:
    assert refusal(body).code is ErrorCode.INVALID


@pytest.mark.parametrize("body", [b"[]", b'"learn/stats/req"', b"42", b"null"])
def test_a_body_that_is_not_an_object_is_invalid(body: bytes) -> None:
    assert refusal(body).code is ErrorCode.INVALID


def test_a_request_without_a_type_is_invalid() -> None:
    error = refusal({"id": "x"})
    assert error.code is ErrorCode.INVALID
    assert locs(error) == [["type"]]


@pytest.mark.parametrize(
    "message_type", ["learn/bogus/req", "learn/feedback/resp", "learn/error", "env/step/req", 7, ""]
)
def test_a_type_that_is_not_a_learn_request_is_unknown(message_type: Any) -> None:
    error = refusal({"type": message_type, "id": "x"})
    assert error.code is ErrorCode.UNKNOWN_TYPE
    assert locs(error) == [["type"]]


@pytest.mark.parametrize("version", ["2.0", "1", 1.0, ""])
def test_a_version_other_than_1_0_is_invalid(version: Any) -> None:
    error = refusal({"type": "learn/stats/req", "version": version})
    assert locs(error) == [["version"]]


@pytest.mark.parametrize("request_id", ["", 7, None])
def test_a_request_id_must_be_a_non_empty_string(request_id: Any) -> None:
    assert locs(refusal({"type": "learn/stats/req", "id": request_id})) == [["id"]]


@pytest.mark.parametrize("field", ["feedbacks", "experiences"])
def test_more_items_than_the_batch_limit_is_too_large(field: str) -> None:
    message_type = "learn/feedback/req" if field == "feedbacks" else "learn/experience/req"
    item = {"polarity": "positive"} if field == "feedbacks" else {}
    assert parse({"type": message_type, field: [item] * 3}, max_batch=3)
    error = refusal({"type": message_type, field: [item] * 4}, max_batch=3)
    assert error.code is ErrorCode.TOO_LARGE
    assert locs(error) == [[field]]


# --- adapt and refinement requests: parsed strictly, behaviour not tested here ---------------


@pytest.mark.parametrize(
    ("data", "loc"),
    [
        ({"type": "learn/adapt/req", "strategy": 5}, ["strategy"]),
        ({"type": "learn/adapt/req", "component_name": None}, ["component_name"]),
        ({"type": "learn/refinement/plan/req", "scope": ["local"]}, ["scope"]),
        ({"type": "learn/refinement/review/req"}, ["proposal"]),
        ({"type": "learn/refinement/apply/req", "proposal": "router_weight"}, ["proposal"]),
        ({"type": "learn/refinement/rollback/req"}, ["refinement_id"]),
        ({"type": "learn/refinement/rollback/req", "refinement_id": ""}, ["refinement_id"]),
    ],
)
def test_invalid_adapt_and_refinement_requests_are_invalid(
    data: dict[str, Any], loc: list[Any]
) -> None:
    error = refusal(data)
    assert error.code is ErrorCode.INVALID
    assert loc in locs(error)


def test_a_proposal_is_free_json() -> None:
    proposal = {
        "target": "skill_file",
        "op": "create",
        "path": "learnings/_global/SKILL.md",
        "old_value": None,
        "new_value": "# Skill\n",
        "proposal_id": "p-1",
    }
    request = parse({"type": "learn/refinement/apply/req", "proposal": proposal})
    assert request.proposal == proposal
