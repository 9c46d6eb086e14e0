"""Smoke tests of bench.adapt's library (bench/strategies), on tiny sizes (the bench itself is `make bench`)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest

from bench.harness.report import machine
from bench.strategies import data as adapt_data
from bench.strategies import e2e, mabwiser, regret, report
from bench.strategies import fit as fitting
from refinement.strategies import check_params
from refinement.strategies.ucb1 import ucb1_index

if TYPE_CHECKING:
    from pathlib import Path

PARAMS = check_params({})


def test_the_data_is_seeded_and_on_both_reward_scales() -> None:
    data = adapt_data.make_data(7, 500, seed=1)
    again = adapt_data.make_data(7, 500, seed=1)

    np.testing.assert_array_equal(data.arm, again.arm)
    assert data.n_arms == 7 and data.size == 500
    assert set(np.unique(data.reward01)) <= {0.0, 1.0}
    np.testing.assert_array_equal(data.reward, data.reward01 * 2 - 1)
    evidence = data.evidence()
    np.testing.assert_allclose(evidence.behaviour_prob, 1 / 7)
    np.testing.assert_allclose(evidence.current, 0.5)


def test_mabwiser_computes_what_ours_computes_with_the_matched_parameters() -> None:
    pytest.importorskip("mabwiser")
    data = adapt_data.make_data(6, 2000, seed=1)
    params = dict(PARAMS, temperature=0.2)

    mab, _ = mabwiser.fit_mabwiser(data, "ucb1", params)
    theirs = np.array(list(mab._imp.arm_to_expectation.values()))
    np.testing.assert_allclose(ucb1_index(data.evidence(), params["ucb_c"]), theirs)

    mab, _ = mabwiser.fit_mabwiser(data, "softmax", params)
    theirs = np.array(list(mab._imp.arm_to_expectation.values()))
    np.testing.assert_allclose(fitting.fit_ours(data, "softmax", params), theirs)

    mab, _ = mabwiser.fit_mabwiser(data, "epsilon_greedy", params)
    ours = fitting.fit_ours(data, "epsilon_greedy", params)
    assert mabwiser.agreement("epsilon_greedy", ours, mab).startswith("best arm same")


def test_mabwiser_plays_each_arm_once_then_sequentially() -> None:
    pytest.importorskip("mabwiser")
    means = np.array([0.1, 0.9, 0.5])
    # Auer's c, not the portal's small default: with c 0.3 one unlucky first pull of the best
    # arm can leave it unplayed for 50 rounds, which says nothing of how MABWiser is driven.
    params = dict(PARAMS, ucb_c=math.sqrt(2))

    chosen = mabwiser.mabwiser_bandit("ucb1", params, means, 200, seed=1)

    assert chosen[:3].tolist() == [0, 1, 2]
    assert chosen.shape == (200,) and np.bincount(chosen).argmax() == 1


def test_a_regret_is_a_miss_only_when_worse_and_says_if_within_noise() -> None:
    theirs = {"mean": 100.0, "se": 5.0}

    assert regret.regret_verdict({"mean": 99.0, "se": 5.0}, theirs) == "PASS"
    assert regret.regret_verdict({"mean": 105.0, "se": 5.0}, theirs) == "MISS (within noise)"
    assert regret.regret_verdict({"mean": 150.0, "se": 5.0}, theirs) == "MISS"


def test_the_softmax_pick_at_the_true_means_is_sampled_from_p() -> None:
    means = np.array([0.2, 0.8])
    p = np.exp(means / 0.5) / np.exp(means / 0.5).sum()

    selection = regret.softmax_selection(means, 0.5, 100)

    assert selection["sample_p"] == pytest.approx(100 * 0.6 * p[0])
    assert 0 < selection["dirichlet_argmax"] < 100 * 0.6


def test_experience_rows_follow_the_services_columns() -> None:
    from feedback.services.rows import EXPERIENCE_COLUMNS

    data = adapt_data.make_data(3, 10, seed=1)

    rows = e2e.experience_rows(data, EXPERIENCE_COLUMNS, "token:bench", 4, 8, t0=0.0, project=7)

    assert len(rows) == 4 and all(len(row) == len(EXPERIENCE_COLUMNS) for row in rows)
    first = dict(zip(EXPERIENCE_COLUMNS, rows[0], strict=True))
    assert first["experience_id"] == "bench-00000004"
    assert first["component_name"] == e2e.component_name(int(data.arm[4]))
    assert first["reward"] == data.reward[4]
    assert first["behaviour_prob"] == pytest.approx(1 / 3)
    assert first["project_id"] == 7


def test_the_report_replaces_only_its_own_block(tmp_path: Path) -> None:
    path = tmp_path / "BENCHMARKS.md"
    path.write_text("# B\n\n<!-- bench:sqlite:start -->\nkeep\n<!-- bench:sqlite:end -->\n")
    results = _tiny_results()

    report.write(path, results)
    report.write(path, results)

    text = path.read_text()
    assert "<!-- bench:sqlite:start -->\nkeep\n<!-- bench:sqlite:end -->" in text
    assert text.count("<!-- bench:adapt:start -->") == 1 == text.count("<!-- bench:adapt:end -->")
    assert "fit ucb1 vs MABWiser UCB1" in text


def _tiny_results() -> dict[str, Any]:
    fit = {
        name: {"ours_s": 0.001, "ours": fitting.ours_label(name, PARAMS)}
        for name in adapt_data.STRATEGIES
    }
    for name in adapt_data.PAIRS:
        fit[name] |= {
            "mab": mabwiser.mabwiser_label(name, PARAMS),
            "mab_s": 0.02,
            "speedup": 20.0,
            "check": "ok",
        }
    fit["ppo"]["vs_slowest_mab"] = 20.0
    spread = {"mean": 1.0, "sd": 0.0, "se": 0.0, "values": [1.0]}
    rows = {
        name: {"name": name, "refit_every": 1, "ours": spread, "ours_s_per_run": 0.1}
        for name in adapt_data.STRATEGIES
    }
    for name in adapt_data.PAIRS:
        rows[name] |= {"mab": spread, "mab_label": "m", "mab_s_per_run": 0.1, "verdict": "PASS"}
    meta = machine() | {
        "command": "python -m bench.adapt",
        "started": "now",
        "seconds": 1.0,
        "load": [0.0, 0.0],
        "arms": 4,
        "experiences": 10,
        "repeats": 1,
        "seed": 1,
    }
    regret = {"arms": 3, "rounds": 10, "seeds": 1, "uniform": 2.0, "ucb1_bound": math.pi}
    return {"fit": fit, "regret": [regret | {"rows": rows}], "meta": meta}
