"""The example agent (examples/agent_loop.py), run as the README runs it, against a live server:
the component that succeeds most ends with the largest weight, and the reward rises."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import TYPE_CHECKING

from learnportal.accounts.models import ApiToken
from learnportal_client import LearnClient
from tests.processes import REPO

if TYPE_CHECKING:
    from pathlib import Path

    from tests.conftest import InstalledClient


def test_the_example_agent_learns_to_call_its_best_component(
    asgi_server: str, installed_client: InstalledClient, tmp_path: Path
) -> None:
    _, token = ApiToken.issue(name="sim-agent", role="agent")
    env = {**os.environ, "PYTHONPATH": str(installed_client.site), "TOKEN": token}
    result = subprocess.run(
        [
            sys.executable,
            str(REPO / "examples" / "agent_loop.py"),
            "--url",
            asgi_server,
            "--steps",
            "160",
            "--every",
            "20",
            "--seed",
            "3",
        ],
        cwd=tmp_path,  # the installed client, not the checkout
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    rewards = [float(r) for r in re.findall(r"reward ([+-]\d\.\d\d)  chances", result.stdout)]
    assert len(rewards) == 8, result.stdout
    assert sum(rewards[-2:]) / 2 > sum(rewards[:2]) / 2, result.stdout
    with LearnClient(asgi_server, token) as client:
        weights = client.routing().weights
    assert weights["sim-careful"] > max(weights["sim-balanced"], weights["sim-hasty"]), weights
