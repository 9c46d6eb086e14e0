"""Agreement: Krippendorff's alpha (interval) per dimension, from the pure module to the REST answer.

The module is checked against the published worked example (Krippendorff 2011, "Computing
Krippendorff's Alpha-Reliability", section C: 4 observers, 12 units, missing values; interval
alpha 0.849) and against the `krippendorff` package on random data with missing values.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import krippendorff
import numpy as np
import pytest
from django.core.cache import cache
from hypothesis import given, settings
from hypothesis import strategies as st

from core.projects.models import DEFAULT_PROJECT
from feedback.agreement import (
    alpha_interval,
    alpha_interval_from_moments,
    alpha_interval_matrix,
    spread_by_unit,
    unit_moments,
)
from feedback.models import Feedback
from learnportal_protocol import FeedbackDimension
from tests.builders import feedback, feedback_req, turn
from tests.harness import human_actor

if TYPE_CHECKING:
    from tests.harness import Actor

ROOT = Path(__file__).resolve().parents[2]
NAN = np.nan
# The paper's reliability data: observers A-D (rows) x units 1-12 (columns), "." as NaN.
PAPER = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]


@pytest.fixture(autouse=True)
def _several_raters_a_turn(settings: Any) -> None:
    # Several people rate each turn here: a turn takes as many as it needs, no more
    # (feedback.raters), so it needs them.
    settings.LEARNPORTAL_RATINGS_PER_TURN = 8


def package_alpha(matrix: Any) -> float:
    return float(krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval"))


# --- the pure module -------------------------------------------------------------------------


def test_the_papers_interval_example_gives_0_849() -> None:
    result = alpha_interval_matrix(PAPER)
    assert round(result.alpha or 0, 3) == 0.849
    # Unit 12 has one value only: it is not pairable, so 11 units and their 40 values count.
    assert (result.units, result.values) == (11, 40)
    assert result.alpha == pytest.approx(package_alpha(PAPER), abs=1e-12)


def test_pairs_in_any_order_with_any_labels_give_the_same_alpha() -> None:
    matrix = np.asarray(PAPER)
    coder, unit = np.nonzero(~np.isnan(matrix))
    values = matrix[coder, unit]
    order = np.random.default_rng(3).permutation(len(values))
    labels = np.asarray([f"turn-{u}" for u in unit])[order]
    assert alpha_interval(labels, values[order]).alpha == pytest.approx(0.8491071428571428)


def test_alpha_from_a_group_bys_moments_equals_alpha_from_the_values() -> None:
    matrix = np.asarray(PAPER)
    _, unit = np.nonzero(~np.isnan(matrix))
    count, total, squares = unit_moments(unit, matrix[~np.isnan(matrix)])
    assert count.tolist() == [3, 4, 4, 4, 4, 4, 4, 4, 4, 3, 2, 1]
    assert alpha_interval_from_moments(count, total, squares) == alpha_interval_matrix(PAPER)


@settings(max_examples=60, deadline=None)
@given(
    coders=st.integers(2, 6),
    units=st.integers(2, 40),
    missing=st.floats(0.0, 0.6),
    levels=st.integers(2, 9),
    seed=st.integers(0, 2**32 - 1),
)
def test_it_agrees_with_the_krippendorff_package_on_random_data(
    coders: int, units: int, missing: float, levels: int, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    # Scores as annotators give them: a unit's true value plus each coder's noise, on a grid.
    truth = rng.uniform(-1, 1, size=units)
    noisy = truth + rng.normal(0, rng.uniform(0.05, 1.0), size=(coders, units))
    matrix = np.round(np.clip(noisy, -1, 1) * (levels - 1)) / (levels - 1)
    matrix[rng.random(matrix.shape) < missing] = NAN
    ours = alpha_interval_matrix(matrix)
    pairable = (~np.isnan(matrix)).sum(axis=0) >= 2
    values = matrix[:, pairable]
    if pairable.sum() < 2 or np.nanmax(values) == np.nanmin(values):
        assert ours.alpha is None  # the package refuses these: alpha is undefined
        return
    assert ours.alpha == pytest.approx(package_alpha(matrix), rel=1e-9, abs=1e-9)
    assert ours.units == int(pairable.sum())


def test_it_agrees_with_the_package_at_ten_thousand_units() -> None:
    rng = np.random.default_rng(9)
    truth = rng.uniform(-1, 1, size=10_000)
    # On a grid of 21 scores: the package's memory grows with units x distinct values squared.
    matrix = np.round(np.clip(truth + rng.normal(0, 0.4, size=(5, 10_000)), -1, 1), 1)
    matrix[rng.random(matrix.shape) < 0.5] = NAN
    assert alpha_interval_matrix(matrix).alpha == pytest.approx(package_alpha(matrix), rel=1e-9)


def test_perfect_agreement_is_one_and_systematic_disagreement_is_below_zero() -> None:
    assert alpha_interval_matrix([[0.1, 0.5, -0.3], [0.1, 0.5, -0.3]]).alpha == pytest.approx(1.0)
    # Each unit's two coders always sit at opposite ends: worse than chance.
    opposite = alpha_interval_matrix([[1, -1, 1, -1], [-1, 1, -1, 1]]).alpha
    assert opposite is not None and opposite < 0


def test_alpha_is_undefined_with_fewer_than_two_pairable_units_or_no_variation() -> None:
    assert alpha_interval_matrix([[0.2, NAN], [0.9, 0.4]]).alpha is None  # one pairable unit
    assert alpha_interval([], []).alpha is None
    assert alpha_interval_matrix([[0.5, 0.5], [0.5, 0.5]]).alpha is None  # D_e = 0


def test_a_missing_value_must_be_left_out_not_given_as_nan() -> None:
    with pytest.raises(ValueError, match="finite"):
        alpha_interval([0, 0, 1], [0.5, NAN, 0.1])
    with pytest.raises(ValueError, match="same length"):
        alpha_interval([0, 1], [0.5])


def test_the_spread_of_each_unit_is_its_range_and_variance() -> None:
    codes, count, spread, variance = spread_by_unit([0, 0, 2, 2, 2, 5], [-1, 1, 0.2, 0.4, 0.9, 1])
    assert codes.tolist() == [0, 2]  # unit 5 has one value: no spread
    assert count.tolist() == [2, 3]
    assert spread.tolist() == pytest.approx([2.0, 0.7])
    assert variance.tolist() == pytest.approx([1.0, np.var([0.2, 0.4, 0.9])])


PURE = """
import sys
import feedback.agreement
leaked = sorted(n for n in sys.modules if n == "django" or n.startswith(("django.", "rest_framework")))
assert not leaked, leaked
print("pure")
"""


def test_the_agreement_module_imports_nothing_from_django() -> None:
    result = subprocess.run(
        [sys.executable, "-c", PURE],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "pure"


# --- GET /api/agreement/ -----------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _no_cached_agreement() -> None:
    # Test databases reuse ids once a test's transaction is rolled back: a key of an earlier
    # test could name other rows. A real database never reuses them.
    cache.clear()


def rate(actor: Actor, correlation_id: str, score: float, **fields: Any) -> None:
    """One human rating of a turn, through learn/feedback/req as the annotator's token sends it."""
    item = feedback(correlation_id=correlation_id, rated_turn=turn(), score=score, **fields)
    reply = actor.learn(feedback_req(item))
    assert reply.status_code == 200, reply.content


