"""What `python -m bench.adapt` reports: the targets printed with every table, and in
BENCHMARKS.md its block (`<!-- bench:adapt:... -->`): how it ran and the targets.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from bench.harness.report import run_line, table, targets_table, verdict, write_marked_block
from bench.strategies.data import DEFAULTS, PAIRS, SOFTMAX_LOW_TAU, STRATEGIES
from bench.strategies.mabwiser import MAB_NAME

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path


SPEED_TARGET = 10.0


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:,.1f}"


def _pm(spread: Mapping[str, float]) -> str:
    return f"{spread['mean']:,.1f} ± {spread['sd']:,.1f}"


def targets(results: Mapping[str, Any]) -> list[list[str]]:
    """(figure, measured, target, verdict) rows for the two targets: the fit's speed-up over
    MABWiser (SPEED_TARGET) and regret no worse than its."""
    rows = []
    fit = results["fit"]
    for name in PAIRS:
        r = fit[name]
        rows.append(
            [
                f"fit {name} vs MABWiser {MAB_NAME[name]}",
                f"{_ms(r['ours_s'])} vs {_ms(r['mab_s'])} ms = {r['speedup']:,.0f}x",
                f">= {SPEED_TARGET:g}x",
                verdict(r["speedup"] >= SPEED_TARGET),
            ]
        )
    e2e = results.get("e2e")
    if e2e:
        small, large = e2e["sizes"][0], e2e["sizes"][-1]
        for name in PAIRS:
            total = e2e["adapts"][f"{name}@{large}"]["total_s"]
            mab = fit[name]["mab_s"]
            rows.append(
                [
                    f"end-to-end adapt_run {name} vs MABWiser {MAB_NAME[name]} fit",
                    f"{total:,.3f} vs {mab:,.3f} s = {mab / total:,.2f}x",
                    "faster (> 1x)",
                    verdict(total < mab),
                ]
            )
        if lat := e2e.get("latency"):
            ratio = lat["busy_ms_p95"] / lat["idle_ms_p95"]
            rows.append(
                [
                    "stats read p95 during adapts / alone",
                    f"{lat['busy_ms_p95']:.2f} / {lat['idle_ms_p95']:.2f} ms = {ratio:.2f}x",
                    "<= 2x (our reading of 'keep their latency')",
                    verdict(ratio <= 2.0),
                ]
            )
        for name in STRATEGIES:
            at_large = e2e["adapts"][f"{name}@{large}"]["total_s"]
            at_small = e2e["adapts"][f"{name}@{small}"]["total_s"]
            rows.append(
                [
                    f"end-to-end adapt_run {name}, {large:,} / {small:,} experiences",
                    f"{at_large:,.3f} / {at_small:,.3f} s = {at_large / at_small:,.2f}x",
                    "<= 1.5x",
                    verdict(at_large <= 1.5 * at_small),
                ]
            )
    for bandit in results["regret"]:
        for label, r in bandit["rows"].items():
            if "mab" not in r:
                continue
            rows.append(
                [
                    f"regret {label}, {bandit['arms']} arms x {bandit['rounds']:,} rounds",
                    f"{_pm(r['ours'])} vs {_pm(r['mab'])}",
                    "<= MABWiser",
                    r["verdict"],
                ]
            )
    return rows


def summary(results: Mapping[str, Any]) -> str:
    """Every table of the run, for the terminal."""
    meta = results["meta"]
    v = meta["versions"]
    fit = results["fit"]
    p = DEFAULTS
    lines = [
        f"### Adaptive strategies against MABWiser: {meta['started']}",
        "",
        f"- Machine: {meta['nproc']} x {meta['cpu']}, {meta['os']}; Python {meta['python']}, "
        f"numpy {v['numpy']}, mabwiser {v['mabwiser']} (joblib {v['joblib']}), "
        f"Django {v['django']}, SQLite {meta['sqlite']}.",
        f"- Command: `{meta['command']}` at commit `{meta.get('commit', '?')}`; took "
        f"{meta['seconds'] / 60:.1f} min. Load average (1 min) at start / end: "
        f"{meta['load'][0]} / {meta['load'][1]}.",
        f"- Data (seed {meta['seed']}): {meta['arms']:,} arms with Bernoulli means uniform in "
        f"[0.05, 0.95]; {meta['experiences']:,} experiences, arm uniform (a fresh router's "
        f"behaviour, `behaviour_prob` = 1/{meta['arms']}), reward Bernoulli: r * 2 - 1 for ours, "
        f"{{0, 1}} for MABWiser (int arms 0..{meta['arms'] - 1}, its fastest case).",
        f"- Parameters, the app's defaults, matched: ours `ucb_c` = {p['ucb_c']:g} is MABWiser "
        f"`alpha` = {p['ucb_c'] / math.sqrt(2.0):.4g} (its index is mean + alpha sqrt(2 ln n / "
        f"n_i)); `epsilon` = {p['epsilon']:g} both; softmax temperature = tau = "
        f"{p['temperature']:g} on both sides, both over means on [0, 1] (ours rescales [-1, 1] "
        "rewards, MABWiser's rewards are {0, 1}); our UCB1's share of the next "
        f"{p['ucb_horizon']:g} pulls is not MABWiser's, so the check compares the best arm. "
        "The check column confirms both sides compute the same thing on the data. PPO: "
        f"clip {p['ppo_clip']:g}, {p['ppo_epochs']:g} epochs, lr {p['ppo_lr']:g}, entropy "
        f"{p['ppo_entropy']:g}.",
        "",
        targets_table(targets(results)),
        "",
        *_notes(results),
        "**Fit on the same data, same process, best of "
        f"{meta['repeats']}** (ours: build the `Evidence`, with its checks, and run the strategy; "
        "MABWiser: `MAB(...)`, `.fit(decisions, rewards)`, `.predict_expectations()`, "
        "n_jobs=1; n_jobs=-1 was no faster on this machine):",
        "",
    ]
    rows = []
    for name in STRATEGIES:
        r = fit[name]
        if name in PAIRS:
            rows.append(
                [
                    f"`{r['ours']}`",
                    _ms(r["ours_s"]),
                    f"`{r['mab']}`",
                    _ms(r["mab_s"]),
                    f"{r['speedup']:,.0f}x",
                    r["check"],
                ]
            )
        else:
            rows.append(
                [
                    f"`{r['ours']}`",
                    _ms(r["ours_s"]),
                    "(none; slowest MABWiser fit)",
                    _ms(max(fit[n]["mab_s"] for n in PAIRS)),
                    f"{r['vs_slowest_mab']:,.0f}x",
                    "",
                ]
            )
    lines += [
        table(["ours", "ms", "MABWiser", "ms", "speed-up", "check"], rows, "lrlrrl"),
        "",
    ]
    for bandit in results["regret"]:
        lines += _regret_block(bandit)
    if results.get("e2e"):
        lines += _e2e_block(results["e2e"], fit)
    return "\n".join(lines) + "\n"


def _notes(results: Mapping[str, Any]) -> list[str]:
    """What the figures say, with this run's numbers."""
    fit, meta = results["fit"], results["meta"]
    speed = [fit[n]["speedup"] for n in PAIRS]
    notes = [
        f"- **Fit: {min(speed):,.0f}x to {max(speed):,.0f}x faster than MABWiser** on "
        f"{meta['experiences']:,} experiences. Ours is two `np.bincount` passes plus the "
        "`Evidence` checks; MABWiser's `_fit_arm` runs once per arm in Python and scans every "
        "decision each time (`rewards[decisions == arm]`), O(arms x experiences). PPO (10 "
        f"full-batch epochs) takes {_ms(fit['ppo']['ours_s'])} ms, still "
        f"{fit['ppo']['vs_slowest_mab']:,.0f}x under the slowest MABWiser fit.",
    ]
    e2e = results.get("e2e")
    if e2e:
        large = e2e["sizes"][-1]
        a = {name: e2e["adapts"][f"{name}@{large}"] for name in STRATEGIES}
        reads = e2e["reads"][str(large)]
        totals = [a[n]["total_s"] for n in PAIRS]
        ucb = a["ucb1"]
        notes += [
            f"- **End to end, `adapt_run` of the value-based strategies takes "
            f"{min(totals):.3f} to {max(totals):.3f} s** at {large:,} experiences, against "
            f"MABWiser's in-memory fit of {fit['ucb1']['mab_s']:.3f} s on the same data. The read "
            f"is {ucb['read_s'] * 1e3:.1f} ms: each component's count and reward sum over the "
            "adapt window, kept per bucket of experience ids at ingest (`feedback.rewards`), "
            f"{reads['sums_s'] * 1e3:.1f} ms alone, where reading every experience took "
            f"{reads['fetch_all_s']:.2f} s (and a SQL GROUP BY over them "
            f"{reads['group_by_s']:.2f} s). PPO reads the newest "
            f"{reads['replay_limit']:,} experiences besides ({reads['replay_s'] * 1e3:.1f} ms). "
            f"Applying the steps is {ucb['apply_s']:.3f} s in {ucb['queries']:,} SQL queries.",
        ]
    for bandit in results["regret"]:
        rows = bandit["rows"]
        soft = rows["softmax"]
        sel = soft.get("selection", {})
        low = rows.get(f"softmax tau={SOFTMAX_LOW_TAU:g}")
        line = (
            f"- **Regret, {bandit['arms']} arms**: UCB1 "
            f"{rows['ucb1']['ours']['mean']:,.0f} vs {rows['ucb1']['mab']['mean']:,.0f} (the same "
            "index, so equal up to noise); epsilon-greedy "
            f"{rows['epsilon_greedy']['ours']['mean']:,.0f} vs "
            f"{rows['epsilon_greedy']['mab']['mean']:,.0f}; softmax at the default temperature "
            f"{DEFAULTS['temperature']:g} {soft['ours']['mean']:,.0f} vs "
            f"{soft['mab']['mean']:,.0f}, "
            f"{100 * soft['ours']['mean'] / bandit['uniform']:.0f}% and "
            f"{100 * soft['mab']['mean'] / bandit['uniform']:.0f}% of uniform "
            f"({bandit['uniform']:,.0f})."
        )
        if sel:
            line += (
                " MABWiser picks the argmax of a Dirichlet(p) draw, slightly greedier than "
                f"sampling p: at the true means that alone is {sel['sample_p']:,.0f} vs "
                f"{sel['dirichlet_argmax']:,.0f} over the run."
            )
        if low:
            line += (
                f" At temperature {SOFTMAX_LOW_TAU:g}: {low['ours']['mean']:,.0f} vs "
                f"{low['mab']['mean']:,.0f}"
            )
            low_sel = low.get("selection")
            line += (
                f" (the pick alone at the true means: {low_sel['sample_p']:,.0f} vs "
                f"{low_sel['dirichlet_argmax']:,.0f})."
                if low_sel
                else "."
            )
        ppo = rows.get("ppo")
        if ppo:
            line += (
                f" PPO (no counterpart, refit every {ppo['refit_every']} rounds): "
                f"{ppo['ours']['mean']:,.0f}."
            )
        notes.append(line)
    return [*notes, ""]


