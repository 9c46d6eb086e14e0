"""Ingest through the API against the driver's bulk insert of the same rows, and its profile."""

from __future__ import annotations

import statistics
import time
from typing import TYPE_CHECKING, Any

import httpx

from bench.harness import payloads
from bench.harness.children import run_child
from bench.harness.rawdb import RawTable
from bench.harness.report import log

if TYPE_CHECKING:
    from bench.harness.servers import Stack


def ingest(
    stack: Stack, kind: str, batches: int, size: int, meta: dict[str, Any]
) -> dict[str, Any]:
    """`batches` x `size` items through POST /api/learn/, each batch followed by the same rows
    inserted raw into a table of the same schema and indexes in the same database
    (bench.harness.rawdb), one commit a batch on both sides. Interleaving keeps both sides on tables and
    indexes of the same size and exposes them to the same drift of a shared machine."""
    field = {"feedback": "recorded", "experience": "stored"}[kind]
    who = "env" if kind == "feedback" else "agent"
    log(f"{kind}: building {batches + 1} bodies of {size} items")
    bodies = payloads.batches(kind, batches + 1, size, seed=1 if kind == "feedback" else 2)
    body_bytes = statistics.mean(len(body) for _ids, body in bodies[1:])
    conn = stack.connect()
    raw = RawTable(conn, stack.database.kind, meta[kind]["table"], meta[kind]["columns"])
    api_times: list[float] = []
    raw_times: list[float] = []
    with httpx.Client(base_url=stack.base_url, headers=stack.headers(who), timeout=300) as client:
        for n, (ids, body) in enumerate(bodies):
            t0 = time.perf_counter()
            response = client.post("/api/learn/", content=body)
            elapsed = time.perf_counter() - t0
            if response.status_code != 200 or response.json().get(field) != size:
                raise RuntimeError(
                    f"{kind} batch {n}: {response.status_code} {response.text[:500]}"
                )
            rows = raw.read_back(ids)
            raw_elapsed = raw.insert(rows)
            if n == 0:
                continue  # warm-up batch: first imports and first pages, not counted
            api_times.append(elapsed)
            raw_times.append(raw_elapsed)
            if n % 20 == 0:
                log(f"{kind}: {n}/{batches} batches")
    stored = raw.count()
    conn.close()
    expected = (batches + 1) * size
    if stored[0] < expected or stored[1] != expected:
        raise RuntimeError(
            f"{kind}: {stored} rows in the API's and the raw table, expected {expected}"
        )
    rows_total = batches * size
    api_rate = rows_total / sum(api_times)
    raw_rate = rows_total / sum(raw_times)
    return {
        "kind": kind,
        "rows": rows_total,
        "batch": size,
        "body_bytes": body_bytes,
        "item_bytes": body_bytes / size,
        "api_rows_s": api_rate,
        "raw_rows_s": raw_rate,
        "ratio": api_rate / raw_rate,
        "api_batch_ms_p50": 1000 * statistics.median(api_times),
        "api_batch_ms_max": 1000 * max(api_times),
        "raw_batch_ms_p50": 1000 * statistics.median(raw_times),
    }


def profile(stack: Stack, kind: str, batches: int, size: int) -> dict[str, Any]:
    token = stack.tokens["env" if kind == "feedback" else "agent"]
    result: dict[str, Any] = run_child(
        stack.env, "profile", token=token, kind=kind, batches=batches, size=size
    )
    return result
