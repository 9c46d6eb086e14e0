"""The leaderboard (`GET /api/leaderboard/`): Bradley-Terry strengths of the components (or
models) judged, as choix computes them on the same pairs, with intervals, win counts and the
position bias; for the people who may see names, of their project alone."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import choix
import numpy as np
import pytest

from core.accounts.roles import Role
from core.projects.services import project_add
from feedback.comparisons.judgments import JudgmentRequest, judgment_record
from feedback.comparisons.queue import candidates_shown
from feedback.comparisons.strengths import PRIOR
from feedback.intervals import wilson
from tests.factories import PrincipalFactory
from tests.harness import human_actor, refused_at, token_actor

if TYPE_CHECKING:
    from tests.harness import Actor

pytestmark = pytest.mark.django_db

COMPONENTS = ["alpha", "beta", "gamma", "delta"]
JUDGES = [f"judge-{i}" for i in range(3)]


def comparisons(agent: Actor, pairs: list[tuple[str, str]]) -> list[int]:
    body = {
        "comparisons": [
            {
                "prompt": "Say something true.",
                "candidates": [
                    {"response": f"{name} {n}", "component_name": name, "model": f"m-{name}"}
                    for name in pair
                ],
            }
            for n, pair in enumerate(pairs)
        ]
    }
    response = agent.rest("post", "/api/comparisons/", body)
    assert response.status_code == 201, response.content
    return [c["id"] for c in response.json()["comparisons"]]


def judged(who: str, comparison: int, preference_of_first: int) -> tuple[str, str]:
    """`who` prefers the first shown by -2..2 (negative: the first better); the components
    shown, in order."""
    person = PrincipalFactory.build(role=Role.ANNOTATOR, name=who)
    shown = [response.split()[0] for _, response in candidates_shown(comparison, who)]
    judgment = JudgmentRequest(preference=preference_of_first)
    judgment_record(principal=person, comparison=comparison, judgment=judgment)
    return shown[0], shown[1]


@pytest.fixture
def many(agent: Actor, settings: Any) -> list[tuple[str, str, float]]:
    """Each judge's judgment of 60 comparisons drawn at random, by latent strengths: what each
    pair (first shown, second shown, the first's score) came to."""
    settings.LEARNPORTAL_RATINGS_PER_TURN = len(JUDGES)
    rng = np.random.default_rng(11)
    latent = dict(zip(COMPONENTS, [1.0, 0.3, -0.2, -1.1], strict=True))
    drawn = [tuple(rng.choice(COMPONENTS, size=2, replace=False)) for _ in range(60)]
    ids = comparisons(agent, [(str(a), str(b)) for a, b in drawn])
    outcomes = []
    for comparison in ids:
        for who in JUDGES:
            shown = [r.split()[0] for _, r in candidates_shown(comparison, who)]
            p_first = 1 / (1 + np.exp(latent[shown[1]] - latent[shown[0]]))
            draw = rng.random()
            preference = 0 if abs(draw - p_first) < 0.08 else (-1 if draw < p_first else 1)
            first, second = judged(who, comparison, preference)
            outcomes.append((first, second, 0.5 if preference == 0 else float(preference < 0)))
    return outcomes


def test_the_strengths_are_choixs_on_the_same_pairs(
    many: list[tuple[str, str, float]], rev: Actor
) -> None:
    board = rev.rest("get", "/api/leaderboard/").json()
    names = sorted(COMPONENTS)
    index = {name: i for i, name in enumerate(names)}
    # A tie is half a win each side: every outcome twice (a tie once each way), and the
    # prior doubled with the counts, which keeps the optimum; choix's penalty is alpha·|θ|².
    doubled = []
    for first, second, score in many:
        a, b = index[first], index[second]
        if score == 0.5:
            doubled += [(a, b), (b, a)]
        else:
            doubled += [(a, b)] * 2 if score == 1 else [(b, a)] * 2
    oracle = choix.opt_pairwise(len(names), doubled, alpha=PRIOR, tol=1e-12)
    got = {entry["name"]: entry["strength"] for entry in board["entries"]}
    np.testing.assert_allclose([got[name] for name in names], oracle, atol=1e-6)
    assert [entry["name"] for entry in board["entries"]] == sorted(names, key=lambda n: -got[n])
    assert abs(sum(got.values())) < 1e-9


def test_each_entry_has_an_interval_around_it_and_its_counts(
    many: list[tuple[str, str, float]], rev: Actor
) -> None:
    board = rev.rest("get", "/api/leaderboard/").json()
    for entry in board["entries"]:
        low, high = entry["interval"]
        assert low < entry["strength"] < high
        name = entry["name"]
        scores = [s if f == name else 1 - s for f, sec, s in many if name in (f, sec)]
        assert (entry["wins"], entry["losses"], entry["ties"]) == (
            scores.count(1.0),
            scores.count(0.0),
            scores.count(0.5),
        )
    assert board["pairs"] == len(many)


def test_the_position_bias_is_the_share_of_decisive_pairs_the_first_shown_won(
    many: list[tuple[str, str, float]], rev: Actor
) -> None:
    decisive = [score for _, _, score in many if score != 0.5]
    board = rev.rest("get", "/api/leaderboard/").json()
    assert board["position_bias"] == pytest.approx(sum(decisive) / len(decisive))


def test_a_judge_who_always_takes_the_first_shows_full_bias(agent: Actor, rev: Actor) -> None:
    ids = comparisons(agent, [("alpha", "beta"), ("beta", "alpha"), ("gamma", "alpha")])
    for comparison in ids:
        judged("lazy", comparison, -1)
    board = rev.rest("get", "/api/leaderboard/").json()
    assert board["position_bias"] == 1.0
    low, high = board["position_bias_interval"]
    assert low < 0.5 < high == 1.0  # three pairs say little: no bias shown beyond doubt


@pytest.mark.parametrize(
    ("successes", "trials", "interval"),
    [(0, 10, (0.0, 0.2775)), (5, 10, (0.2366, 0.7634)), (13, 13, (0.7719, 1.0))],
)
def test_the_position_bias_interval_is_wilsons(
    successes: int, trials: int, interval: tuple[float, float]
) -> None:
    assert wilson(successes, trials) == pytest.approx(interval, abs=1e-4)


def test_a_leaderboard_of_no_judgments_is_empty(rev: Actor) -> None:
    board = rev.rest("get", "/api/leaderboard/").json()
    assert board == {
        "by": "component",
        "entries": [],
        "position_bias": None,
        "position_bias_interval": None,
        "pairs": 0,
    }


def test_by_model_names_the_models_and_leaves_out_candidates_without_one(
    agent: Actor, rev: Actor
) -> None:
    [with_models] = comparisons(agent, [("alpha", "beta")])
    body = {
        "comparisons": [
            {
                "prompt": "p",
                "candidates": [
                    {"response": "alpha x", "component_name": "alpha", "model": "m-alpha"},
                    {"response": "beta x", "component_name": "beta"},
                ],
            }
        ]
    }
    [without] = [
        c["id"] for c in agent.rest("post", "/api/comparisons/", body).json()["comparisons"]
    ]
    judged("ann", with_models, 1)
    judged("ann", without, 1)
    board = rev.rest("get", "/api/leaderboard/?by=model").json()
    assert board["by"] == "model"
    assert {entry["name"] for entry in board["entries"]} == {"m-alpha", "m-beta"}
    assert board["pairs"] == 1
    assert refused_at(rev.rest("get", "/api/leaderboard/?by=colour")) == [["by"]]


def test_annotators_do_not_see_the_leaderboard_and_agents_see_their_projects(
    agent: Actor, ann: Actor, anonymous: Actor
) -> None:
    [comparison] = comparisons(agent, [("alpha", "beta")])
    winner, _ = judged("ann", comparison, -2)
    assert ann.rest("get", "/api/leaderboard/").status_code == 403
    assert anonymous.rest("get", "/api/leaderboard/").status_code == 401
    entries = agent.rest("get", "/api/leaderboard/").json()["entries"]
    assert [e["name"] for e in entries] == [winner, ({"alpha", "beta"} - {winner}).pop()]
    project_add(slug="beta", name="Beta")
    elsewhere = token_actor("agent-b", "agent", project="beta")
    assert elsewhere.rest("get", "/api/leaderboard/").json()["entries"] == []
    lead = human_actor("lead", "manager", project="beta")
    assert lead.rest("get", "/api/leaderboard/").json()["pairs"] == 0
