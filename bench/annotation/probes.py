"""Server time of the workspace's endpoints and pages, in-process (Django's test client, no
socket), and a streamed export: tasks of bench/child.py.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from bench.harness.databases import BenchError
from bench.harness.figures import latency
from bench.harness.report import log


@dataclass(frozen=True)
class Probe:
    """One request to time: a path (skipped while nothing routes it) and who sends it."""

    label: str
    path: str
    who: str = "reviewer"  # reviewer or annotator; by session for pages, by token for /api/
    method: str = "get"
    query: dict[str, str] = field(default_factory=dict)
    new_rating: bool = False  # a new human rating before each request (not timed)
    body: bytes = b"{}"  # a POST's


def routed(path: str) -> bool:
    """Whether a view of its own serves `path` (not the JSON 404 of every other api/ URL)."""
    from django.urls import Resolver404, resolve

    try:
        match = resolve(path)
    except Resolver404:
        return False
    return match.url_name != "api-not-found"


class Clients:
    """Django test clients for the bench's people: a session for pages, a token for /api/.

    Without `people`, a reviewer and an annotator of the `default` project made for the bench;
    with `project`, every request acts in it (the session's chosen project, `?project=`)."""

    def __init__(self, people: dict[str, Any] | None = None, project: str = "") -> None:
        from django.test import Client

        from core.accounts.models import ApiToken, User
        from core.projects.chosen import CHOSEN_PROJECT_KEY
        from core.projects.services import default_project, member_set

        if people is None:
            people = {}
            for role in ("reviewer", "annotator"):
                user, _ = User.objects.get_or_create(username=f"bench-{role}")
                member_set(project=default_project(), person=user, role=role)
                people[role] = user
        self.project = project
        self.session: dict[str, Any] = {}
        self.token: dict[str, Any] = {}
        for who, user in people.items():
            _, raw = ApiToken.issue(name=f"bench-{who}-{time.time_ns()}", user=user)
            session = Client()
            session.force_login(user)
            if project:
                chosen = session.session
                chosen[CHOSEN_PROJECT_KEY] = project
                chosen.save()
            self.session[who] = session
            self.token[who] = Client(headers={"Authorization": f"Bearer {raw}"})

    def send(self, probe: Probe, path: str | None = None) -> Any:
        api = probe.path.startswith("/api/")
        client = (self.token if api else self.session)[probe.who]
        call = getattr(client, probe.method)
        target = path or probe.path
        in_project = {"project": self.project} if api and self.project else {}
        if probe.method == "post":
            if in_project:
                target += ("&" if "?" in target else "?") + urlencode(in_project)
            return call(target, data=probe.body, content_type="application/json")
        # A query given replaces the path's own (Django's test client): the project goes in it.
        return call(target, probe.query | in_project)


def time_probe(clients: Clients, probe: Probe, requests: int, budget_s: float = 20.0) -> Any:
    """Median and p95 of `requests` requests after one warm-up; fewer when one takes long."""
    if not routed(probe.path):
        note = f"skipped: {probe.method.upper()} {probe.path} is not routed on this branch"
        log(f"{probe.label}: {note}")
        return {"skipped": note}
    first = clients.send(probe)
    if first.status_code >= 400:
        raise BenchError(f"{probe.label}: {first.status_code} {first.content[:300]!r}")
    times: list[float] = []
    spent = 0.0
    while len(times) < requests and (spent < budget_s or len(times) < 3):
        if probe.new_rating:
            _new_rating(len(times))
        t0 = time.perf_counter()
        response = clients.send(probe)
        if hasattr(response, "streaming_content"):
            for _ in response.streaming_content:
                pass
        elapsed = time.perf_counter() - t0
        if response.status_code >= 400:
            raise BenchError(f"{probe.label}: {response.status_code}")
        times.append(elapsed)
        spent += elapsed
    return latency(times) | {"status": first.status_code}


def _new_rating(n: int) -> None:
    """One more human score on a rated turn, written as the feedback service writes rows."""
    from django.db import transaction

    from feedback.counters import FEEDBACK_COUNTED, counter_add
    from feedback.models import Feedback, project_of
    from feedback.moments import moments_recount

    row = Feedback.objects.filter(source="human").order_by("id").first()
    assert row is not None
    row.pk = None
    row.feedback_id = f"bench-fresh-{time.time_ns()}-{n}"
    row.annotator_id = f"bench-fresh-{n}"
    with transaction.atomic():
        row.save()
        # What the feedback service does with a new row, in its transaction.
        counter_add(FEEDBACK_COUNTED, 1, project=project_of(row))
        moments_recount(project_of(row), [(row.correlation_id, row.dimension)])


def now_probes(turn_pk: int) -> list[Probe]:
    """What main serves today."""
    from feedback.filters import encode_turn_cursor

    return [
        Probe("GET /api/agreement/", "/api/agreement/"),
        Probe("GET /api/agreement/ (after a new rating)", "/api/agreement/", new_rating=True),
        Probe("GET /api/turns/ (first page)", "/api/turns/", "annotator"),
        Probe(
            "GET /api/turns/?component_name=",
            "/api/turns/",
            "annotator",
            query={"component_name": "component-07"},
        ),
        Probe("page /agreement/", "/agreement/"),
        Probe("page / (overview)", "/", "annotator"),
        Probe("page /turns/ (queue list)", "/turns/", "annotator"),
        Probe(
            "page /turns/ (cursor 100k turns deep)",
            "/turns/",
            "annotator",
            query={"cursor": encode_turn_cursor(turn_pk)},
        ),
        Probe(
            "page /turns/?component=&open=1",
            "/turns/",
            "annotator",
            query={"component": "component-07", "open": "1"},
        ),
        Probe("page /turns/<pk>/ (rate one turn)", f"/turns/{turn_pk}/", "annotator"),
        Probe("page /plans/", "/plans/"),
        Probe("page /history/", "/history/"),
    ]


def workspace_probes(turn_pk: int) -> list[Probe]:
    """What the workspace branches add: measured as soon as their paths are routed."""
    return [
        Probe("GET /api/feedback/ (first page)", "/api/feedback/"),
        Probe(
            "GET /api/feedback/?source=human&dimension=correctness",
            "/api/feedback/",
            query={"source": "human", "dimension": "correctness"},
        ),
        Probe(
            "GET /api/feedback/?component=&has_correction=true",
            "/api/feedback/",
            query={"component": "component-07", "has_correction": "true"},
        ),
        Probe("page /explorer/", "/explorer/"),
        Probe("page /explorer/?source=human", "/explorer/", query={"source": "human"}),
        Probe("page /explorer/turns/<pk>/", f"/explorer/turns/{turn_pk}/"),
        Probe("page /queue/", "/queue/", "annotator"),
        Probe("POST /api/queue/next/", "/api/queue/next/", "annotator", method="post"),
    ]


def deep_cursor(clients: Clients, requests: int, pages: int = 40) -> Any:
    """`GET /api/feedback/` 20k rows deep: follow `next` 40 pages of 500, then time that page."""
    from urllib.parse import parse_qsl, urlsplit

    probe = Probe("GET /api/feedback/ (cursor 20k rows deep)", "/api/feedback/")
    if not routed(probe.path):
        return time_probe(clients, probe, requests)
    url = "/api/feedback/?limit=500"
    for _ in range(pages):
        response = clients.send(probe, url)
        if response.status_code != 200:
            raise BenchError(f"{probe.label}: {response.status_code} {response.content[:300]!r}")
        following = response.json().get("next")
        if not following:
            break
        url = following
    parts = urlsplit(url)
    deep = Probe(probe.label, parts.path, query=dict(parse_qsl(parts.query)))
    return time_probe(clients, deep, requests) | {"depth_rows": pages * 500}


def child_measure(*, requests: int) -> dict[str, Any]:
    from feedback.models import Turn

    clients = Clients()
    # A turn that people rated, near the middle of the queue.
    turn_pk = Turn.objects.order_by("id").values_list("id", flat=True)[Turn.objects.count() // 2]
    out: dict[str, Any] = {}
    for probe in now_probes(turn_pk):
        out[probe.label] = time_probe(clients, probe, requests)
        _say(probe.label, out[probe.label])
    for probe in workspace_probes(turn_pk):
        out[probe.label] = time_probe(clients, probe, requests)
        _say(probe.label, out[probe.label])
    deep = deep_cursor(clients, requests)
    out["GET /api/feedback/ (cursor 20k rows deep)"] = deep
    _say("GET /api/feedback/ (cursor 20k rows deep)", deep)
    return out


def _say(label: str, figures: dict[str, Any]) -> None:
    if "ms_p50" in figures:
        log(f"{label}: median {figures['ms_p50']:.1f} ms, p95 {figures['ms_p95']:.1f} ms")


def _peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_export(*, kind: str) -> dict[str, Any]:
    """Stream one export of every row in this process: rows/s and the process's peak RSS."""
    path = f"/api/exports/{kind}.jsonl"
    if not routed(path):
        note = f"skipped: GET {path} is not routed on this branch"
        log(f"export {kind}: {note}")
        return {"skipped": note}
    clients = Clients()
    before = _peak_rss_mb()
    t0 = time.perf_counter()
    response = clients.send(Probe(f"export {kind}", path))
    if response.status_code != 200:
        raise BenchError(f"export {kind}: {response.status_code} {response.content[:300]!r}")
    lines = 0
    size = 0
    for chunk in response.streaming_content:
        lines += chunk.count(b"\n")
        size += len(chunk)
    elapsed = time.perf_counter() - t0
    return {
        "rows": lines,
        "bytes": size,
        "seconds": elapsed,
        "rows_s": lines / elapsed if elapsed else 0.0,
        "rss_before_mb": before,
        "rss_peak_mb": _peak_rss_mb(),
    }
