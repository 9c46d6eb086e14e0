"""`python -m bench.components`: the components pages at 10k and at 1M recorded calls.

1. On one fresh database (SQLite, or PostgreSQL with --database-url / $DATABASE_URL), records
   calls through `feedback.services.experiences.experience_store` and scores through
   `feedback_record` (the ingest path, which keeps the hourly buckets), spread over 60 days, for
   10 components, and 2,000 revisions of one component's weight (an adapt's worth of history).
2. At 10k calls, then again at 1M, measures server time in-process (Django's test client, no
   socket, DJANGO_DEBUG=0): the list `/components/`, one component's page with its charts, and
   the baseline in the same run, a bare Django view that reads the same rows (the record, the
   buckets, the sketch, the weight's revisions, the newest feedback) and renders nothing.
3. Prints the figures and writes them into BENCHMARKS.md ("Components pages").

Flat means the page at 1M costs what it costs at 10k, and what the bare read costs grows no
more: both read a bounded number of aggregate rows, never the calls.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from typing import Any

import orjson

from bench import report
from bench.environment import ROOT, BenchError, Database, app_env, manage

FULL = {"small": 10_000, "large": 1_000_000, "requests": 30}
QUICK = {"small": 10_000, "large": 100_000, "requests": 10}
COMPONENTS = [f"tool-{i:02d}" for i in range(10)]
SHOWN = "tool-03"
SPAN_S = 60 * 86_400.0
BATCH = 1000
FEEDBACK_PER_CALLS = 5  # one score a fifth of the calls
REVISIONS = 2000
CHILD = sys.argv[1:2] == ["child"]
FLAT_GOAL = 1.5  # the page at 1M calls within 1.5x its time at 10k


def log(message: str) -> None:
    stream = sys.stderr if CHILD else sys.stdout
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=stream, flush=True)


# --- inside the app's process ------------------------------------------------------------------


def _setup() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "learnportal.settings")
    import django

    django.setup()


def _record(target: int, start: float, seed: int) -> float:
    """Calls (and a score for every fifth) through the ingest services up to `target` calls in
    all, their ts spread evenly over SPAN_S from `start`: seconds taken."""
    from core.accounts.principals import Principal
    from core.accounts.roles import Role
    from feedback.models import ComponentStats
    from feedback.services.experiences import experience_store
    from feedback.services.feedbacks import feedback_record
    from learnportal_protocol import Experience, FeedbackPolarity
    from learnportal_protocol import Feedback as FeedbackItem
    from learnportal_protocol.models import Action
    from refinement.store import behaviour_policy

    agent = Principal(role=Role.AGENT, name="bench-agent", is_human=False)
    rng = random.Random(seed)
    done = sum(ComponentStats.objects.values_list("calls_total", flat=True))
    t0 = time.perf_counter()
    while done < target:
        size = min(BATCH, target - done)
        calls, scores = [], []
        for i in range(done, done + size):
            component = COMPONENTS[i % len(COMPONENTS)]
            ts = start + SPAN_S * i / target if target else start
            good = rng.random() < 0.5 + 0.04 * (i % len(COMPONENTS))
            calls.append(
                Experience(
                    experience_id=f"c-{i}",
                    reward=1.0 if good else -1.0,
                    ts=ts,
                    action=Action(
                        component_name=component,
                        duration_ms=round(rng.lognormvariate(5.0, 0.7), 2),
                        success=good,
                    ),
                )
            )
            if (i // len(COMPONENTS)) % FEEDBACK_PER_CALLS == 0:  # every component's
                score = max(-1.0, min(1.0, rng.gauss(0.3 if good else -0.3, 0.4)))
                scores.append(
                    FeedbackItem(
                        feedback_id=f"f-{i}",
                        component_name=component,
                        score=score,
                        polarity=FeedbackPolarity.POSITIVE
                        if score >= 0
                        else FeedbackPolarity.NEGATIVE,
                        ts=ts,
                    )
                )
        experience_store(principal=agent, experiences=calls, policy=behaviour_policy)
        feedback_record(principal=agent, feedbacks=scores)
        done += size
        if done % 100_000 == 0:
            log(f"components: {done:,} calls recorded")
    return time.perf_counter() - t0


def _revisions(start: float) -> None:
    """A weight's history as a long run of adapts leaves it: REVISIONS changes of one path."""
    from refinement.models import Revision, StoreValue
    from refinement.paths import WEIGHT_PREFIX

    path = WEIGHT_PREFIX + SHOWN
    rng = random.Random(5)
    value, rows = 0.5, []
    for n in range(REVISIONS):
        after = min(1.0, max(0.0, value + rng.uniform(-0.1, 0.1)))
        ts = start + SPAN_S * n / REVISIONS
        rows.append(Revision(path=path, version=n + 1, before=value, after=after, actor="bench",
                             ts=ts))  # fmt: skip
        value = after
    Revision.objects.bulk_create(rows, batch_size=500)
    StoreValue.objects.update_or_create(
        path=path, defaults={"value": value, "version": REVISIONS, "updated": time.time()}
    )


