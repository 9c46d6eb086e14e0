"""The example agent (examples/agent_loop.py), run as the README runs it, against a live server:
the component that succeeds most ends with the largest weight, and the reward rises."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import TYPE_CHECKING

from learnportal_client import LearnClient
from tests.builders import adapt_req
from tests.factories import ApiTokenFactory
from tests.harness import token_actor
from tests.processes import REPO
from tests.refinement.helpers import calls

if TYPE_CHECKING:
    from pathlib import Path

    from tests.conftest import InstalledClient


def run_example(
    server: str,
    installed: InstalledClient,
    cwd: Path,
    token: str,
    *,
    steps: int,
    strategy: str = "ucb1",
) -> str:
    """examples/agent_loop.py as the README runs it, with the installed client; its output."""
    env = {**os.environ, "PYTHONPATH": str(installed.site), "TOKEN": token}
    result = subprocess.run(
        [
            sys.executable,
            str(REPO / "examples" / "agent_loop.py"),
            "--url",
            server,
            "--steps",
            str(steps),
            "--every",
            "20",
            "--seed",
            "3",
            "--strategy",
            strategy,
        ],
        cwd=cwd,  # the installed client, not the checkout
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_example_agent_learns_to_call_its_best_component(
    asgi_server: str, installed_client: InstalledClient, tmp_path: Path
) -> None:
    token = ApiTokenFactory.create(name="sim-agent").raw
    out = run_example(asgi_server, installed_client, tmp_path, token, steps=160)
    rewards = [float(r) for r in re.findall(r"reward ([+-]\d\.\d\d)  chances", out)]
    assert len(rewards) == 8, out
    assert sum(rewards[-2:]) / 2 > sum(rewards[:2]) / 2, out
    with LearnClient(asgi_server, token) as client:
        weights = client.routing().weights
    assert weights["sim-careful"] > max(weights["sim-balanced"], weights["sim-hasty"]), weights


def test_a_new_agent_learns_on_a_portal_where_another_agents_component_is_strong(
    asgi_server: str, installed_client: InstalledClient, tmp_path: Path
) -> None:
    elsewhere = token_actor("elsewhere", "agent")
    calls(elsewhere, "elsewhere-strong", 1000, reward=1.0, success=True)
    for _ in range(5):
        assert elsewhere.learn(adapt_req("epsilon_greedy")).status_code == 200
    token = ApiTokenFactory.create(name="sim-agent").raw

    # Six adapts. Weighed against the strong component, all three would sink toward the floor.
    out = run_example(
        asgi_server, installed_client, tmp_path, token, steps=120, strategy="epsilon_greedy"
    )

    with LearnClient(asgi_server, token) as client:
        weights = client.routing().weights
    # Its best component rose above its others, and is not squeezed against the strong one.
    assert weights["sim-careful"] >= 0.9, out
    assert weights["sim-careful"] - max(weights["sim-balanced"], weights["sim-hasty"]) >= 0.2, out
    assert weights["elsewhere-strong"] == 1.0
