"""Machine judges calibrated against people (issue 27, item 5, first part): each agent's or
environment's scores beside the people's on the turns both rated, its figures the same as
scikit-learn's, scipy's and krippendorff's on the same pairs."""

from __future__ import annotations

import random
from typing import Any

import krippendorff
import numpy as np
import pytest
from scipy.stats import spearmanr
from sklearn.metrics import cohen_kappa_score, mean_absolute_error

from feedback.judges.metrics import cohen_kappa, spearman
from tests.builders import feedback, feedback_req, turn
from tests.harness import Actor, human_actor, token_actor

pytestmark = pytest.mark.django_db

LEVELS = [-1.0, -0.5, 0.0, 0.5, 1.0]


def polarity(score: float) -> str:
    return "negative" if score < 0 else "positive" if score > 0 else "neutral"


@pytest.fixture
def judged(agent: Actor) -> dict[str, Any]:
    """40 turns each rated by a person; a careful judge agrees with them on 95% of them, a
    careless one on 60% (else a score drawn at random): what each sent and what people did."""
    pick = random.Random(5)
    keys = [f"t-{i}" for i in range(40)]
    body = {"turns": [{"correlation_id": key, "rated_turn": turn()} for key in keys]}
    assert agent.rest("post", "/api/turns/", body).status_code == 201
    person = human_actor("pia", "annotator")
    truth = {key: pick.choice(LEVELS) for key in keys}
    for key in keys:
        item = feedback(
            feedback_id=f"h-{key}", source="human", score=truth[key], correlation_id=key
        )
        assert person.learn(feedback_req(item)).status_code == 200
    sent: dict[str, dict[str, float]] = {}
    for name, agreeing in (("careful", 0.95), ("careless", 0.6)):
        judge = token_actor(name, "environment")
        sent[name] = {}
        for key in keys:
            score = truth[key] if pick.random() < agreeing else pick.choice(LEVELS)
            sent[name][key] = score
            item = feedback(
                feedback_id=f"{name}-{key}", source="env", score=score, correlation_id=key
            )
            assert judge.learn(feedback_req(item)).status_code == 200
    return {"keys": keys, "truth": truth, "sent": sent}


def test_each_judges_figures_are_the_reference_libraries_on_the_same_pairs(
    judged: dict[str, Any], rev: Actor
) -> None:
    response = rev.rest("get", "/api/judges/")
    assert response.status_code == 200
    rows = {row["judge"]: row for row in response.json()["results"]}
    assert set(rows) == {"token:careful", "token:careless"}
    keys, truth = judged["keys"], judged["truth"]
    people = [truth[key] for key in keys]
    for name in ("careful", "careless"):
        row, theirs = rows[f"token:{name}"], [judged["sent"][name][key] for key in keys]
        assert (row["question"], row["items"]) == ("helpfulness", 40)
        expected_kappa = cohen_kappa_score(
            [polarity(s) for s in theirs], [polarity(s) for s in people]
        )
        assert row["kappa"]["value"] == pytest.approx(expected_kappa)
        low, high = row["kappa"]["interval"]
        assert low <= row["kappa"]["value"] <= high
        assert row["mae"]["value"] == pytest.approx(mean_absolute_error(people, theirs))
        assert row["spearman"]["value"] == pytest.approx(spearmanr(theirs, people).statistic)
        alpha = krippendorff.alpha(
            reliability_data=np.array([theirs, people]), level_of_measurement="interval"
        )
        assert row["alpha"] == pytest.approx(alpha)
        confused = sum(sum(by_people.values()) for by_people in row["confusion"].values())
        assert confused == 40
    assert rows["token:careful"]["kappa"]["value"] > rows["token:careless"]["kappa"]["value"]


def test_people_who_read_no_agreement_read_no_judges(judged: dict[str, Any], ann: Actor) -> None:
    assert ann.rest("get", "/api/judges/").status_code == 403


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_spearman_with_ties_is_scipys(seed: int) -> None:
    pick = random.Random(seed)
    a = [pick.choice(LEVELS) for _ in range(30)]
    b = [pick.choice(LEVELS) for _ in range(30)]
    assert spearman(a, b).value == pytest.approx(spearmanr(a, b).statistic)


def test_a_kappa_with_nothing_beyond_chance_to_measure_is_none() -> None:
    assert cohen_kappa(["a", "a"], ["a", "a"]).value is None
    assert cohen_kappa(["a", "b"], ["b", "a"]).value == pytest.approx(
        cohen_kappa_score(["a", "b"], ["b", "a"])
    )