def bare_view(request: Any, name: str) -> Any:
    """The baseline: the rows the component page reads, and no page around them."""
    from django.http import JsonResponse

    from core.accounts.principals import principal_for_user
    from feedback.selectors.components import (
        component_durations,
        component_feedback,
        component_hours,
        component_records,
    )
    from refinement import component_pages
    from refinement.selectors import component_weight, weight_history

    principal = principal_for_user(request.user)
    records = component_records(name)
    hours = component_hours(name, component_pages.HOURS_SHOWN)
    changes = weight_history(name, limit=component_pages.WEIGHT_POINTS)
    durations = component_durations(name, component_pages.HISTOGRAM_BINS)
    shown = component_feedback(name, viewer=principal, limit=component_pages.FEEDBACK_SHOWN)
    return JsonResponse(
        {
            "records": len(records),
            "weight": component_weight(name),
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
    ordered = sorted(times)
    return {
        "n": len(times),
        "ms_p50": 1000 * statistics.median(times),
        "ms_p95": 1000 * ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))],
        "bytes": len(first.content),
    }


PROBES = {
    "page /components/": "/components/",
    f"page /components/{SHOWN}/": f"/components/{SHOWN}/",
    f"bare view, same rows ({SHOWN})": f"/bench/bare/{SHOWN}/",
}


