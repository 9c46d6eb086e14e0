"""GET /api/exports/<format>.jsonl (docs/contract.md, "Exports"): each format's exact lines, a
span correction spliced, the explorer's filters, who may export, and the commands' --format."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
import pytest
from django.core.management import CommandError, call_command
from django.http import StreamingHttpResponse

from feedback.exports import FORMATS
from tests.builders import feedback, feedback_req

if TYPE_CHECKING:
    from pathlib import Path

    from tests.harness import Actor

PROMPT = "What is the capital of France?"
RESPONSE = "The capital of France is Lyon, a city on the Rhone."
TURN = {"prompt": PROMPT, "response": RESPONSE, "model": "geo-1", "version": "v7"}
LYON = (RESPONSE.index("Lyon"), RESPONSE.index("Lyon") + len("Lyon"))
SPLICED = "The capital of France is Paris, a city on the Rhone."
WHOLE = "Paris is the capital of France."


@pytest.fixture
def rated(ann: Actor, rev: Actor, agent: Actor) -> None:
    """A span correction, a whole correction, a positive, a negative, a neutral, and one
    feedback with no rated turn (which no format exports)."""
    items = [
        feedback(
            feedback_id="span",
            rated_turn=TURN,
            polarity="corrective",
            score=-0.5,
            dimension="correctness",
            confidence=0.8,
            correction="Paris",
            correction_span=list(LYON),
            ts=10.0,
        ),
        feedback(
            feedback_id="whole",
            rated_turn=TURN,
            polarity="corrective",
            score=-1.0,
            dimension="correctness",
            correction=WHOLE,
            ts=20.0,
        ),
        feedback(feedback_id="good", rated_turn=TURN, polarity="positive", score=0.5, ts=30.0),
    ]
    assert ann.learn(feedback_req(*items)).status_code == 200
    bad = feedback(
        feedback_id="bad", rated_turn=TURN, polarity="negative", score=-1.0, dimension="safety"
    )
    assert rev.learn(feedback_req(bad)).status_code == 200
    machine = [
        feedback(feedback_id="meh", rated_turn=TURN, polarity="neutral", score=0.0, source="self"),
        feedback(feedback_id="no-turn", polarity="negative", score=-0.2, source="self"),
    ]
    assert agent.learn(feedback_req(*machine)).status_code == 200


def export(actor: Actor, kind: str, **params: Any) -> list[dict[str, Any]]:
    response = actor.client.get(f"/api/exports/{kind}.jsonl", params)
    assert response.status_code == 200
    assert isinstance(response, StreamingHttpResponse)
    assert response["Content-Type"] == "application/jsonl"
    body = b"".join(response.streaming_content)
    return [orjson.loads(line) for line in body.splitlines()]


PAIR_SPLICED = {"prompt": PROMPT, "chosen": SPLICED, "rejected": RESPONSE}
PAIR_WHOLE = {"prompt": PROMPT, "chosen": WHOLE, "rejected": RESPONSE}


def test_trl_splices_a_span_correction_into_the_response(rated: None, rev: Actor) -> None:
    assert export(rev, "trl") == [PAIR_SPLICED, PAIR_WHOLE]


def test_openai_dpo_is_the_fine_tuning_shape_with_the_splice(rated: None, rev: Actor) -> None:
    def line(pair: dict[str, str]) -> dict[str, Any]:
        return {
            "input": {"messages": [{"role": "user", "content": pair["prompt"]}]},
            "preferred_output": [{"role": "assistant", "content": pair["chosen"]}],
            "non_preferred_output": [{"role": "assistant", "content": pair["rejected"]}],
        }

    assert export(rev, "openai-dpo") == [line(PAIR_SPLICED), line(PAIR_WHOLE)]


PREFERENCE = {"prompt": PROMPT, "rejected": RESPONSE, "dimension": "correctness"}


def test_preferences_carry_the_corrected_response_and_keep_the_bare_correction(
    rated: None, rev: Actor
) -> None:
    assert export(rev, "preferences") == [
        {
            **PREFERENCE,
            "chosen": SPLICED,
            "correction": "Paris",
            "model_version": "v7",
            "confidence": 0.8,
        },
        {
            **PREFERENCE,
            "chosen": WHOLE,
            "correction": WHOLE,
            "model_version": "v7",
            "confidence": 1.0,
        },
    ]


def test_spec_preferences_are_the_specs_pair_as_written(rated: None, rev: Actor) -> None:
    assert export(rev, "spec-preferences") == [
        {**PREFERENCE, "chosen": "Paris", "model_version": "v7", "confidence": 0.8},
        {**PREFERENCE, "chosen": WHOLE, "model_version": "v7", "confidence": 1.0},
    ]


def test_every_format_with_a_chosen_agrees_line_by_line(rated: None, rev: Actor) -> None:
    preferences = export(rev, "preferences")
    trl = export(rev, "trl")
    dpo = export(rev, "openai-dpo")
    assert len(preferences) == len(trl) == len(dpo) == 2
    for pair, trl_line, dpo_line in zip(preferences, trl, dpo, strict=True):
        assert trl_line == {key: pair[key] for key in ("prompt", "chosen", "rejected")}
        assert dpo_line["input"]["messages"][0]["content"] == pair["prompt"]
        assert dpo_line["preferred_output"][0]["content"] == pair["chosen"]
        assert dpo_line["non_preferred_output"][0]["content"] == pair["rejected"]
    # KTO's desirable completion of each correction is that same corrected response.
    corrected = [
        line["completion"]
        for line in export(rev, "kto")
        if line["completion"] in {p["chosen"] for p in preferences}
    ]
    assert corrected == [pair["chosen"] for pair in preferences]


def test_rewards_are_every_feedback_with_a_rated_turn(rated: None, rev: Actor) -> None:
    def sample(score: float, dimension: str, weight: float, source: str) -> dict[str, Any]:
        return {
            "prompt": PROMPT,
            "response": RESPONSE,
            "score": score,
            "dimension": dimension,
            "weight": weight,
            "source": source,
        }

    assert export(rev, "rewards") == [
        sample(-0.5, "correctness", 0.8, "human"),
        sample(-1.0, "correctness", 1.0, "human"),
        sample(0.5, "helpfulness", 1.0, "human"),
        sample(-1.0, "safety", 1.0, "human"),
        sample(0.0, "helpfulness", 1.0, "self"),
    ]


def kto(completion: str, label: bool) -> dict[str, Any]:
    return {"prompt": PROMPT, "completion": completion, "label": label}


def test_kto_has_every_rating_a_correction_as_the_response_false_and_the_corrected_true(
    rated: None, rev: Actor
) -> None:
    assert export(rev, "kto") == [
        kto(RESPONSE, False),  # the span correction: the response as rated,
        kto(SPLICED, True),  # and as corrected
        kto(RESPONSE, False),
        kto(WHOLE, True),
        kto(RESPONSE, True),  # positive
        kto(RESPONSE, False),  # negative
        # the neutral rating at score 0 prefers nothing: no line
    ]


def test_kto_labels_a_neutral_rating_by_the_sign_of_its_score(ann: Actor, rev: Actor) -> None:
    items = [
        feedback(rated_turn=TURN, polarity="neutral", score=0.25, ts=1.0),
        feedback(rated_turn=TURN, polarity="neutral", score=-0.75, ts=2.0),
        feedback(rated_turn=TURN, polarity="neutral", score=0.0, ts=3.0),
    ]
    assert ann.learn(feedback_req(*items)).status_code == 200
    assert export(rev, "kto") == [kto(RESPONSE, True), kto(RESPONSE, False)]


def test_an_export_takes_the_explorers_filters(rated: None, boss: Actor) -> None:
    assert export(boss, "trl", since="15") == [PAIR_WHOLE]
    assert export(boss, "kto", annotator="rev") == [kto(RESPONSE, False)]
    assert len(export(boss, "rewards", source="self")) == 1
    assert export(boss, "rewards", has_correction="true", dimension="correctness") == export(
        boss, "rewards", polarity="corrective"
    )
    assert export(boss, "preferences", polarity="positive") == []


def test_an_export_of_a_queued_turn_reads_the_turn(agent: Actor, ann: Actor, rev: Actor) -> None:
    queued = {"turns": [{"correlation_id": "q-1", "rated_turn": TURN}]}
    assert agent.rest("post", "/api/turns/", queued).status_code == 201
    item = feedback(
        correlation_id="q-1",
        polarity="corrective",
        correction="Paris",
        correction_span=list(LYON),
        rated_turn=TURN,
    )
    assert ann.learn(feedback_req(item)).status_code == 200
    assert export(rev, "trl") == [PAIR_SPLICED]


def test_an_unknown_format_is_not_found(rated: None, rev: Actor) -> None:
    response = rev.client.get("/api/exports/csv.jsonl")
    assert (response.status_code, response.json()["code"]) == (404, "not_found")


def test_a_bad_filter_is_invalid_naming_it(rated: None, rev: Actor) -> None:
    body = rev.client.get("/api/exports/trl.jsonl", {"since": "soon"}).json()
    assert body["code"] == "invalid" and [d["loc"] for d in body["details"]] == [["since"]]


@pytest.mark.parametrize("who", ["ann", "agent", "env"])
def test_only_reviewers_and_admins_export(
    rated: None, who: str, request: pytest.FixtureRequest
) -> None:
    actor: Actor = request.getfixturevalue(who)
    response = actor.client.get("/api/exports/trl.jsonl")
    assert (response.status_code, response.json()["code"]) == (403, "forbidden")


# --- the commands ------------------------------------------------------------------------------


def lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def test_the_export_commands_agree_with_the_http_exports(
    rated: None, rev: Actor, tmp_path: Path
) -> None:
    out = tmp_path / "out.jsonl"
    call_command("export_preferences", str(out))
    assert lines(out) == export(rev, "preferences")
    for kind in FORMATS:
        call_command("export_feedback", str(out), "--format", kind)
        assert lines(out) == export(rev, kind), kind


def test_the_commands_write_any_format_with_the_filters(
    rated: None, rev: Actor, tmp_path: Path
) -> None:
    out = tmp_path / "out.jsonl"
    call_command("export_preferences", str(out), "--format", "trl")
    assert lines(out) == export(rev, "trl")
    call_command("export_rewards", str(out), "--format", "kto", "--annotator", "rev")
    assert lines(out) == export(rev, "kto", annotator="rev")
    call_command("export_feedback", str(out), "--format", "openai-dpo", "--since", "15")
    assert lines(out) == export(rev, "openai-dpo", since="15")
    call_command("export_rewards", str(out), "--source", "self", "--has-correction", "false")
    assert lines(out) == export(rev, "rewards", source="self", has_correction="false")


def test_a_commands_bad_filter_names_the_option(rated: None, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="--polarity"):
        call_command("export_preferences", str(tmp_path / "x.jsonl"), "--polarity", "great")
    assert not (tmp_path / "x.jsonl").exists()


def test_export_feedback_needs_a_format(rated: None, tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="--format"):
        call_command("export_feedback", str(tmp_path / "x.jsonl"))
