"""The arrays a strategy reads, loaded from stored experiences in one pass."""

from __future__ import annotations

import numpy as np
from django.conf import settings

from core.timing import stage
from feedback import selectors
from refinement.paths import UNWEIGHTED, routable
from refinement.strategies import Evidence

SHOWN_NAME = 40


def components(project: int) -> tuple[list[str], list[str]]:
    """Every component of the project that has been called or rated, in a stable order, and
    those among them
    whose names cannot be a routing weight's path (too long, a control character): stored by
    older hosts, they are left out of adapt and plans rather than break them."""
    usable: list[str] = []
    skipped: list[str] = []
    for name in selectors.component_names(project):
        (usable if routable(name) else skipped).append(name)
    return usable, skipped


def component_names(project: int) -> list[str]:
    """The project's components adapt and plans weigh, in a stable order."""
    return components(project)[0]


def skipped_note(skipped: list[str]) -> str:
    """A sentence for a message: which components were left out, and why."""
    if not skipped:
        return ""
    shown = ", ".join(
        repr(name[:SHOWN_NAME] + "…") + f" ({len(name)} characters)"
        if len(name) > SHOWN_NAME
        else repr(name)
        for name in skipped[:3]
    )
    more = f" and {len(skipped) - 3} more" if len(skipped) > 3 else ""
    noun = "component" if len(skipped) == 1 else "components"
    return f"It skipped {len(skipped)} {noun} whose name cannot be a routing path: {shown}{more}."


def load_evidence(
    project: int, names: list[str], weights: dict[str, float], *, replay: bool
) -> Evidence:
    """Each of the project's components' count and reward sum over the adapt window (kept at ingest: one row a
    bucket a component), and with `replay` the newest experiences themselves, at most
    `LEARNPORTAL_REPLAY_WINDOW` of them: PPO's window, bounded whatever the table holds."""
    return load_evidence_sets(project, [names], weights, replay=replay)[0]


def load_evidence_sets(
    project: int, groups: list[list[str]], weights: dict[str, float], *, replay: bool
) -> list[Evidence]:
    """`load_evidence` of each group of the project's components (a candidate set), read in one
    pass."""
    window = settings.LEARNPORTAL_ADAPT_WINDOW
    with stage("read: the reward sums (SQL + fetch)"):
        sums = {
            name: (count, total) for name, count, total in selectors.reward_sums(project, window)
        }
    rows: list[selectors.ExperienceRow] = []
    if replay:
        limit = min(window, settings.LEARNPORTAL_REPLAY_WINDOW)
        with stage("read: the replay window (SQL + fetch)"):
            rows = selectors.experience_window(project, limit)
    return [_evidence(names, weights, sums, rows) for names in groups]


def _evidence(
    names: list[str],
    weights: dict[str, float],
    sums: dict[str, tuple[int, float]],
    rows: list[selectors.ExperienceRow],
) -> Evidence:
    index = {name: i for i, name in enumerate(names)}
    counts = np.array([sums.get(name, (0, 0.0))[0] for name in names], dtype=np.float64)
    totals = np.array([sums.get(name, (0, 0.0))[1] for name in names], dtype=np.float64)
    rows = [row for row in rows if row[0] in index]
    arm = np.fromiter((index[row[0]] for row in rows), dtype=np.int64, count=len(rows))
    reward = np.clip(
        np.fromiter((row[1] for row in rows), dtype=np.float64, count=len(rows)), -1, 1
    )
    behaviour = np.fromiter(
        (np.nan if row[2] is None else row[2] for row in rows), dtype=np.float64, count=len(rows)
    )
    current = np.array([weights.get(name, UNWEIGHTED) for name in names], dtype=np.float64)
    return Evidence(
        n_arms=len(names),
        arm=arm,
        reward=reward,
        behaviour_prob=behaviour,
        current=current,
        counts=counts,
        reward_sums=np.clip(totals, -counts, counts),
    )
