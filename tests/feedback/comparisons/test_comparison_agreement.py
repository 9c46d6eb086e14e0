"""Agreement of the judges of comparisons (`GET /api/agreement/`, `comparisons`): ordinal alpha
on the preference of two read in the order sent, nominal alpha on the winner, as the
`krippendorff` package computes them on the same judgments."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import krippendorff
import numpy as np
import pytest

from core.accounts.roles import Role
from feedback.comparisons.judgments import JudgmentRequest, judgment_record
from feedback.comparisons.queue import candidates_shown
from tests.factories import PrincipalFactory
from tests.harness import human_actor

if TYPE_CHECKING:
    from tests.harness import Actor

pytestmark = pytest.mark.django_db

JUDGES = ["j-0", "j-1", "j-2"]
# What each judge thinks of the second candidate sent against the first, comparison by comparison
# (None: not judged): -2 the first much better ... 2 the second much better.
SAID: list[list[int | None]] = [
    [-2, -1, -2],
    [1, 2, 2],
    [0, 0, 1],
    [-1, 1, None],
    [2, 2, 1],
    [-1, -1, -2],
]


def agreement(rev: Actor) -> dict[str, Any]:
    response = rev.rest("get", "/api/agreement/")
    assert response.status_code == 200, response.content
    return {row["key"]: row for row in response.json()["comparisons"]}


@pytest.fixture
def judged(agent: Actor, settings: Any) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = len(JUDGES)
    body = {
        "comparisons": [
            {
                "prompt": f"q{n}",
                "candidates": [
                    {"response": "first", "component_name": "a"},
                    {"response": "second", "component_name": "b"},
                ],
            }
            for n in range(len(SAID))
        ]
    }
    ids = [c["id"] for c in agent.rest("post", "/api/comparisons/", body).json()["comparisons"]]
    for comparison, row in zip(ids, SAID, strict=True):
        for who, second_over_first in zip(JUDGES, row, strict=True):
            if second_over_first is None:
                continue
            shown = [response for _, response in candidates_shown(comparison, who)]
            preference = second_over_first if shown[0] == "first" else -second_over_first
            person = PrincipalFactory.build(role=Role.ANNOTATOR, name=who)
            judgment_record(
                principal=person,
                comparison=comparison,
                judgment=JudgmentRequest(preference=preference),
            )


def _matrix(value: Any) -> np.ndarray[Any, Any]:
    return np.array(
        [[np.nan if row[j] is None else value(row[j]) for row in SAID] for j in range(len(JUDGES))]
    )


def test_the_preference_agreement_is_krippendorffs_ordinal_alpha_in_the_order_sent(
    judged: None, rev: Actor
) -> None:
    expected = krippendorff.alpha(
        reliability_data=_matrix(float),
        level_of_measurement="ordinal",
        value_domain=[-2.0, -1.0, 0.0, 1.0, 2.0],
    )
    row = agreement(rev)["preference"]
    assert row["level"] == "ordinal"
    assert row["alpha"] == pytest.approx(expected, abs=1e-9)
    assert (row["units"], row["ratings"]) == (6, 17)


def test_the_winner_agreement_is_krippendorffs_nominal_alpha(judged: None, rev: Actor) -> None:
    def winner(said: int) -> float:
        return 0.0 if said < 0 else (1.0 if said > 0 else 2.0)  # first, second, a tie

    expected = krippendorff.alpha(reliability_data=_matrix(winner), level_of_measurement="nominal")
    row = agreement(rev)["winner"]
    assert row["level"] == "nominal"
    assert row["alpha"] == pytest.approx(expected, abs=1e-9)


def test_with_no_judgments_the_comparisons_agreement_is_undefined(rev: Actor) -> None:
    rows = agreement(rev)
    assert {key: (row["alpha"], row["units"]) for key, row in rows.items()} == {
        "preference": (None, 0),
        "winner": (None, 0),
    }


# Each judge's answer to "Factual?" of each candidate sent, comparison by comparison: (first,
# second); None where the judge did not judge it.
FACTUAL_SAID: list[list[tuple[bool, bool] | None]] = [
    [(True, False), (True, False), (True, True)],
    [(False, True), (False, True), (False, True)],
    [(True, True), (True, False), (True, True)],
    [(False, False), (True, False), None],
    [(True, True), (True, True), (False, True)],
    [(True, False), (True, False), (True, False)],
]


def test_a_question_of_candidates_agrees_by_krippendorffs_alpha_a_candidate_a_unit(
    agent: Actor, rev: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = len(JUDGES)
    lead = human_actor("lead", "manager")
    questions = [
        {"key": "overall", "kind": "numeric", "label": "Overall", "min": 1, "max": 5},
        {"key": "factual", "kind": "boolean", "label": "Factual?", "candidates": True},
    ]
    assert (
        lead.rest("put", "/api/projects/default/rubric/", {"questions": questions}).status_code
        == 200
    )
    pairs = [
        {"prompt": f"q{n}", "candidates": [{"response": f"{n}-first", "component_name": "a"},
                                           {"response": f"{n}-second", "component_name": "b"}]}
        for n in range(len(FACTUAL_SAID))
    ]  # fmt: skip
    ids = [
        c["id"]
        for c in agent.rest("post", "/api/comparisons/", {"comparisons": pairs}).json()[
            "comparisons"
        ]
    ]
    for n, (comparison, row) in enumerate(zip(ids, FACTUAL_SAID, strict=True)):
        for who, said in zip(JUDGES, row, strict=True):
            if said is None:
                continue
            by_response = {f"{n}-first": said[0], f"{n}-second": said[1]}
            answers = {
                cid: {"factual": by_response[text]}
                for cid, text in candidates_shown(comparison, who)
            }
            person = PrincipalFactory.build(role=Role.ANNOTATOR, name=who)
            judgment_record(
                principal=person,
                comparison=comparison,
                judgment=JudgmentRequest(preference=0, answers=answers),
            )
    # A unit a candidate: the first candidates, then the second ones.
    units = [(n, side) for side in (0, 1) for n in range(len(FACTUAL_SAID))]

    def value(n: int, judge: int, side: int) -> float:
        said = FACTUAL_SAID[n][judge]
        return np.nan if said is None else float(said[side])

    data = np.array([[value(n, j, side) for n, side in units] for j in range(len(JUDGES))])
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    row = agreement(rev)["factual"]
    assert (row["kind"], row["level"]) == ("boolean", "nominal")
    assert row["alpha"] == pytest.approx(expected, abs=1e-9)
    assert (row["units"], row["ratings"]) == (12, 34)
    turns = rev.rest("get", "/api/agreement/").json()["questions"]
    assert "factual" not in {q["key"] for q in turns}  # asked of no turn
