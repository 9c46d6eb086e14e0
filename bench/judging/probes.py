"""Server time of a judge's and a reviewer's requests on the comparisons, in-process (Django's
test client, no socket), as bench/teams/probes.py times a project's.

A judge's round: `POST /api/queue/next/?kind=comparison` (a fresh lease: the round before
judged its comparison), the judging page `/compare/` showing that comparison, and
`POST /api/comparisons/<id>/judgments/` with a preference of two (a ranking of three). The
judge is the project's most active one (the open comparisons they judged are the ones the
queue's scan passes over); the other judges hold a lease each meanwhile, taken through the queue service. A
reviewer reads the leaderboard and agreement, which read every judgment.
"""

from __future__ import annotations

import os
import random
from typing import TYPE_CHECKING, Any

import orjson

from bench.annotation.probes import Clients, Probe, _say, routed, time_probe
from bench.harness.databases import BenchError
from bench.harness.figures import latency
from bench.harness.report import log
from bench.judging.data import plan_of
from bench.teams.probes import _timed

if TYPE_CHECKING:
    from bench.teams.data import ProjectPlan

NEXT = "POST /api/queue/next/?kind=comparison"
PAGE = "page /compare/ (the leased comparison)"
JUDGE = "POST /api/comparisons/<id>/judgments/"
LEADERBOARD = "GET /api/leaderboard/"
AGREEMENT = "GET /api/agreement/"
TARGETED = (NEXT, PAGE, JUDGE)  # the issue's: p95 under 100 ms each
READS = {LEADERBOARD: "/api/leaderboard/", AGREEMENT: "/api/agreement/"}  # no target
PAGE_PATH = "/compare/"


def round_body(shown: list[str], rng: random.Random) -> dict[str, Any]:
    """A judge's answer to what they were shown: a preference of two, a ranking of more."""
    if len(shown) == 2:
        return {"preference": rng.randint(-2, 2)}
    return {"ranking": rng.sample(shown, len(shown))}


def _judge_round(clients: Clients, rng: random.Random, page: bool) -> list[tuple[str, float]]:
    """One round, each request's seconds; none when the queue has nothing left."""
    took, leased = _timed(clients, Probe(NEXT, "/api/queue/next/?kind=comparison", "annotator", "post"))  # fmt: skip
    if leased.status_code == 204:
        return []
    comparison = orjson.loads(leased.content)["comparison"]
    spent = [(NEXT, took)]
    if page:
        from django.utils.html import escape

        took, shown = _timed(clients, Probe(PAGE, PAGE_PATH, "annotator"))
        if escape(comparison["prompt"]).encode() not in shown.content:
            raise BenchError(f"{PAGE} does not show comparison {comparison['id']}, leased")
        spent.append((PAGE, took))
    body = round_body([c["candidate_id"] for c in comparison["candidates"]], rng)
    path = f"/api/comparisons/{comparison['id']}/judgments/"
    judged = Probe(JUDGE, path, "annotator", "post", body=orjson.dumps(body))
    spent.append((JUDGE, _timed(clients, judged)[0]))
    return spent


def judge_rounds(
    clients: Clients, rounds: int, rng: random.Random, budget_s: float = 90.0
) -> dict[str, dict[str, Any]]:
    """`rounds` rounds of the judge (fewer if they take long), each request timed; one
    warm-up. Without a route for the judging page (not built yet), the API's alone."""
    page = routed(PAGE_PATH)
    if not page:
        log(f"{PAGE}: skipped: {PAGE_PATH} is not routed on this branch")
    times: dict[str, list[float]] = {label: [] for label in TARGETED}
    for n in range(rounds + 1):
        if n > 1 and sum(map(sum, times.values())) > budget_s:
            break
        spent = _judge_round(clients, rng, page)
        if not spent:
            log(f"{plan_of().slug}: nothing left in the queue after {n} rounds")
            break
        if n == 0:
            continue  # the warm-up
        for label, seconds in spent:
            times[label].append(seconds)
    out = {label: latency(found) | {"status": 200} for label, found in times.items() if found}
    if not page:
        out[PAGE] = {"skipped": f"{PAGE_PATH} is not routed on this branch"}
    return out


def others_lease(spec: ProjectPlan) -> int:
    """Every judge but the timed one holds a lease, as while people judge side by side."""
    from core.accounts.models import User
    from core.accounts.principals import principal_for_user
    from core.projects.selection import principal_in
    from feedback.comparisons.queue import comparison_next

    leased = 0
    for user in User.objects.filter(username__in=spec.annotators[1:]):
        if comparison_next(principal_in(principal_for_user(user), spec.slug)) is None:
            raise BenchError(f"{user.username}: the queue had no comparison for them")
        leased += 1
    return leased


def child_measure(*, rounds: int, seed: int) -> dict[str, Any]:
    """The judge's rounds, then the reviewer's reads, timed; the load average when it began."""
    from core.accounts.models import User

    spec = plan_of()
    people = {
        "annotator": User.objects.get(username=spec.annotators[0]),
        "reviewer": User.objects.get(username=spec.reviewer),
    }
    clients = Clients(people, project=spec.slug)
    held = others_lease(spec)
    load = [round(x, 2) for x in os.getloadavg()]
    log(f"comparisons: measuring {rounds} rounds (load average {load[0]})")
    figures = judge_rounds(clients, rounds, random.Random(seed))
    for label, path in READS.items():
        figures[label] = time_probe(clients, Probe(label, path), rounds)
    for label, found in figures.items():
        _say(label, found)
    return {"figures": figures, "others_leased": held, "load": load}
