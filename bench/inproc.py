"""Work done inside the app's own process: `python -m bench.inproc TASK JSON-ARGS`.

Run as a subprocess with a section's environment, so that Django is set up against that
section's fresh database. Prints one JSON object on its last line of stdout.

Tasks:
- `meta`: the tables and columns the ingest services write (feedback/services/rows.py).
- `seed_calls`: record calls through `feedback.services.experiences.experience_store` (the app's
  parse and aggregate path: ComponentStats counters and the duration sketch) until the total
  reaches a target.
- `profile`: where the time of one request goes, measured in-process: parse, content hashes, the
  whole `dispatch`, the whole Django/DRF stack (test client, no server), and a cProfile listing.
"""

from __future__ import annotations

import cProfile
import io
import os
import pstats
import sys
import time
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from collections.abc import Callable

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "learnportal.settings")


def _setup() -> None:
    import django

    django.setup()


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

    from bench.payloads import envelope, experience_item
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


# --- profile --------------------------------------------------------------------------------

# (module, attribute, label): the steps of one request, timed exclusively (a step's time excludes
# the steps called inside it), with two perf_counter calls each instead of a tracing profiler.
PHASES = [
    ("learnportal.dispatch", "parse_request", "parse: orjson + pydantic `model_validate_json`"),
    *[
        (f"feedback.services.{kind}", attr, label)
        for kind in ("feedbacks", "experiences")
        for attr, label in (
            ("content_hash", "`content_hash` per item (model_dump, orjson, blake2b)"),
            ("new_items", "`new_items`: SELECT of existing ids"),
            ("insert_rows", "INSERT rows (`insert_rows`, executemany)"),
            ("stats_add_scores", "`stats_add_scores` (upsert)"),
        )
    ],
    ("feedback.services.feedbacks", "_feedback_components", "`_feedback_components`"),
    (
        "feedback.services.experiences",
        "json_text",
        "`json_text`: orjson of state, action, next_state",
    ),
    (
        "feedback.services.experiences",
        "stats_add_calls",
        "`stats_add_calls` (lock, sketch merge, UPDATE)",
    ),
    ("feedback.services.feedbacks", "component_avg_score", "`component_avg_score`"),
    ("feedback.services.experiences", "_reserve_quota", "`_reserve_quota`"),
    ("feedback.services.experiences", "_evict_over_limit", "`_evict_over_limit`"),
    ("feedback.services.experiences", "_forward_env_rewards", "`_forward_env_rewards`"),
    ("feedback.handlers", "component_records", "`component_records` (stats query)"),
    ("django.db.backends.base.base", "BaseDatabaseWrapper._commit", "COMMIT"),
    ("core.events", "broadcast_now", "broadcast after commit (channel layer)"),
]


class PhaseTimer:
    def __init__(self) -> None:
        self.totals: dict[str, float] = {}
        self.stack: list[list[float]] = []  # [start, time of timed children]
        self.saved: list[tuple[Any, str, Any]] = []

    def wrap(self, label: str, func: Any) -> Any:
        timer = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            frame = [time.perf_counter(), 0.0]
            timer.stack.append(frame)
            try:
                return func(*args, **kwargs)
            finally:
                timer.stack.pop()
                elapsed = time.perf_counter() - frame[0]
                timer.totals[label] = timer.totals.get(label, 0.0) + elapsed - frame[1]
                if timer.stack:
                    timer.stack[-1][1] += elapsed

        return timed

    def install(self) -> None:
        import importlib

        for module_name, attr, label in PHASES:
            owner: Any = importlib.import_module(module_name)
            *path, name = attr.split(".")
            for part in path:
                owner = getattr(owner, part)
            if hasattr(owner, name):
                original = getattr(owner, name)
                self.saved.append((owner, name, original))
                setattr(owner, name, self.wrap(label, original))

    def uninstall(self) -> None:
        for owner, name, original in reversed(self.saved):
            setattr(owner, name, original)
        self.saved.clear()


