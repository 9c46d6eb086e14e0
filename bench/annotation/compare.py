"""LearnPortal's side of the ingest comparison with Label Studio, and the interleaving of sides."""

from __future__ import annotations

import contextlib
import statistics
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx
import orjson

from bench.annotation.data import BATCH
from bench.harness.databases import BenchError, Database, manage
from bench.harness.report import log
from bench.harness.servers import Stack

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


def _turn_item(turn: dict[str, Any]) -> dict[str, Any]:
    return {
        "correlation_id": turn["correlation_id"],
        "session_id": turn["session_id"],
        "component_name": turn["component_name"],
        "rated_turn": {
            "prompt": turn["prompt"],
            "response": turn["response"],
            "model": turn["model"],
        },
    }


def learnportal_bodies(
    items: list[dict[str, Any]], *, split: bool
) -> list[list[tuple[str, bytes]]]:
    """Per batch, the requests that store it: (`agent` or `annotator`, body).

    `split`: the turns through `POST /api/turns/` (agent), then the ratings naming them by
    correlation id; otherwise one `learn/feedback/req` whose ratings carry their `rated_turn`
    (kept as a turn too, per the contract), as Label Studio's import carries tasks with their
    annotations.
    """
    out = []
    for start in range(0, len(items), BATCH):
        part = items[start : start + BATCH]
        ratings = []
        for i in part:
            turn = _turn_item(i["turn"])
            if split:
                del turn["rated_turn"]
            ratings.append({"feedback_id": f"ws-{turn['correlation_id']}", **turn, **i["rating"]})
        feedback = {"type": "learn/feedback/req", "id": f"ws-{start}", "feedbacks": ratings}
        requests = [("annotator", orjson.dumps(feedback))]
        if split:
            turns = {"turns": [_turn_item(i["turn"]) for i in part]}
            requests.insert(0, ("agent", orjson.dumps(turns)))
        out.append(requests)
    return out


@dataclass
class Side:
    """One side of the comparison, set up and answering: `send(n)` stores batch n and returns
    the seconds it took at the client; `check()` raises unless every row was stored."""

    send: Callable[[int], float]
    check: Callable[[], None]
    facts: dict[str, Any]
    times: list[float] = field(default_factory=list)

    def figures(self) -> dict[str, Any]:
        counted = self.times[1:]  # the first batch is a warm-up, on every side
        rows = BATCH * len(counted)
        return self.facts | {
            "rows": rows,
            "seconds": sum(counted),
            "rows_s": rows / sum(counted),
            "batch_ms_p50": 1000 * statistics.median(counted),
        }


@contextlib.contextmanager
def learnportal_side(
    database: Database,
    items: list[dict[str, Any]],
    *,
    split: bool,
    setup: Callable[[dict[str, str]], str] | None = None,
) -> Iterator[Side]:
    """The rated turns through the public API of a live server of its own; `setup` (given the
    server's environment) fills its database first and names the project to store them in
    (the annotator and the agent are its members), else they go to `default`."""
    bodies = learnportal_bodies(items, split=split)
    with Stack(database, "workspace-ingest") as stack:
        project = setup(stack.env) if setup is not None else ""
        in_project = ["--project", project] if project else []
        password = "bench-annotator-pass-1"
        manage(stack.env, "adduser", "bench-annotator", "--role", "annotator",
               "--password", password, *in_project)  # fmt: skip
        personal = manage(stack.env, "createtoken", "bench-annotator", "--user")
        agent = stack.tokens["agent"]
        if project:
            agent = manage(
                stack.env, "createtoken", "bench-agent-in", "--role", "agent", *in_project
            )
        headers = {
            who: {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
            for who, token in (("agent", agent), ("annotator", personal))
        }
        paths = {"agent": "/api/turns/", "annotator": "/api/learn/"}
        with httpx.Client(base_url=stack.base_url, timeout=300) as client:

            def send(n: int) -> float:
                t0 = time.perf_counter()
                for who, body in bodies[n]:
                    response = client.post(paths[who], content=body, headers=headers[who])
                    if response.status_code not in (200, 201):
                        raise BenchError(
                            f"LearnPortal ingest: {response.status_code} {response.text[:300]}"
                        )
                return time.perf_counter() - t0

            def check() -> None:
                counts = _lp_counts(stack, project)
                if counts != (len(items), len(items)):
                    raise BenchError(
                        f"LearnPortal ingest stored {counts}, expected {len(items)} of each"
                    )

            yield Side(
                send,
                check,
                {
                    "requests": (
                        "POST /api/turns/ + learn/feedback/req" if split else "learn/feedback/req"
                    ),
                    "server": "uvicorn, DJANGO_DEBUG=0",
                    "project": project or "default",
                },
            )


def _lp_counts(stack: Stack, project: str) -> tuple[int, int]:
    """Turns and human feedback stored in the project (`default` for none)."""
    conn = stack.connect()
    mark = "%s" if stack.database.kind == "postgresql" else "?"
    of_project = (
        f" project_id = (SELECT id FROM projects_project WHERE slug = {mark})",
        [project or "default"],
    )
    try:
        turns = conn.execute(
            "SELECT COUNT(*) FROM feedback_turn WHERE" + of_project[0], of_project[1]
        ).fetchone()[0]
        human = conn.execute(
            "SELECT COUNT(*) FROM feedback_feedback WHERE source = 'human' AND" + of_project[0],
            of_project[1],
        ).fetchone()[0]
    finally:
        conn.close()
    return int(turns), int(human)


def interleaved(sides: dict[str, Side], batches: int) -> dict[str, dict[str, Any]]:
    """Every side stores batch n before any stores batch n + 1, in an order that turns by one
    each batch, so that the machine's drift (it is shared) falls on all sides alike."""
    names = list(sides)
    for n in range(batches):
        turn = n % len(names)
        for name in names[turn:] + names[:turn]:
            sides[name].times.append(sides[name].send(n))
        if n % 5 == 4:
            log(f"ingest: {(n + 1) * BATCH} rated turns stored on each side")
    for side in sides.values():
        side.check()
    return {name: side.figures() for name, side in sides.items()}
