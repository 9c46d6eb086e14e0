"""to_preference_pair() and to_reward_sample(), exactly as the spec (docs/learning-capability-spec.txt) derives them."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from learnportal_protocol import Feedback, FeedbackPolarity

TURN = {"prompt": "Summarize this article", "response": "The article discusses...", "model": "m"}


def feedback(**fields: Any) -> Feedback:
    return Feedback.model_validate_json(orjson.dumps(fields))


def test_a_corrective_feedback_makes_the_spec_preference_pair() -> None:
    item = feedback(
        rated_turn={**TURN, "version": "agent-v2.3.1"},
        polarity="corrective",
        score=-0.5,
        dimension="plan_quality",
        confidence=0.9,
        correction="Provide a concise 2-sentence summary",
        source="human",
    )
    assert item.to_preference_pair() == {
        "prompt": "Summarize this article",
        "chosen": "Provide a concise 2-sentence summary",
        "rejected": "The article discusses...",
        "dimension": "plan_quality",
        "model_version": "agent-v2.3.1",
        "confidence": 0.9,
    }


def test_the_model_version_of_a_pair_is_none_when_the_turn_has_no_version() -> None:
    item = feedback(rated_turn=TURN, polarity="corrective", correction="Shorter.")
    pair = item.to_preference_pair()
    assert pair is not None
    assert pair["model_version"] is None
    assert pair["dimension"] == "helpfulness"
    assert pair["confidence"] == 1.0


@pytest.mark.parametrize("polarity", ["positive", "negative", "neutral"])
def test_only_corrective_feedback_makes_a_preference_pair(polarity: str) -> None:
    item = feedback(rated_turn=TURN, polarity=polarity, correction="Shorter.")
    assert item.to_preference_pair() is None


def test_corrective_feedback_without_a_rated_turn_makes_no_preference_pair() -> None:
    assert feedback(polarity="corrective", correction="Shorter.").to_preference_pair() is None


def test_corrective_feedback_without_a_correction_makes_no_preference_pair() -> None:
    # The validator refuses this on the wire; stored rows are rebuilt without it.
    turn = feedback(rated_turn=TURN, polarity="neutral").rated_turn
    item = Feedback.model_construct(
        polarity=FeedbackPolarity.CORRECTIVE, correction="", rated_turn=turn
    )
    assert item.to_preference_pair() is None


def test_a_rated_feedback_makes_the_spec_reward_sample() -> None:
    item = feedback(
        rated_turn={**TURN, "version": "v9"},
        polarity="negative",
        score=-0.75,
        dimension="safety",
        confidence=0.4,
        source="env",
    )
    assert item.to_reward_sample() == {
        "prompt": "Summarize this article",
        "response": "The article discusses...",
        "score": -0.75,
        "dimension": "safety",
        "weight": 0.4,
        "source": "env",
    }


def test_every_polarity_with_a_rated_turn_makes_a_reward_sample() -> None:
    for polarity in ("positive", "negative", "neutral"):
        sample = feedback(rated_turn=TURN, polarity=polarity, score=0.25).to_reward_sample()
        assert sample is not None and sample["score"] == 0.25
    corrective = feedback(rated_turn=TURN, polarity="corrective", correction="x", score=-1)
    sample = corrective.to_reward_sample()
    assert sample is not None and sample["source"] == "human"


def test_a_feedback_without_a_rated_turn_makes_no_reward_sample() -> None:
    assert feedback(polarity="positive", score=1.0).to_reward_sample() is None
