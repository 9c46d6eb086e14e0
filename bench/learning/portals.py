"""Live portals for the loop: fresh SQLite copies of one migrated template, each served by
uvicorn, and a runtime's side of one (its public HTTP API).
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import orjson

from bench.harness.databases import Database, app_env, manage, sqlite_copy
from bench.harness.servers import Server
from bench.learning.runtime import LoopResult, _ids, run_loop

if TYPE_CHECKING:
    from collections.abc import Mapping


# Settings names of the strategy parameters, for a live server's environment.
VARIABLES = {
    "epsilon": "LEARNPORTAL_EPSILON",
    "temperature": "LEARNPORTAL_SOFTMAX_TEMPERATURE",
    "ucb_c": "LEARNPORTAL_UCB_C",
    "ucb_horizon": "LEARNPORTAL_UCB_HORIZON",
    "ppo_clip": "LEARNPORTAL_PPO_CLIP",
    "ppo_epochs": "LEARNPORTAL_PPO_EPOCHS",
    "ppo_lr": "LEARNPORTAL_PPO_LR",
    "ppo_entropy": "LEARNPORTAL_PPO_ENTROPY",
}


CUSTOM = "refinement.strategies.thompson.thompson"
# The loop plays a run's 100 adapts in about a minute, where a runtime's would take hours: the
# limit on how often machines change one path in a time window (refinement.trust_window), a
# brake on a runaway agent in wall-clock time, would stop it after 30 and hold the rest for a
# person. It is lifted here so that what is measured is whether the strategies learn.
PATH_CHANGES_MAX = 1_000_000


class LiveHost:
    """A runtime's side of a live portal: its public HTTP API, one keep-alive connection."""

    def __init__(self, base_url: str, token: str) -> None:

        self.client = httpx.Client(
            base_url=base_url,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            timeout=120,
        )

    def close(self) -> None:
        self.client.close()

    def _learn(self, body: dict[str, Any]) -> dict[str, Any]:

        response = self.client.post("/api/learn/", content=orjson.dumps(body))
        reply: dict[str, Any] = response.json()
        if response.status_code != 200 or reply.get("type") == "learn/error":
            raise RuntimeError(f"{body['type']} refused: {response.status_code} {reply}")
        return reply

    def routing(self) -> dict[str, float]:
        response = self.client.get("/api/routing/")
        response.raise_for_status()
        weights: dict[str, float] = response.json()["weights"]
        return weights

    def report(self, experiences: list[dict[str, Any]]) -> None:
        self._learn({"type": "learn/experience/req", "id": _req(), "experiences": experiences})

    def feedback(self, component: str, score: float) -> None:
        item = {
            "feedback_id": f"fb-{time.time_ns()}-{next(_ids)}",
            "polarity": "positive",
            "score": score,
            "component_name": component,
        }
        self._learn({"type": "learn/feedback/req", "id": _req(), "feedbacks": [item]})

    def adapt(self, strategy: str) -> None:
        self._learn({"type": "learn/adapt/req", "id": _req(), "strategy": strategy})


def _req() -> str:
    return f"req-{next(_ids)}"


def server_env(strategy: str, params: Mapping[str, float], window: int) -> dict[str, str]:
    """The settings a portal for one strategy runs with: its parameters, the custom path."""
    env = {VARIABLES[k]: f"{v:g}" for k, v in params.items() if k in VARIABLES}
    env["LEARNPORTAL_ADAPT_WINDOW"] = str(window)
    env["LEARNPORTAL_PATH_CHANGES_MAX"] = str(PATH_CHANGES_MAX)
    if strategy == "custom":
        env["LEARNPORTAL_CUSTOM_STRATEGY"] = CUSTOM
    return env


class Portals:
    """Fresh portals on SQLite: one migrated template, copied for every run, served by uvicorn."""

    def __init__(self) -> None:
        self.database = Database(None)
        self.template_env = app_env(self.database.create("loop-template"), debug=False)
        manage(self.template_env, "migrate", "--no-input", "-v", "0")
        self.token = manage(self.template_env, "createtoken", "loop-agent", "--role", "agent")
        self.runs = 0

    def run(
        self,
        strategy: str,
        params: Mapping[str, float],
        *,
        turns: int,
        seed: int,
        swap_at: int | None = None,
        window: int = 1_000_000,
    ) -> LoopResult:

        self.runs += 1
        source = Path(self.template_env["LEARNPORTAL_VAR_DIR"])
        var_dir = source.parent / f"loop-{self.runs}"
        var_dir.mkdir()
        sqlite_copy(source / "learnportal.sqlite3", var_dir / "learnportal.sqlite3")
        env = dict(self.template_env, LEARNPORTAL_VAR_DIR=str(var_dir))
        env.update(server_env(strategy, params, window))
        server = Server("uvicorn", env, var_dir / "server.log")
        server.start(self.token)
        host = LiveHost(server.base_url, self.token)
        try:
            return run_loop(host, strategy, turns=turns, seed=seed, swap_at=swap_at)
        except Exception as error:
            raise RuntimeError(f"{error}\n{server.log_tail()}") from error
        finally:
            host.close()
            server.stop()
            shutil.rmtree(var_dir, ignore_errors=True)

    def close(self) -> None:
        self.database.drop_all()
