"""The sizes of `python -m bench.adapt`, and one run of its three parts on data of one seed.

1. **Fit.** 1,000 arms with Bernoulli means, 1,000,000 experiences (arm uniform, the behaviour
   policy of a fresh router); our `ucb1`, `epsilon_greedy`, `softmax` and `ppo` on an `Evidence`
   against MABWiser's `UCB1`, `EpsilonGreedy` and `Softmax` `.fit()` + `.predict_expectations()`
   on the very same arrays, best of 3, the parameters matched and checked (bench/strategies/fit.py).
2. **Regret.** The same simulated Bernoulli bandit for both sides, sequential: ours through
   `simulate.run_bandit(refit_every=1)`, MABWiser with `predict()` + `partial_fit()`.
3. **End to end.** `refinement.adapt.adapt_run` in Django on a fresh SQLite database holding the
   same experiences for 1,000 components (bench/strategies/e2e.py).
"""

from __future__ import annotations

from typing import Any

from bench.harness.report import log
from bench.strategies.data import DEFAULTS, make_data
from bench.strategies.e2e import e2e_section
from bench.strategies.fit import fit_section
from bench.strategies.regret import regret_section
from refinement.strategies import PARAMS

FULL: dict[str, Any] = {
    "arms": 1000,
    "experiences": 1_000_000,
    "repeats": 3,
    # (arms, rounds, seeds)
    "bandits": [(10, 10_000, 20), (100, 10_000, 8)],
    "ppo_refit": 20,
    "read_repeats": 2,
    "e2e_small": 10_000,  # the end-to-end adapt at this many experiences, then at all of them
}
QUICK: dict[str, Any] = {
    "arms": 50,
    "experiences": 20_000,
    "repeats": 2,
    "bandits": [(5, 400, 2)],
    "ppo_refit": 20,
    "read_repeats": 1,
    "e2e_small": 2_000,
}


def run(
    sizes: dict[str, Any], *, seed: int, regret: bool = True, e2e: bool = True
) -> dict[str, Any]:
    """The fit, then (unless left out) the regret tables and the end-to-end part."""
    params = dict(DEFAULTS)
    log(f"bench.adapt: {sizes['arms']:,} arms x {sizes['experiences']:,} experiences")
    data = make_data(sizes["arms"], sizes["experiences"], seed)
    results: dict[str, Any] = {"sizes": sizes}
    results["fit"] = fit_section(data, sizes["repeats"], params)
    results["regret"] = [
        regret_section(arms, rounds, seeds, sizes["ppo_refit"], params)
        for arms, rounds, seeds in (sizes["bandits"] if regret else [])
    ]
    if e2e:
        results["e2e"] = e2e_section(data, sizes)
    return results


def meta(sizes: dict[str, Any], seed: int) -> dict[str, Any]:
    """What the report says of the data and the parameters."""
    return {
        "arms": sizes["arms"],
        "experiences": sizes["experiences"],
        "repeats": sizes["repeats"],
        "seed": seed,
        "params": {k: DEFAULTS[k] for k in PARAMS},
    }