def _regret_block(bandit: Mapping[str, Any]) -> list[str]:
    rows = []
    for label, r in bandit["rows"].items():
        refit = f", refit every {r['refit_every']}" if r["refit_every"] > 1 else ""
        rows.append(
            [
                f"`{label}`{refit}",
                _pm(r["ours"]),
                r.get("mab_label", "(none)"),
                _pm(r["mab"]) if "mab" in r else "",
                f"{r['ours_s_per_run']:.2f} / {r['mab_s_per_run']:.2f}"
                if "mab" in r
                else f"{r['ours_s_per_run']:.2f} / -",
                r.get("verdict", ""),
            ]
        )
    return [
        f"**Cumulative (expected) regret, {bandit['arms']} arms x {bandit['rounds']:,} rounds, "
        f"{bandit['seeds']} seeds** (mean ± sd over seeds; sum of best mean - chosen mean; "
        "sequential: each round one decision, its reward, one update; MABWiser first pulls each "
        "arm once, counted, because it values untried arms at 0). Uniform random: "
        f"{bandit['uniform']:,.1f}; Auer's UCB1 bound: {bandit['ucb1_bound']:,.1f}.",
        "",
        table(
            ["ours", "regret", "MABWiser", "regret", "s per run, ours / MABWiser", ""],
            rows,
            "lrlrrr",
        ),
        "",
    ]