@pytest.fixture
def raters(db: None) -> list[Actor]:
    return [human_actor(f"rater{i}", "annotator") for i in range(3)]


def by_dimension(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["dimension"]: row for row in answer["dimensions"]}


def test_it_answers_alpha_per_dimension_over_human_scores(
    raters: list[Actor], rev: Actor, env: Actor
) -> None:
    # The paper's data as scores: observer i is rater i (three of the four), unit j turn j.
    matrix = np.asarray(PAPER[:3]) / 5
    for i, j in zip(*np.nonzero(~np.isnan(matrix)), strict=True):
        rate(raters[i], f"t-{j}", float(matrix[i, j]), dimension="correctness")
    rate(raters[0], "t-0", 0.9, dimension="safety")
    rate(raters[1], "t-0", 0.9, dimension="safety")
    # Machine feedback on the same turns is no annotator's opinion: it does not count.
    machine = [
        feedback(correlation_id=f"t-{j}", score=-1.0, source="env", dimension="correctness")
        for j in range(12)
    ]
    assert env.learn(feedback_req(*machine)).status_code == 200
    response = rev.client.get("/api/agreement/")
    assert response.status_code == 200
    rows = by_dimension(response.json())
    assert list(rows) == [d.value for d in FeedbackDimension]
    assert rows["correctness"] == {
        "dimension": "correctness",
        "alpha": pytest.approx(package_alpha(matrix)),
        "turns": 10,  # units 11 and 12 have one value among these three observers
        "ratings": 28,
    }
    # One turn rated twice on safety: too little to say anything.
    assert rows["safety"] == {"dimension": "safety", "alpha": None, "turns": 1, "ratings": 2}
    assert rows["tone"] == {"dimension": "tone", "alpha": None, "turns": 0, "ratings": 0}


