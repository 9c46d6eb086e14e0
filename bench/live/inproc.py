"""Tasks of `python -m bench` inside the app's own process (bench/child.py runs them there).

- `meta`: the tables and columns the ingest services write.
- `seed_calls`: record calls through `experience_store` (the app's parse and aggregate path:
  ComponentStats counters and the duration sketch) until the total reaches a target.
- `profile`: where one request's time goes: the app's stages (core/timing.py) and Django's
  COMMIT, exclusive, the garbage collector, the whole `dispatch`, the whole Django/DRF stack
  (test client, no server), and a cProfile listing.
- `insert_variants`: the same 1000 rows written four ways.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from bench.harness.profiles import GcTimer, commit_staged, profiled
from bench.harness.rawdb import driver_insert
from core.timing import recording


def meta() -> dict[str, Any]:
    from feedback.models import ComponentStats, Experience, Feedback
    from feedback.services.rows import EXPERIENCE_COLUMNS, FEEDBACK_COLUMNS

    return {
        "feedback": {"table": Feedback._meta.db_table, "columns": list(FEEDBACK_COLUMNS)},
        "experience": {"table": Experience._meta.db_table, "columns": list(EXPERIENCE_COLUMNS)},
        "stats_table": ComponentStats._meta.db_table,
    }


def calls_total() -> int:
    from django.db.models import Sum

    from feedback.models import ComponentStats

    return int(ComponentStats.objects.aggregate(n=Sum("calls_total"))["n"] or 0)


def seed_calls(*, token: str, target: int, batch: int = 1000) -> dict[str, Any]:
    import random

    from django.conf import settings

    from bench.harness.payloads import envelope, experience_item
    from core.accounts.principals import principal_for_token
    from feedback.services.experiences import experience_store
    from learnportal_protocol import parse_request
    from learnportal_protocol.messages import LearnExperienceRequest
    from refinement.store import behaviour_policy

    principal = principal_for_token(token)
    if principal is None:
        raise SystemExit("unknown seeder token")
    start_total = calls_total()
    # A new seed for each call: the same experience ids again would be (rightly) deduplicated.
    rng = random.Random(start_total + 7)
    remaining = target - start_total
    start = time.perf_counter()
    n = 0
    while remaining > 0:
        size = min(batch, remaining)
        body = envelope("experience", [experience_item(rng) for _ in range(size)], f"seed-{n}")
        request = parse_request(body, max_batch=settings.LEARNPORTAL_MAX_BATCH)
        assert isinstance(request, LearnExperienceRequest)
        experience_store(
            principal=principal, experiences=request.experiences, policy=behaviour_policy
        )
        remaining -= size
        n += 1
    elapsed = time.perf_counter() - start
    return {"seconds": elapsed, "batches": n, "calls_total": calls_total(), "from": start_total}


def profile(*, token: str, kind: str, batches: int, size: int) -> dict[str, Any]:

    from django.test import Client

    from bench.harness.payloads import batches as make_batches
    from bench.harness.payloads import stats_body
    from core.accounts.principals import principal_for_token
    from learnportal import dispatch

    principal = principal_for_token(token)
    if principal is None:
        raise SystemExit("unknown token")
    if kind == "stats":
        bodies = [stats_body("", f"p{i}") for i in range(batches * 3 + 2)]
    else:
        bodies = [body for _ids, body in make_batches(kind, batches * 3 + 2, size, seed=4242)]
    # Warm up both paths first: imports, the connection, the first pages.
    warm_dispatch, warm_stack, bodies = bodies[0], bodies[1], bodies[2:]
    timed, under_profiler, stacked = (
        bodies[:batches],
        bodies[batches : 2 * batches],
        bodies[2 * batches :],
    )
    dispatch.dispatch(principal, warm_dispatch)

    # The whole dispatch path (parse, services, database, response), no HTTP, stage by stage.
    gc_timer = GcTimer()
    with recording() as stages, commit_staged(), gc_timer.watching():
        t0 = time.perf_counter()
        for body in timed:
            reply = dispatch.dispatch(principal, body)
            if reply.status != 200:
                raise SystemExit(f"dispatch answered {reply.status}: {reply.body}")
        dispatch_s = time.perf_counter() - t0

    listing = profiled(lambda: [dispatch.dispatch(principal, body) for body in under_profiler], 30)

    # The whole Django + DRF stack in-process (middleware, auth, view), without a server.
    client = Client(HTTP_AUTHORIZATION=f"Bearer {token}")
    client.post("/api/learn/", data=warm_stack, content_type="application/json")
    t0 = time.perf_counter()
    for body in stacked:
        response = client.post("/api/learn/", data=body, content_type="application/json")
        if response.status_code != 200:
            raise SystemExit(f"test client answered {response.status_code}")
    stack_s = time.perf_counter() - t0

    n = len(timed)
    steps = [
        {"what": label, "ms": 1000 * seconds / n}
        for label, seconds in sorted(stages.seconds.items(), key=lambda kv: -kv[1])
    ]
    accounted = stages.total
    return {
        "kind": kind,
        "requests": n,
        "items_per_request": size if kind != "stats" else 0,
        "ms_dispatch": 1000 * dispatch_s / n,
        "ms_django_stack": 1000 * stack_s / len(stacked),
        "steps": steps,
        "ms_rest": 1000 * (dispatch_s - accounted) / n,
        "ms_gc": 1000 * gc_timer.seconds / n,
        "gc_collections": [c / n for c in gc_timer.collections],
        "top_tottime": listing["text"],
    }


def insert_variants(*, kind: str, rounds: int = 6) -> dict[str, Any]:
    """The same 1000 rows (copied from what the API stored) written four ways, each in its own
    transaction, interleaved round by round: what the write method itself costs."""

    from django.db import connection, transaction

    from feedback.bulk import insert_rows
    from feedback.models import Experience, Feedback
    from feedback.services.rows import EXPERIENCE_COLUMNS, FEEDBACK_COLUMNS

    model, columns = (
        (Feedback, FEEDBACK_COLUMNS) if kind == "feedback" else (Experience, EXPERIENCE_COLUMNS)
    )
    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(connection.ops.quote_name(c) for c in columns)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {names} FROM {table} ORDER BY id LIMIT 1000")
        template = cursor.fetchall()
    if len(template) < 1000:
        raise SystemExit(f"insert_variants: only {len(template)} {kind} rows to copy")
    vendor = connection.vendor
    counter = [0]

    def fresh_rows() -> list[tuple[Any, ...]]:
        counter[0] += 1
        return [(f"v{counter[0]}-{row[0]}", *row[1:]) for row in template]

    def django_executemany(rows: list[tuple[Any, ...]]) -> None:
        insert_rows(model, columns, rows)

    def multi_values(rows: list[tuple[Any, ...]]) -> None:
        marks = "(" + ", ".join(["%s"] * len(columns)) + ")"
        chunk = 30000 // len(columns)  # stay under the drivers' parameter limits
        with connection.cursor() as cursor:
            for start in range(0, len(rows), chunk):
                part = rows[start : start + chunk]
                params = [value for row in part for value in row]
                values = ", ".join([marks] * len(part))
                cursor.execute(f"INSERT INTO {table} ({names}) VALUES {values}", params)

    def driver_bulk(rows: list[tuple[Any, ...]]) -> None:
        driver_insert(connection.connection, vendor, model._meta.db_table, columns, rows)

    variants = {
        "django_executemany": django_executemany,
        "multi_row_values": multi_values,
        "driver_copy" if vendor == "postgresql" else "driver_executemany": driver_bulk,
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    connection.ensure_connection()
    for _ in range(rounds):
        for name, write in variants.items():
            rows = fresh_rows()
            t0 = time.perf_counter()
            with transaction.atomic():
                write(rows)
            times[name].append(time.perf_counter() - t0)
    return {
        "vendor": vendor,
        "rows": 1000,
        "ms": {name: 1000 * statistics.median(ts[1:]) for name, ts in times.items()},
    }