class GcTimer:
    """Time spent in the cyclic garbage collector, and collections per generation."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.collections = [0, 0, 0]
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._start
            self.collections[info["generation"]] += 1


def profile(*, token: str, kind: str, batches: int, size: int) -> dict[str, Any]:
    import gc

    from django.test import Client

    from bench.payloads import batches as make_batches
    from bench.payloads import stats_body
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
    timed, profiled, stacked = (
        bodies[:batches],
        bodies[batches : 2 * batches],
        bodies[2 * batches :],
    )
    dispatch.dispatch(principal, warm_dispatch)

    # The whole dispatch path (parse, services, database, response), no HTTP, step by step.
    phases, gc_timer = PhaseTimer(), GcTimer()
    phases.install()
    gc.callbacks.append(gc_timer)
    t0 = time.perf_counter()
    for body in timed:
        reply = dispatch.dispatch(principal, body)
        if reply.status != 200:
            raise SystemExit(f"dispatch answered {reply.status}: {reply.body}")
    dispatch_s = time.perf_counter() - t0
    gc.callbacks.remove(gc_timer)
    phases.uninstall()

    profiler = cProfile.Profile()
    profiler.enable()
    for body in profiled:
        dispatch.dispatch(principal, body)
    profiler.disable()
    listing = io.StringIO()
    pstats.Stats(profiler, stream=listing).sort_stats("tottime").print_stats(30)

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
        for label, seconds in sorted(phases.totals.items(), key=lambda kv: -kv[1])
    ]
    accounted = sum(phases.totals.values())
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
        "top_tottime": listing.getvalue(),
    }


# --- how the rows are written ------------------------------------------------------------------


def insert_variants(*, kind: str, rounds: int = 6) -> dict[str, Any]:
    """The same 1000 rows (copied from what the API stored) written four ways, each in its own
    transaction, interleaved round by round: what the write method itself costs."""
    import statistics

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
        raw = connection.connection
        if vendor == "postgresql":
            with raw.cursor() as cursor, cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            marks = ", ".join("?" * len(columns))
            raw.executemany(f"INSERT INTO {table} ({names}) VALUES ({marks})", rows)

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


# --- the ASGI path in-process ---------------------------------------------------------------


async def _asgi_call(app: Any, body: bytes, token: str) -> tuple[int, bytes]:
    """One POST /api/learn/ through an ASGI app, as a server would make it, without a socket."""
    import asyncio

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/api/learn/",
        "raw_path": b"/api/learn/",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1"),
            (b"authorization", f"Bearer {token}".encode()),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    sent = False
    never = asyncio.Event()
    status, chunks = 0, []

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await never.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    return status, b"".join(chunks)


def asgi_probe(*, token: str, requests: int = 1000) -> dict[str, Any]:
    """Where a small HTTP request's time goes in the ASGI app, in-process (no socket, no server):
    the sync<->async hops Django makes and what each costs, threads started, DB connections
    opened; then what-ifs that change one thing at a time in this process (the app is unchanged)."""
    import asyncio
    import threading
    from collections import defaultdict

    from asgiref import sync as asgi_sync
    from django.conf import settings
    from django.core.handlers.asgi import ASGIHandler
    from django.db import connections
    from django.db.backends.base import base as db_base
    from django.test.utils import override_settings

    from bench.payloads import stats_body
    from core.accounts.principals import principal_for_token
    from learnportal import dispatch

    counts = {"threads": 0, "connects": 0}
    hops: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])  # n, awaited s, ran s
    original_call = asgi_sync.SyncToAsync.__call__
    original_connect = db_base.BaseDatabaseWrapper.connect
    original_start = threading.Thread.start

    async def counted_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        func = self.func
        ran = [0.0]

        def timed(*a: Any, **k: Any) -> Any:
            t = time.perf_counter()
            try:
                return func(*a, **k)
            finally:
                ran[0] = time.perf_counter() - t

        name = getattr(func, "__qualname__", type(func).__name__)
        self.func = timed
        t0 = time.perf_counter()
        try:
            return await original_call(self, *args, **kwargs)
        finally:
            self.func = func
            entry = hops[name]
            entry[0] += 1
            entry[1] += time.perf_counter() - t0
            entry[2] += ran[0]

    def counted_connect(self: Any) -> None:
        counts["connects"] += 1
        original_connect(self)

    def counted_start(self: Any, *args: Any, **kwargs: Any) -> None:
        counts["threads"] += 1
        original_start(self, *args, **kwargs)

    # Instrumented in place for this probe and put back below: mypy rightly refuses assigning
    # to a method, which is the point here.
    asgi_sync.SyncToAsync.__call__ = counted_call  # type: ignore[method-assign]
    db_base.BaseDatabaseWrapper.connect = counted_connect  # type: ignore[method-assign]
    threading.Thread.start = counted_start  # type: ignore[method-assign]
    bodies = [stats_body("component-07", f"probe-{i}") for i in range(requests)]

    async def drive(app: Any) -> dict[str, Any]:
        for body in bodies[:50]:
            await _asgi_call(app, body, token)
        counts.update(threads=0, connects=0)
        hops.clear()
        start = time.perf_counter()
        for body in bodies:
            status, content = await _asgi_call(app, body, token)
            if status != 200:
                raise SystemExit(f"asgi probe: {status} {content[:300]!r}")
        elapsed = time.perf_counter() - start
        n = len(bodies)
        return {
            "ms": 1000 * elapsed / n,
            "hops": sum(h[0] for h in hops.values()) / n,
            "threads": counts["threads"] / n,
            "connects": counts["connects"] / n,
            "by_hop": [
                {
                    "what": name,
                    "per_request": h[0] / n,
                    "ms_awaited": 1000 * h[1] / n,
                    "ms_ran": 1000 * h[2] / n,
                }
                for name, h in sorted(hops.items(), key=lambda kv: -kv[1][1])
            ],
        }

    out: dict[str, Any] = {"middleware": list(settings.MIDDLEWARE)}
    out["shipped"] = asyncio.run(drive(ASGIHandler()))
    conn_settings = connections["default"].settings_dict
    pooled = bool(conn_settings.get("OPTIONS", {}).get("pool"))
    if not pooled:
        # With PostgreSQL's pool, connections are reused already (and persistent ones are refused).
        conn_settings["CONN_MAX_AGE"] = None
        connections["default"].close()
        out["conn_max_age_none"] = asyncio.run(drive(ASGIHandler()))
    with override_settings(MIDDLEWARE=[]):
        out["no_middleware"] = asyncio.run(drive(ASGIHandler()))
    # The floor: authenticate once and dispatch in one hop, as the WebSocket consumer does.
    principal = principal_for_token(token)
    if principal is None:
        raise SystemExit("unknown token")

    async def one_hop(scope: Any, receive: Any, send: Any) -> None:
        message = await receive()
        reply = await asgi_sync.sync_to_async(dispatch.dispatch)(principal, message["body"])
        payload = orjson.dumps(reply.body)
        await send({"type": "http.response.start", "status": reply.status, "headers": []})
        await send({"type": "http.response.body", "body": payload})

    out["one_hop_dispatch"] = asyncio.run(drive(one_hop))
    conn_settings["CONN_MAX_AGE"] = 0
    out["pooled"] = pooled
    asgi_sync.SyncToAsync.__call__ = original_call  # type: ignore[method-assign]
    db_base.BaseDatabaseWrapper.connect = original_connect  # type: ignore[method-assign]
    threading.Thread.start = original_start  # type: ignore[method-assign]
    return out


TASKS: dict[str, Callable[..., Any]] = {
    "meta": meta,
    "seed_calls": seed_calls,
    "profile": profile,
    "calls_total": calls_total,
    "asgi_probe": asgi_probe,
    "insert_variants": insert_variants,
}


def main() -> None:
    task = sys.argv[1]
    kwargs = orjson.loads(sys.argv[2]) if len(sys.argv) > 2 else {}
    _setup()
    result = TASKS[task](**kwargs)
    sys.stdout.write("\n" + orjson.dumps({"result": result}).decode() + "\n")


if __name__ == "__main__":
    main()
