"""A simulated agent learning which of its components to call, against a running LearnPortal.

    python examples/agent_loop.py --url http://127.0.0.1:8000 --token "$TOKEN"

It has several components of different quality (the chance that a call succeeds, which the
agent does not know). Each step it picks one by the portal's routing weights, calls it (a coin
flip of that quality), reports the call as an experience with the `action_prob` it chose with,
and rates its own turn (`self` feedback); every `--every` steps it flushes, asks the portal to
adapt and reads the new weights. Its reward rises as the weights learn the better component.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from dataclasses import dataclass, field
from statistics import mean
from typing import TYPE_CHECKING, TextIO

from learnportal_client import STRATEGY_NAMES, LearnClient, choose, probabilities

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from learnportal_client import LearnBuffer, StrategyName

# Each component's chance of success: what the portal has to find out.
COMPONENTS = {"careful": 0.9, "balanced": 0.5, "hasty": 0.2}


@dataclass
class Run:
    rewards: list[float] = field(default_factory=list)  # the mean reward of each batch
    weights: dict[str, float] = field(default_factory=dict)  # the last weights read


def step(
    buffer: LearnBuffer, name: str, quality: float, prob: float, rng: random.Random, turn: str
) -> float:
    """One call of component `name`: its experience and the agent's own rating of it."""
    success = rng.random() < quality
    reward = 1.0 if success else -1.0
    experience_id = buffer.add_experience(
        {
            "action": {"component_name": name, "success": success, "action_prob": prob},
            "reward": reward,
            "episode_id": turn.rsplit("-", 1)[0],
        }
    )
    buffer.add_feedback(
        {
            "correlation_id": experience_id,
            "component_name": name,
            "polarity": "positive" if success else "negative",
            "score": 0.8 if success else -0.8,
            "dimension": "correctness",
            "comment": f"{name} {'succeeded' if success else 'failed'}",
        }
    )
    return reward


def run(
    client: LearnClient,
    *,
    components: Mapping[str, float],
    steps: int,
    every: int,
    strategy: StrategyName,
    rng: random.Random,
    out: TextIO,
    run_id: str = "",
) -> Run:
    names: Sequence[str] = list(components)
    result = Run(weights=dict(client.routing().weights))
    batch: list[float] = []
    with client.buffer(max_items=every * 2, max_interval=5.0) as buffer:
        for n in range(1, steps + 1):
            picked = choose(result.weights, names, rng)
            reward = step(
                buffer,
                picked.component_name,
                components[picked.component_name],
                picked.action_prob,
                rng,
                f"{run_id}-{n}",
            )
            batch.append(reward)
            if n % every == 0:
                buffer.flush()
                client.adapt(strategy=strategy)
                result.weights = dict(client.routing().weights)
                result.rewards.append(sum(batch) / len(batch))
                batch = []
                # Weights are relative to the portal's most favoured component, whoever's it is;
                # what this agent acts on is each candidate's chance among its own.
                chances = probabilities(result.weights, names)
                shown = "  ".join(f"{c} {p:.2f}" for c, p in zip(names, chances, strict=True))
                print(f"step {n:5d}  reward {result.rewards[-1]:+.2f}  chances  {shown}", file=out)
    quarter = max(1, len(result.rewards) // 4)
    first, last = mean(result.rewards[:quarter]), mean(result.rewards[-quarter:])
    print(
        f"mean reward per call: {first:+.2f} over the first {quarter * every} steps, "
        f"{last:+.2f} over the last {quarter * every}",
        file=out,
    )
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--token", default=os.environ.get("TOKEN", ""), help="an agent's token")
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--every", type=int, default=20, help="steps between adapts")
    parser.add_argument("--strategy", default="ucb1", choices=STRATEGY_NAMES)
    parser.add_argument("--prefix", default="sim", help="component names are PREFIX-<name>")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("--token (or TOKEN in the environment) is needed: an agent's token")
    components = {f"{args.prefix}-{name}": q for name, q in COMPONENTS.items()}
    with LearnClient(args.url, args.token) as client:
        run(
            client,
            components=components,
            steps=args.steps,
            every=args.every,
            strategy=args.strategy,
            rng=random.Random(args.seed),
            out=sys.stdout,
            run_id=f"{args.prefix}-{args.seed}",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
