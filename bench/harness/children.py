"""A bench task run in a Django process of its own, set up on one section's database.

`run_child(env, "task", **kwargs)` starts `python -m bench.child task JSON` with that section's
environment (bench/child.py holds the tasks) and returns what the task returned: the child
prints it as JSON on the last line of its stdout, its progress on stderr, straight through.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from typing import Any

import orjson

from bench.harness.databases import ROOT, BenchError


def run_child(env: dict[str, str], task: str, **kwargs: Any) -> Any:
    result = subprocess.run(
        [sys.executable, "-m", "bench.child", task, orjson.dumps(kwargs).decode()],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=None,
        text=True,
        check=False,
    )
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        raise BenchError(f"bench.child {task} failed (exit {result.returncode}; its log above)")
    return orjson.loads(lines[-1])["result"]


def child_answer(result: Any) -> str:
    """The line a child prints last: its result."""
    return "\n" + orjson.dumps({"result": result}, option=orjson.OPT_SERIALIZE_NUMPY).decode()


def _terminate(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def stop_on_sigterm() -> None:
    """SIGTERM unwinds like Ctrl-C, so that every server and database is cleaned up."""
    signal.signal(signal.SIGTERM, _terminate)