def test_a_persons_later_score_of_a_turn_replaces_their_earlier_one(
    raters: list[Actor], boss: Actor
) -> None:
    a, b, _ = raters
    for j, (x, y) in enumerate([(0.1, 0.2), (0.8, 0.9), (-0.5, -0.4)]):
        rate(a, f"u-{j}", -1.0 if j == 0 else x)  # a first disagrees on u-0, then changes mind
        rate(b, f"u-{j}", y)
    rate(a, "u-0", 0.1)
    row = by_dimension(boss.client.get("/api/agreement/").json())["helpfulness"]
    expected = package_alpha([[0.1, 0.8, -0.5], [0.2, 0.9, -0.4]])
    assert row == {
        "dimension": "helpfulness",
        "alpha": pytest.approx(expected),
        "turns": 3,
        "ratings": 6,
    }
    assert Feedback.objects.filter(correlation_id="u-0", annotator_id=a.name).count() == 2


def test_feedback_without_a_turn_is_left_out(raters: list[Actor], rev: Actor) -> None:
    a, b, _ = raters
    for actor, score in ((a, 0.9), (b, -0.9)):
        actor.learn(feedback_req(feedback(score=score)))  # no correlation_id: about no turn
    row = by_dimension(rev.client.get("/api/agreement/").json())["helpfulness"]
    assert (row["turns"], row["ratings"]) == (0, 0)


@pytest.mark.parametrize("who", ["ann", "agent", "env"])
def test_annotators_and_machines_may_not_read_agreement(
    who: str, request: pytest.FixtureRequest
) -> None:
    actor: Actor = request.getfixturevalue(who)
    response = actor.client.get("/api/agreement/")
    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"


def test_without_credentials_it_is_unauthenticated(anonymous: Actor) -> None:
    response = anonymous.client.get("/api/agreement/")
    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"


def test_a_reviewers_session_reads_it_too(reviewer: Any) -> None:
    response = reviewer.get("/api/agreement/")
    assert response.status_code == 200
    assert len(response.json()["dimensions"]) == len(FeedbackDimension)


def test_the_human_scores_are_read_in_one_query(
    raters: list[Actor], django_assert_num_queries: Any
) -> None:
    from feedback.selectors.agreement import human_scores

    for actor, score in zip(raters, (0.1, 0.5, 0.9), strict=True):
        rate(actor, "q-1", score)
        rate(actor, "q-2", -score)
    with django_assert_num_queries(1):
        scores = human_scores(DEFAULT_PROJECT)
    assert sorted(scores.score) == [-0.9, -0.5, -0.1, 0.1, 0.5, 0.9]
    assert set(scores.annotator_id) == {"rater0", "rater1", "rater2"}


def test_a_new_rating_is_in_the_next_answer_at_once(raters: list[Actor], rev: Actor) -> None:
    a, b, c = raters
    for j, (x, y) in enumerate([(0.1, 0.2), (0.8, 0.9)]):
        rate(a, f"v-{j}", x)
        rate(b, f"v-{j}", y)
    before = by_dimension(rev.client.get("/api/agreement/").json())["helpfulness"]
    assert rev.client.get("/api/agreement/").json()["dimensions"][1] == before  # read again
    rate(c, "v-1", -0.9)
    after = by_dimension(rev.client.get("/api/agreement/").json())["helpfulness"]
    assert (before["ratings"], after["ratings"]) == (4, 5)
    expected = package_alpha([[0.1, 0.8], [0.2, 0.9], [NAN, -0.9]])
    assert after["alpha"] == pytest.approx(expected)
