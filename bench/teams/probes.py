"""Server time of the annotators' and reviewers' requests in one project, in-process (Django's
test client, no socket): a task of bench/child.py, run for the smallest and the largest project.

An annotator's round is what they do all day: `POST /api/queue/next/` (a fresh lease: the round
before rated its turn), the queue page showing it, the turn's rating page and
`POST /api/ratings/` with answers to the project's rubric. A reviewer reads the explorer and
agreement. The annotator is the project's most active one (the queue's scan passes every turn
they rated), the reviewer its own.
"""

from __future__ import annotations

import random
import time
from typing import Any

import orjson

from bench.annotation.probes import Clients, Probe, time_probe
from bench.harness.databases import BenchError
from bench.harness.figures import latency
from bench.harness.report import log
from bench.teams.data import ProjectPlan, TurnDraw, answers_for, plan

NEXT = "POST /api/queue/next/"
QUEUE_PAGE = "page /queue/ (the leased turn)"
RATE_PAGE = "page /turns/<pk>/ (rate one turn)"
RATE = "POST /api/ratings/"
# The four (and the rating itself), each a request or several: its target is each one's.
GROUPS = {
    "queue next": (NEXT, QUEUE_PAGE),
    "rating page": (RATE_PAGE, RATE),
    "explorer": (
        "page /explorer/",
        "page /explorer/?annotator=",
        "GET /api/feedback/ (first page)",
        "GET /api/feedback/?source=human&dimension=",
        "GET /api/feedback/?annotator=",
        "page /explorer/turns/<pk>/",
    ),
    "agreement": ("GET /api/agreement/?project=", "page /agreement/"),
}


def _dimension(spec: ProjectPlan) -> str:
    """A dimension the project's feedback rows rate: its first question that is one, else the
    protocol's default (what a rating on other questions is stored under)."""
    from learnportal_protocol import Feedback, FeedbackDimension

    keys = [q["key"] for q in spec.questions or [{"key": "correctness"}]]
    named = [k for k in keys if k in {d.value for d in FeedbackDimension}]
    default = Feedback.model_fields["dimension"].default
    return named[0] if named else str(default.value)


def _reads(spec: ProjectPlan, turn_pk: int) -> list[Probe]:
    annotator = spec.annotators[0]
    return [
        Probe("page /explorer/", "/explorer/"),
        Probe("page /explorer/?annotator=", "/explorer/", query={"annotator": annotator}),
        Probe("GET /api/feedback/ (first page)", "/api/feedback/"),
        Probe(
            "GET /api/feedback/?source=human&dimension=",
            "/api/feedback/",
            query={"source": "human", "dimension": _dimension(spec)},
        ),
        Probe("GET /api/feedback/?annotator=", "/api/feedback/", query={"annotator": annotator}),
        Probe("page /explorer/turns/<pk>/", f"/explorer/turns/{turn_pk}/"),
        Probe("GET /api/agreement/?project=", "/api/agreement/"),
        Probe("page /agreement/", "/agreement/"),
    ]


def annotator_rounds(
    clients: Clients, spec: ProjectPlan, rounds: int, rng: random.Random, budget_s: float = 90.0
) -> dict[str, dict[str, Any]]:
    """`rounds` annotator rounds (fewer if they take long), each request timed; one warm-up."""
    times: dict[str, list[float]] = {NEXT: [], QUEUE_PAGE: [], RATE_PAGE: [], RATE: []}
    spent = 0.0
    for n in range(rounds + 1):
        if n > 1 and spent > budget_s:
            break
        took, leased = _timed(clients, Probe(NEXT, "/api/queue/next/", "annotator", "post"))
        if leased.status_code == 204:
            log(f"{spec.slug}: nothing left in the queue after {n} rounds")
            break
        turn = orjson.loads(leased.content)["turn"]
        steps = [(NEXT, took)]
        steps.append((QUEUE_PAGE, _timed(clients, Probe(QUEUE_PAGE, "/queue/", "annotator"))[0]))
        page = Probe(RATE_PAGE, f"/turns/{turn['id']}/", "annotator")
        steps.append((RATE_PAGE, _timed(clients, page)[0]))
        draw = TurnDraw(
            fields={"response": turn["rated_turn"]["response"]}, raters=[], truth=rng.random(),
            flavour=rng.randrange(8),
        )  # fmt: skip
        body = {"turn": str(turn["id"]), "answers": answers_for(spec.questions, draw, spec.annotators[0], rng)}  # fmt: skip
        rate = Probe(RATE, "/api/ratings/", "annotator", "post", body=orjson.dumps(body))
        steps.append((RATE, _timed(clients, rate)[0]))
        if n == 0:
            continue  # the warm-up
        for label, seconds in steps:
            times[label].append(seconds)
            spent += seconds
    return {label: latency(found) | {"status": 200} for label, found in times.items() if found}


def _timed(clients: Clients, probe: Probe) -> tuple[float, Any]:
    t0 = time.perf_counter()
    response = clients.send(probe)
    elapsed = time.perf_counter() - t0
    if response.status_code >= 400:
        raise BenchError(f"{probe.label}: {response.status_code} {response.content[:300]!r}")
    return elapsed, response


def child_measure(
    *, projects: int, ratings: int, seed: int, slugs: list[str], requests: int
) -> dict[str, Any]:
    """Every request of an annotator and a reviewer of each project `slugs` names, timed."""
    from core.accounts.models import User
    from core.projects.models import Project
    from feedback.models import Turn

    plans = {p.slug: p for p in plan(projects, ratings, seed)}
    out: dict[str, Any] = {}
    for slug in slugs:
        spec = plans[slug]
        project = Project.objects.get(slug=slug)
        people = {
            "annotator": User.objects.get(username=spec.annotators[0]),
            "reviewer": User.objects.get(username=spec.reviewer),
        }
        clients = Clients(people, project=slug)
        rated = Turn.objects.filter(project=project, ratings_needed=0).order_by("id")
        turn_pk = rated.values_list("id", flat=True)[rated.count() // 2]
        figures: dict[str, Any] = annotator_rounds(clients, spec, requests, random.Random(seed))
        for probe in _reads(spec, turn_pk):
            figures[probe.label] = time_probe(clients, probe, requests)
        for label, found in figures.items():
            if "ms_p50" in found:
                log(
                    f"{slug} {label}: median {found['ms_p50']:.1f} ms, p95 {found['ms_p95']:.1f} ms"
                )
        out[slug] = figures
    return out