def _e2e_block(e2e: Mapping[str, Any], fit: Mapping[str, Any]) -> list[str]:
    s = e2e["settings"]
    sizes = e2e["sizes"]
    rows = []
    for size in sizes:
        load = e2e["loads"][str(size)]
        for name in STRATEGIES:
            a = e2e["adapts"][f"{name}@{size}"]
            rows.append(
                [
                    f"{size:,}",
                    name,
                    f"{a['total_s']:.3f}",
                    f"{a['read_s'] * 1e3:,.1f}",
                    f"{a['strategy_s'] * 1e3:,.1f}",
                    f"{a['apply_s']:.3f}",
                    f"{a['queries']:,}",
                    f"{a['moved']:,}",
                    f"{load['backfill_s']:.2f}" if name == STRATEGIES[0] else "",
                ]
            )
    large = sizes[-1]
    load = e2e["loads"][str(large)]
    ucb = e2e["adapts"][f"ucb1@{large}"]
    phase_rows = [
        [label, f"{ucb['calls'].get(label, 1):,}", f"{secs:.4f}"]
        for label, secs in sorted(ucb["phases"].items(), key=lambda item: -item[1])
    ]
    prof = e2e["profile"]
    prof_rows = [
        [f"`{r['function']}`", f"{r['calls']:,}", f"{r['tottime']:.3f}", f"{r['cumtime']:.3f}"]
        for r in prof["top"][:12]
    ]
    probe_rows = []
    for size in sizes:
        r = e2e["reads"][str(size)]
        probe_rows.append(
            [
                f"{size:,}",
                f"{r['sums_s'] * 1e3:.1f}",
                f"{r['replay_s'] * 1e3:.1f} ({r['replay_rows']:,} rows)",
                f"{r['fetch_all_s'] * 1e3:,.0f}",
                f"{r['group_by_s'] * 1e3:,.0f}",
            ]
        )
    return [
        "**End to end in Django** (`refinement.adapt.adapt_run(principal=<agent>, "
        'component_name="", strategy=s)`, in-process, on a fresh migrated SQLite database with '
        f"the first {sizes[0]:,} and then all {large:,} of the same experiences ({load['db_mb']:.0f} "
        f"MiB), loaded by `executemany`, plus {load['arms']:,} `ComponentStats` rows and the "
        "reward buckets by `rebuild_rewards` (the backfill column: what an existing database "
        "pays once); the database is restored from a copy before each adapt so that each starts "
        f"from weights never set; DJANGO_DEBUG={int(s['debug'])}, auto-apply risk "
        f"`{s['auto_apply_max_risk']}` (a step of at most {s['max_step']:g} per weight), "
        f"`LEARNPORTAL_ADAPT_WINDOW` {s['adapt_window']:,}, `LEARNPORTAL_REPLAY_WINDOW` "
        f"{s['replay_window']:,}. Read = `components` + `load_evidence`; apply = everything else "
        "(plan, the steps applied as one refinement, the remaining steps filed for review, "
        "history, stats):",
        "",
        table(
            [
                "experiences",
                "strategy",
                "total s",
                "read ms",
                "strategy ms",
                "apply s",
                "SQL queries",
                "moved",
                "backfill s",
            ],
            rows,
        ),
        "",
        *(
            [
                f"**Beside an adapt**: a stats read of one component (`component_records`, what "
                "learn/stats/req reads) in a thread of its own every 2 ms took "
                f"{lat['idle_ms_p50']:.2f} ms at the median and {lat['idle_ms_p95']:.2f} ms at "
                f"the 95th percentile alone ({lat['idle_n']:,} reads), and "
                f"{lat['busy_ms_p50']:.2f} / {lat['busy_ms_p95']:.2f} ms (worst "
                f"{lat['busy_ms_max']:.1f}) while {lat['adapts']} ucb1 adapts of "
                f"{lat['adapt_s']:.3f} s each ran back to back in the same process "
                f"({lat['busy_n']:,} reads): the threads share one interpreter, as the requests "
                "of one server process do. On SQLite a write waits for the adapt's commit.",
                "",
            ]
            if (lat := e2e.get("latency"))
            else []
        ),
        "The read, alone (best of a few, ms): the kept sums (`load_evidence(replay=False)`), with "
        "PPO's bounded replay, and the reads it replaced: every experience fetched, and a SQL "
        "GROUP BY over them:",
        "",
        table(["experiences", "sums", "sums + replay", "fetch every row", "GROUP BY"], probe_rows),
        "",
        f"The phases of the ucb1 adapt at {large:,} ({ucb['total_s']:.3f} s; exclusive seconds: "
        "a phase excludes the phases timed inside it; the app's stages, core/timing.py, and "
        "Django's COMMIT):",
        "",
        table(["phase", "calls", "s"], phase_rows),
        "",
        f"cProfile of one ucb1 `adapt_run` ({prof['wall_s']:.2f} s under the profiler), top "
        "functions by own time:",
        "",
        table(["function", "calls", "tottime s", "cumtime s"], prof_rows, "lrrr"),
        "",
    ]


def block(results: Mapping[str, Any]) -> str:
    """The block of BENCHMARKS.md: how the run went, and its figures against their targets."""
    meta = results["meta"]
    data = (
        f"{meta['arms']:,} arms x {meta['experiences']:,} experiences (seed {meta['seed']}), "
        "the app's default parameters matched on both sides; MABWiser "
        f"{meta['versions'].get('mabwiser', '?')}."
    )
    return "\n".join([run_line(meta), data, "", targets_table(targets(results))]) + "\n"


def write(path: Path, results: Mapping[str, Any]) -> None:
    """Replace the adapt block, or append it at the end; nothing else in the file changes."""
    write_marked_block(path, "adapt", block(results))
