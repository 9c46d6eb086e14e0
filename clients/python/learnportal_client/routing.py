"""Choosing a component by the routing weights, as the README's "Routing weights" says."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

UNWEIGHTED = 0.5  # the weight of a component the host has never weighted


@dataclass(frozen=True)
class Choice:
    component_name: str
    action_prob: float  # the probability it was chosen with, over the candidates: report it


def probabilities(weights: Mapping[str, float], candidates: Sequence[str]) -> list[float]:
    """Each candidate's share of its weight (0.5 if unweighted); uniform if all weigh 0."""
    if not candidates:
        raise ValueError("no candidates to choose from")
    w = [max(0.0, weights.get(name, UNWEIGHTED)) for name in candidates]
    total = sum(w)
    if total <= 0:
        return [1 / len(w)] * len(w)
    return [x / total for x in w]


def choose(
    weights: Mapping[str, float], candidates: Sequence[str], rng: random.Random | None = None
) -> Choice:
    """Pick one candidate with probability proportional to its weight."""
    p = probabilities(weights, candidates)
    # A weight of 0 is never chosen, so the chosen one's probability is above 0, as
    # `action_prob` must be.
    index = (rng or random).choices(range(len(candidates)), weights=p)[0]
    return Choice(candidates[index], p[index])