def _measure(requests: int) -> dict[str, Any]:
    from django.db import connection
    from django.test import Client, override_settings

    from core.accounts.models import User
    from feedback.models import ComponentBucket, ComponentStats, Experience, Feedback

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    user, _ = User.objects.get_or_create(username="bench-reviewer", defaults={"role": "reviewer"})
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
    bucket upserts and without (patched out), on the same tables in the same run."""
    from core.accounts.principals import Principal
    from core.accounts.roles import Role
    from feedback.services import experiences, feedbacks
    from feedback.services.experiences import experience_store
    from feedback.services.feedbacks import feedback_record
    from learnportal_protocol import Experience, FeedbackPolarity
    from learnportal_protocol import Feedback as FeedbackItem
    from learnportal_protocol.models import Action
    from refinement.store import behaviour_policy

    agent = Principal(role=Role.AGENT, name="bench-share", is_human=False)
    # The services' own references (they import the functions by name), patched and put back.
    names = [
        (experiences, "buckets_add_experiences"),
        (experiences, "buckets_add_feedback"),
        (feedbacks, "buckets_add_feedback"),
    ]
    kept = {(module, name): getattr(module, name) for module, name in names}
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
        for module, name in names:
            setattr(module, name, kept[(module, name)] if with_buckets else _skip)
        t0 = time.perf_counter()
        experience_store(principal=agent, experiences=calls, policy=behaviour_policy)
        feedback_record(principal=agent, feedbacks=scores)
        times[with_buckets].append(time.perf_counter() - t0)
    for module, name in names:
        setattr(module, name, kept[(module, name)])
    with_ms = 1000 * statistics.median(times[True])
    without_ms = 1000 * statistics.median(times[False])
    return {"hours": hours, "batches": batches, "with_ms": with_ms, "without_ms": without_ms}


def _skip(*_args: Any, **_kwargs: Any) -> None:
    return None


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


def child(env: dict[str, str], task: str, **kwargs: Any) -> Any:
    result = subprocess.run(
        [sys.executable, "-m", "bench.components", "child", task, orjson.dumps(kwargs).decode()],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=None,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise BenchError(f"bench.components {task} failed (exit {result.returncode})")
    return orjson.loads(result.stdout.strip().splitlines()[-1])["result"]


# --- the report --------------------------------------------------------------------------------


def block(results: dict[str, Any]) -> str:
    meta, small, large = results["meta"], results["small"], results["large"]
    lines = [
        f"### {report.DB_TITLE[meta['database']]}: {meta['started']}",
        "",
        f"- Machine: {meta['nproc']} x {meta['cpu']}, {meta['memory']} RAM; Python "
        f"{meta['python']}; {meta['db_version']}.",
        f"- Command: `{meta['command']}`; took {meta['seconds'] / 60:.1f} min. Load average "
        f"(1 min) at start / end: {meta['load'][0]} / {meta['load'][1]}.",
        f"- Data: {len(COMPONENTS)} components; calls and scores (one a fifth of the calls) "
        f"through the ingest services, over 60 days; {REVISIONS:,} revisions of `{SHOWN}`'s "
        f"weight. At the large point: {large['experiences']:,} experiences, "
        f"{large['feedback']:,} feedback rows, {large['buckets']:,} hourly buckets; recorded at "
        f"{(large['calls'] - small['calls']) / large['record_s']:,.0f} calls/s (with their "
        "scores).",
        "",
        "Server time in-process (Django test client, no socket; DJANGO_DEBUG=0), median "
        "(p95) in ms:",
        "",
    ]
    rows = []
    for label in PROBES:
        a, b = small["requests"][label], large["requests"][label]
        rows.append(
            [
                label,
                f"{a['ms_p50']:.1f} ({a['ms_p95']:.1f})",
                f"{b['ms_p50']:.1f} ({b['ms_p95']:.1f})",
                f"{b['ms_p50'] / a['ms_p50']:.2f}x",
            ]
        )
    calls = f"{small['calls'] / 1e3:g}k", f"{large['calls'] / 1e6:g}M"
    lines.append(
        report._table(
            ["request", f"at {calls[0]} calls", f"at {calls[1]} calls", "large / small"],
            rows,
            "lrrr",
        )
    )
    page = large["requests"][f"page /components/{SHOWN}/"]
    bare = large["requests"][f"bare view, same rows ({SHOWN})"]
    ratio = page["ms_p50"] / small["requests"][f"page /components/{SHOWN}/"]["ms_p50"]
    lines += [
        "",
        f"- The component page at {calls[1]} calls against {calls[0]}: **{ratio:.2f}x** "
        f"{report.verdict(ratio <= FLAT_GOAL)} (flat: within {FLAT_GOAL}x).",
        f"- The page against the bare read of the same rows, at {calls[1]}: "
        f"{page['ms_p50'] / bare['ms_p50']:.1f}x (what rendering the page, its charts and "
        "its session add).",
    ]
    for share in results.get("ingest", []):
        lines.append(
            f"- What keeping the buckets adds to ingest, a batch of {BATCH:,} calls and "
            f"{BATCH:,} scores over {share['hours']} hour(s) of 10 components: "
            f"{share['with_ms']:.1f} ms with the bucket upserts, {share['without_ms']:.1f} ms "
            f"without (median of {share['batches']} each, alternating): "
            f"{100 * (share['with_ms'] / share['without_ms'] - 1):+.1f}%."
        )
    return "\n".join(lines) + "\n"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.components", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--quick", action="store_true", help="100k calls instead of 1M")
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL", ""),
        help="a PostgreSQL server's admin URL (default: $DATABASE_URL; unset: SQLite)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the bench database")
    parser.add_argument(
        "--output",
        default=None,
        help="the markdown file whose block is replaced (default BENCHMARKS.md, none with "
        "--quick; '-' for none)",
    )
    return parser.parse_args(argv)


def _terminate(signum: int, _frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    if (argv or sys.argv[1:])[:1] == ["child"]:
        task, raw = sys.argv[2], sys.argv[3]
        _setup()
        result = {"run": child_run}[task](**orjson.loads(raw))
        sys.stdout.write("\n" + orjson.dumps({"result": result}).decode() + "\n")
        return 0
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    sizes = QUICK if args.quick else FULL
    database = Database(args.database_url or None, keep=args.keep)
    record = report.RunRecord("components", database, argv or sys.argv[1:])
    log(f"components bench on {database.kind}")
    try:
        env = app_env(database.create("components"), debug=False)
        manage(env, "migrate", "--no-input", "-v", "0")
        results = child(env, "run", **sizes)
    except BenchError as exc:
        print(f"bench.components failed: {exc}", file=sys.stderr)
        return 1
    finally:
        database.drop_all()
    record.finish(results, block, output=args.output, suffix="-quick" if args.quick else "")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
