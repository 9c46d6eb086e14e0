"""Server time of the components pages at 10k and 1M calls against a bare view that reads the
same rows, and what keeping the hour buckets costs ingest: `child_run`, a task of bench/child.py.
"""

from __future__ import annotations

import contextlib
import statistics
import time
from typing import Any

from bench.harness.databases import BenchError
from bench.harness.figures import latency
from bench.harness.report import log
from bench.pages.record import BATCH, COMPONENTS, SHOWN, SPAN_S, _record, _revisions


def bare_view(request: Any, name: str) -> Any:
    """The baseline: the rows the component page reads, and no page around them."""
    from django.http import JsonResponse

    from core.accounts.principals import principal_for_user
    from core.projects.selection import project_pk
    from feedback.selectors import (
        component_durations,
        component_feedback,
        component_hours,
        component_records,
    )
    from refinement import component_pages
    from refinement.selectors import component_weight, weight_history

    principal = principal_for_user(request.user)
    project = project_pk(principal.project)
    records = component_records(project, name)
    hours = component_hours(project, name, component_pages.HOURS_SHOWN)
    changes = weight_history(project, name, limit=component_pages.WEIGHT_POINTS)
    durations = component_durations(project, name, component_pages.HISTOGRAM_BINS)
    shown = component_feedback(name, viewer=principal, limit=component_pages.FEEDBACK_SHOWN)
    return JsonResponse(
        {
            "records": len(records),
            "weight": component_weight(project, name),
            "hours": len(hours),
            "changes": len(changes),
            "bins": len(durations.counts) if durations else 0,
            "feedback": len(shown),
        }
    )


urlpatterns: list[Any] = []  # the child's URLconf: the portal's, and the baseline's route


def _urls() -> None:
    from django.urls import include, path

    urlpatterns[:] = [
        path("bench/bare/<path:name>/", bare_view),
        path("", include("learnportal.urls")),
    ]


def _time(client: Any, path: str, requests: int) -> dict[str, Any]:
    first = client.get(path)
    if first.status_code != 200:
        raise BenchError(f"{path}: {first.status_code} {first.content[:300]!r}")
    times = []
    for _ in range(requests):
        t0 = time.perf_counter()
        response = client.get(path)
        times.append(time.perf_counter() - t0)
        if response.status_code != 200:
            raise BenchError(f"{path}: {response.status_code}")
    return latency(times) | {"bytes": len(first.content)}


PROBES = {
    "page /components/": "/components/",
    f"page /components/{SHOWN}/": f"/components/{SHOWN}/",
    f"bare view, same rows ({SHOWN})": f"/bench/bare/{SHOWN}/",
}


def _measure(requests: int) -> dict[str, Any]:
    from django.db import connection
    from django.test import Client, override_settings

    from core.accounts.models import User
    from core.projects.services import default_project, member_set
    from feedback.models import ComponentBucket, ComponentStats, Experience, Feedback

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    user, _ = User.objects.get_or_create(username="bench-reviewer")
    member_set(project=default_project(), person=user, role="reviewer")
    client = Client()
    client.force_login(user)
    out: dict[str, Any] = {
        "calls": sum(ComponentStats.objects.values_list("calls_total", flat=True)),
        "experiences": Experience.objects.count(),
        "feedback": Feedback.objects.count(),
        "buckets": ComponentBucket.objects.count(),
        "requests": {},
    }
    with override_settings(ROOT_URLCONF=__name__):
        for label, path in PROBES.items():
            out["requests"][label] = figures = _time(client, path, requests)
            log(f"{label}: median {figures['ms_p50']:.1f} ms, p95 {figures['ms_p95']:.1f} ms")
    return out


def _ingest_share(hours: int, batches: int = 20) -> dict[str, Any]:
    """What keeping the buckets adds to ingest: 1000-call batches through `experience_store`
    and `feedback_record` (a score each) whose items span `hours` hours, alternately with the
    bucket upserts and without (`feedback.buckets.buckets_left_out`, the ingest's what-if
    switch), on the same tables in the same run."""
    from core.accounts.principals import Principal
    from core.accounts.roles import Role
    from feedback.buckets import buckets_left_out
    from feedback.services.experiences import experience_store
    from feedback.services.feedbacks import feedback_record
    from learnportal_protocol import Experience, FeedbackPolarity
    from learnportal_protocol import Feedback as FeedbackItem
    from learnportal_protocol.models import Action
    from refinement.store import behaviour_policy

    agent = Principal(role=Role.AGENT, name="bench-share", is_human=False)
    times: dict[bool, list[float]] = {True: [], False: []}
    now = time.time()
    for n in range(2 * batches):
        with_buckets = n % 2 == 0
        calls = [
            Experience(
                experience_id=f"share-{hours}-{n}-{i}",
                reward=1.0,
                ts=now - 3600 * (i % hours),
                action=Action(component_name=COMPONENTS[i % 10], duration_ms=10.0, success=True),
            )
            for i in range(BATCH)
        ]
        scores = [
            FeedbackItem(
                feedback_id=f"share-{hours}-{n}-{i}",
                component_name=COMPONENTS[i % 10],
                score=0.5,
                polarity=FeedbackPolarity.POSITIVE,
                ts=now - 3600 * (i % hours),
            )
            for i in range(BATCH)
        ]
        with contextlib.nullcontext() if with_buckets else buckets_left_out():
            t0 = time.perf_counter()
            experience_store(principal=agent, experiences=calls, policy=behaviour_policy)
            feedback_record(principal=agent, feedbacks=scores)
            times[with_buckets].append(time.perf_counter() - t0)
    with_ms = 1000 * statistics.median(times[True])
    without_ms = 1000 * statistics.median(times[False])
    return {"hours": hours, "batches": batches, "with_ms": with_ms, "without_ms": without_ms}


def child_run(*, small: int, large: int, requests: int) -> dict[str, Any]:
    _urls()
    start = time.time() - SPAN_S
    log(f"components: recording {small:,} calls")
    seconds = _record(small, start, seed=1)
    _revisions(start)
    at_small = _measure(requests) | {"record_s": seconds}
    log(f"components: recording up to {large:,} calls")
    seconds = _record(large, start, seed=2)
    at_large = _measure(requests) | {"record_s": seconds}
    shares = [_ingest_share(hours) for hours in (1, 24)]
    for share in shares:
        log(
            f"ingest over {share['hours']} h: with buckets {share['with_ms']:.1f} ms, "
            f"without {share['without_ms']:.1f} ms"
        )
    return {"small": at_small, "large": at_large, "ingest": shares}
