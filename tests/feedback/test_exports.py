"""export_preferences and export_rewards write the derivation shapes of the spec (docs/learning-capability-spec.txt) as JSON
lines."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
import pytest
from django.core.management import call_command

if TYPE_CHECKING:
    from pathlib import Path

    from tests.harness import Actor

TURN = {"prompt": "Summarize this article", "response": "The article discusses...", "model": "m-1"}

# The spec's to_preference_pair() keys, and the bare correction beside the corrected `chosen`.
PAIR_KEYS = {
    "prompt",
    "chosen",
    "rejected",
    "dimension",
    "model_version",
    "confidence",
    "correction",
}
SAMPLE_KEYS = {"prompt", "response", "score", "dimension", "weight", "source"}


@pytest.fixture
def rated(ann: Actor, agent: Actor) -> None:
    """Corrective, positive and unrated feedback, and one on a queued turn."""
    queued = {"turns": [{"correlation_id": "queued-1", "rated_turn": {**TURN, "version": "q-2"}}]}
    response = agent.client.post(
        "/api/turns/", data=orjson.dumps(queued), content_type="application/json"
    )
    assert response.status_code == 201
    feedbacks = [
        {
            "feedback_id": "fb-corrective",
            "rated_turn": {**TURN, "version": "v-1"},
            "polarity": "corrective",
            "score": -0.5,
            "dimension": "helpfulness",
            "confidence": 0.9,
            "correction": "Provide a concise 2-sentence summary",
        },
        {
            "feedback_id": "fb-positive",
            "rated_turn": TURN,
            "polarity": "positive",
            "score": 0.75,
            "dimension": "tone",
            "confidence": 0.5,
        },
        {"feedback_id": "fb-unrated", "polarity": "negative", "score": -1.0},
        {
            "feedback_id": "fb-queued",
            "correlation_id": "queued-1",
            "polarity": "corrective",
            "score": -0.25,
            "dimension": "correctness",
            "correction": "Name the article",
        },
    ]
    response = ann.learn({"type": "learn/feedback/req", "feedbacks": feedbacks})
    assert response.status_code == 200, response.json()
    env_feedback = {"polarity": "neutral", "rated_turn": TURN, "score": 0.0, "source": "self"}
    assert (
        agent.learn({"type": "learn/feedback/req", "feedbacks": [env_feedback]}).status_code == 200
    )


EXPECTED_PAIRS = [
    {
        "prompt": "Summarize this article",
        "chosen": "Provide a concise 2-sentence summary",
        "correction": "Provide a concise 2-sentence summary",
        "rejected": "The article discusses...",
        "dimension": "helpfulness",
        "model_version": "v-1",
        "confidence": 0.9,
    },
    {
        "prompt": "Summarize this article",
        "chosen": "Name the article",
        "correction": "Name the article",
        "rejected": "The article discusses...",
        "dimension": "correctness",
        "model_version": "q-2",
        "confidence": 1.0,
    },
]

EXPECTED_SAMPLES = [
    {
        "prompt": "Summarize this article",
        "response": "The article discusses...",
        "score": -0.5,
        "dimension": "helpfulness",
        "weight": 0.9,
        "source": "human",
    },
    {
        "prompt": "Summarize this article",
        "response": "The article discusses...",
        "score": 0.75,
        "dimension": "tone",
        "weight": 0.5,
        "source": "human",
    },
    {
        "prompt": "Summarize this article",
        "response": "The article discusses...",
        "score": -0.25,
        "dimension": "correctness",
        "weight": 1.0,
        "source": "human",
    },
    {
        "prompt": "Summarize this article",
        "response": "The article discusses...",
        "score": 0.0,
        "dimension": "helpfulness",
        "weight": 1.0,
        "source": "self",
    },
]


def read_jsonl(data: bytes) -> list[dict[str, Any]]:
    assert data.endswith(b"\n")
    return [orjson.loads(line) for line in data.splitlines()]


def test_export_preferences_writes_preference_pairs_in_the_specs_keys(
    rated: None, tmp_path: Path
) -> None:
    out = tmp_path / "pairs.jsonl"
    call_command("export_preferences", str(out))
    records = read_jsonl(out.read_bytes())
    assert all(set(record) == PAIR_KEYS for record in records)
    assert records == EXPECTED_PAIRS


def test_export_rewards_writes_the_spec_reward_samples(rated: None, tmp_path: Path) -> None:
    out = tmp_path / "rewards.jsonl"
    call_command("export_rewards", str(out))
    records = read_jsonl(out.read_bytes())
    assert all(set(record) == SAMPLE_KEYS for record in records)
    assert records == EXPECTED_SAMPLES


def test_export_preferences_to_stdout(
    rated: None, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    call_command("export_preferences", "-")
    assert read_jsonl(capsysbinary.readouterr().out) == EXPECTED_PAIRS


def test_export_rewards_to_stdout(rated: None, capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    call_command("export_rewards", "-")
    assert read_jsonl(capsysbinary.readouterr().out) == EXPECTED_SAMPLES


def test_exports_of_nothing_write_empty_files(db: None, tmp_path: Path) -> None:
    for command in ("export_preferences", "export_rewards"):
        out = tmp_path / f"{command}.jsonl"
        call_command(command, str(out))
        assert out.read_bytes() == b""
