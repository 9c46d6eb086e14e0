"""Small requests on a live server: stats at 10k and 1M calls, WebSocket against HTTP, uvicorn
against daphne, and the hot path (learn/stats against a bare Django view, pipelining, latency
beside an adapt). Each takes a fresh Stack and returns a dict of figures.
"""

from __future__ import annotations

import contextlib
import http.client
import random
import statistics
import threading
import time
from typing import Any

import httpx
import orjson

from bench.harness import clients, payloads
from bench.harness.children import run_child
from bench.harness.report import log
from bench.harness.servers import Server, Stack


def _time_stats(stack: Stack, requests: int) -> dict[str, float]:
    out = {}
    for label, component in (("all", ""), ("one", "component-07")):
        bodies = [payloads.stats_body(component, f"st-{label}-{i}") for i in range(requests)]
        run = clients.http_sequential(stack.base_url, stack.headers(), bodies, "learn/stats/resp")
        if run.errors:
            raise RuntimeError(f"stats: {run.errors} errors")
        out[f"{label}_ms_p50"] = 1000 * run.median
        out[f"{label}_ms_p95"] = 1000 * run.percentile(0.95)
    return out


def _stats_snapshot(stack: Stack) -> dict[str, Any]:
    body = payloads.stats_body("", "snapshot")
    response = httpx.post(f"{stack.base_url}/api/learn/", content=body, headers=stack.headers())
    components = response.json()["components"]
    return {
        "components": len(components),
        "calls_total": sum(c["calls_total"] for c in components),
    }


def stats(stack: Stack, small: int, large: int, requests: int) -> dict[str, Any]:
    seeder = stack.tokens["seeder"]
    log(f"stats: recording {small} calls through experience_store")
    run_child(stack.env, "seed_calls", token=seeder, target=small)
    at_small = _time_stats(stack, requests) | _stats_snapshot(stack)
    log(f"stats: at {at_small['calls_total']} calls, median {at_small['all_ms_p50']:.2f} ms")
    log(f"stats: recording up to {large} calls through experience_store (in-process)")
    seeded = run_child(stack.env, "seed_calls", token=seeder, target=large)
    at_large = _time_stats(stack, requests) | _stats_snapshot(stack)
    log(f"stats: at {at_large['calls_total']} calls, median {at_large['all_ms_p50']:.2f} ms")
    return {
        "small": at_small,
        "large": at_large,
        "requests": requests,
        "seed_seconds": seeded["seconds"],
        "seed_calls_s": (seeded["calls_total"] - seeded["from"]) / seeded["seconds"],
        "ratio": at_large["all_ms_p50"] / at_small["all_ms_p50"],
        "ratio_one": at_large["one_ms_p50"] / at_small["one_ms_p50"],
    }


def ws_vs_http(stack: Stack, requests: int, window: int) -> dict[str, Any]:
    run_child(stack.env, "seed_calls", token=stack.tokens["seeder"], target=1000)
    bodies = [payloads.stats_body("component-07", f"w-{i}") for i in range(requests)]
    expect = "learn/stats/resp"
    log(f"ws: {requests} small requests over HTTP (httpx keep-alive, sequential)")
    http_x = clients.http_sequential(stack.base_url, stack.headers(), bodies, expect)
    log(f"ws: {requests} small requests over HTTP (http.client keep-alive, sequential)")
    http_raw = clients.http_sequential_raw(stack.base_url, stack.headers(), bodies, expect)
    log(f"ws: {requests} small requests over one WebSocket, {window} in flight")
    ws_pipe = clients.ws_pipelined(stack.ws_url, stack.tokens["agent"], bodies, window)
    log(f"ws: {requests // 5} over one WebSocket, one in flight")
    ws_seq = clients.ws_sequential(stack.ws_url, stack.tokens["agent"], bodies[: requests // 5])
    errors = http_x.errors + http_raw.errors + ws_pipe.errors + ws_seq.errors
    if errors:
        raise RuntimeError(f"ws: {errors} error replies")
    best_http = max(http_x.rate, http_raw.rate)
    # On PostgreSQL the pool already reuses connections (and refuses persistent ones).
    whatif = None
    if stack.database.kind == "sqlite":
        whatif = ws_whatif(stack, bodies[: max(1000, requests // 3)], window)
    return {
        "requests": requests,
        "window": window,
        "http_httpx_rps": http_x.rate,
        "http_httpx_ms_p50": 1000 * http_x.median,
        "http_raw_rps": http_raw.rate,
        "http_raw_ms_p50": 1000 * http_raw.median,
        "ws_pipelined_rps": ws_pipe.rate,
        "ws_sequential_rps": ws_seq.rate,
        "ws_sequential_ms_p50": 1000 * ws_seq.median,
        "ratio": ws_pipe.rate / best_http,
        "whatif": whatif,
    }


def ws_whatif(stack: Stack, bodies: list[bytes], window: int) -> dict[str, Any]:
    """The same measurements on a second server whose only change is CONN_MAX_AGE=None."""
    expect = "learn/stats/resp"
    env = dict(
        stack.env, DJANGO_SETTINGS_MODULE="bench.whatif_settings", BENCH_WHATIF="conn_max_age"
    )
    assert stack.server is not None
    server = Server(stack.server_kind, env, stack.server.log_path.with_suffix(".whatif.log"))
    log(f"ws: what-if CONN_MAX_AGE=None, {len(bodies)} requests each way")
    try:
        server.start(stack.tokens["agent"])
        http_raw = clients.http_sequential_raw(server.base_url, stack.headers(), bodies, expect)
        ws_pipe = clients.ws_pipelined(server.ws_url, stack.tokens["agent"], bodies, window)
        ws_seq = clients.ws_sequential(server.ws_url, stack.tokens["agent"], bodies)
    finally:
        server.stop()
        with contextlib.suppress(OSError):
            server.log_path.unlink()
    return {
        "requests": len(bodies),
        "http_raw_rps": http_raw.rate,
        "ws_pipelined_rps": ws_pipe.rate,
        "ws_sequential_rps": ws_seq.rate,
        "ratio": ws_pipe.rate / http_raw.rate,
    }


def server(
    stack: Stack, small: int, concurrency: int, batches: int, ws_requests: int
) -> dict[str, Any]:
    kind = stack.server_kind
    run_child(stack.env, "seed_calls", token=stack.tokens["seeder"], target=1000)
    expect = "learn/stats/resp"
    bodies = [payloads.stats_body("component-07", f"v-{i}") for i in range(small)]
    log(f"{kind}: {small} small requests, sequential")
    seq = clients.http_sequential_raw(stack.base_url, stack.headers(), bodies, expect)
    log(f"{kind}: {small} small requests over {concurrency} connections")
    conc = clients.http_concurrent(stack.base_url, stack.headers(), bodies, expect, concurrency)
    log(f"{kind}: {ws_requests} small requests over one WebSocket, pipelined")
    ws = clients.ws_pipelined(stack.ws_url, stack.tokens["agent"], bodies[:ws_requests], 100)
    log(f"{kind}: {batches} x 1000 feedbacks")
    ingest_bodies = payloads.batches("feedback", batches + 1, 1000, seed=11)
    times = []
    with httpx.Client(base_url=stack.base_url, headers=stack.headers("env"), timeout=300) as c:
        for n, (_ids, body) in enumerate(ingest_bodies):
            t0 = time.perf_counter()
            response = c.post("/api/learn/", content=body)
            if response.status_code != 200:
                raise RuntimeError(f"{kind} ingest: {response.status_code} {response.text[:300]}")
            if n:
                times.append(time.perf_counter() - t0)
    errors = seq.errors + conc.errors + ws.errors
    if errors:
        raise RuntimeError(f"{kind}: {errors} error replies")
    return {
        "server": kind,
        "seq_rps": seq.rate,
        "seq_ms_p50": 1000 * seq.median,
        "seq_ms_p99": 1000 * seq.percentile(0.99),
        "concurrency": concurrency,
        "conc_rps": conc.rate,
        "conc_ms_p50": 1000 * conc.median,
        "conc_ms_p99": 1000 * conc.percentile(0.99),
        "ws_rps": ws.rate,
        "ingest_rows_s": batches * 1000 / sum(times),
        "ingest_batch_ms_p50": 1000 * statistics.median(times),
    }


def hot(stack: Stack, requests: int, rounds: int, window: int) -> dict[str, Any]:
    """Small `learn/stats/req` against the bare view, both over HTTP on the same server, in
    `rounds` interleaved rounds (so that both meet the same drift); then one WebSocket with one
    frame in flight and with `window` in flight, also interleaved; then the latency of small
    requests while an adapt runs (`hot_adapt`)."""
    run_child(stack.env, "seed_calls", token=stack.tokens["seeder"], target=1000)
    expect = "learn/stats/resp"
    share = max(1, requests // rounds)
    totals = {"bare": [0, 0.0], "http": [0, 0.0], "ws_one": [0, 0.0], "ws_window": [0, 0.0]}
    errors = 0
    p50: dict[str, list[float]] = {key: [] for key in totals}
    for n in range(rounds):
        bodies = [payloads.stats_body("component-07", f"h-{n}-{i}") for i in range(share)]
        log(f"hot: round {n + 1}/{rounds}: {share} requests each way")
        runs = {
            "bare": clients.http_sequential_raw(
                stack.base_url, stack.headers(), bodies, "bare", path="/bench/bare/"
            ),
            "http": clients.http_sequential_raw(stack.base_url, stack.headers(), bodies, expect),
            "ws_one": clients.ws_sequential(stack.ws_url, stack.tokens["agent"], bodies),
            "ws_window": clients.ws_pipelined(stack.ws_url, stack.tokens["agent"], bodies, window),
        }
        for key, run in runs.items():
            totals[key][0] += run.requests
            totals[key][1] += run.seconds
            p50[key].append(1000 * run.median)
            errors += run.errors
    if errors:
        raise RuntimeError(f"hot: {errors} error replies")
    rps = {key: count / seconds for key, (count, seconds) in totals.items()}
    during_adapt = hot_adapt(stack, batches=max(10, requests // 50), adapts=max(2, rounds))
    return {
        "adapt": during_adapt,
        "requests": share * rounds,
        "rounds": rounds,
        "window": window,
        **{f"{key}_rps": rate for key, rate in rps.items()},
        **{f"{key}_ms_p50": statistics.median(values) for key, values in p50.items()},
        "http_over_bare": rps["http"] / rps["bare"],
        "window_over_one": rps["ws_window"] / rps["ws_one"],
        "window_over_http": rps["ws_window"] / rps["http"],
    }


ADAPT_COMPONENTS = 1000
ADAPT_PROBE = "arm-0007"


def hot_adapt(
    stack: Stack, batches: int, adapts: int, alone_s: float = 4.0, think_s: float = 0.005
) -> dict[str, Any]:
    """The latency of small `learn/stats/req` over HTTP while `learn/adapt/req` (ucb1, every
    component) runs on the same server, against the same requests without an adapt, same run.

    `batches` x 1000 experiences spread over 1,000 components are stored first (through the
    API). One client then sends stats requests one after another, `think_s` apart, on its own
    keep-alive connection: `alone_s` seconds alone, then while another connection sends
    `adapts` adapts back to back, then `alone_s` alone again. A stats request counts as during
    an adapt if one was in flight when it started or ended."""
    log(f"hot: storing {batches} x 1000 experiences over {ADAPT_COMPONENTS} components")
    rng = random.Random(5)
    with httpx.Client(base_url=stack.base_url, headers=stack.headers(), timeout=300) as client:
        for n in range(batches):
            items = []
            for i in range(1000):
                item = payloads.experience_item(rng)
                item["action"]["component_name"] = f"arm-{(n * 1000 + i) % ADAPT_COMPONENTS:04d}"
                items.append(item)
            response = client.post(
                "/api/learn/", content=payloads.envelope("experience", items, f"arm-{n}")
            )
            if response.status_code != 200:
                raise RuntimeError(f"hot: seeding: {response.status_code} {response.text[:300]}")
    adapting = threading.Event()
    stop = threading.Event()
    samples: list[tuple[bool, float]] = []  # (during an adapt, seconds)
    errors: list[str] = []

    def reader() -> None:
        body = payloads.stats_body(ADAPT_PROBE, "probe")
        host, port = stack.base_url.removeprefix("http://").split(":")
        conn = http.client.HTTPConnection(host, int(port), timeout=120)
        headers = stack.headers()
        try:
            while not stop.is_set():
                during = adapting.is_set()
                t0 = time.perf_counter()
                conn.request("POST", "/api/learn/", body=body, headers=headers)
                response = conn.getresponse()
                content = response.read()
                elapsed = time.perf_counter() - t0
                if response.status != 200:
                    errors.append(f"stats: {response.status} {content[:200]!r}")
                samples.append((during or adapting.is_set(), elapsed))
                time.sleep(think_s)
        finally:
            conn.close()

    thread = threading.Thread(target=reader)
    thread.start()
    adapt_s: list[float] = []
    try:
        time.sleep(alone_s)
        log(f"hot: {adapts} adapts (ucb1, {ADAPT_COMPONENTS} components) beside stats requests")
        with httpx.Client(base_url=stack.base_url, headers=stack.headers(), timeout=600) as client:
            for n in range(adapts):
                body = orjson.dumps(
                    {"type": "learn/adapt/req", "id": f"adapt-{n}", "strategy": "ucb1"}
                )
                adapting.set()
                t0 = time.perf_counter()
                response = client.post("/api/learn/", content=body)
                adapt_s.append(time.perf_counter() - t0)
                adapting.clear()
                if response.status_code != 200:
                    errors.append(f"adapt: {response.status_code} {response.text[:300]}")
        time.sleep(alone_s)
    finally:
        adapting.clear()
        stop.set()
        thread.join()
    if errors:
        raise RuntimeError(f"hot: {len(errors)} errors during adapts: {errors[:3]}")
    alone = sorted(s for during, s in samples if not during)
    busy = sorted(s for during, s in samples if during)

    def ms(values: list[float], q: float) -> float:
        return 1000 * values[min(len(values) - 1, int(q * (len(values) - 1) + 0.5))]

    return {
        "components": ADAPT_COMPONENTS,
        "experiences": batches * 1000,
        "adapts": adapts,
        "adapt_s_median": statistics.median(adapt_s),
        "alone_n": len(alone),
        "during_n": len(busy),
        "alone_ms_p50": ms(alone, 0.5),
        "alone_ms_p95": ms(alone, 0.95),
        "during_ms_p50": ms(busy, 0.5),
        "during_ms_p95": ms(busy, 0.95),
        "during_ms_max": 1000 * busy[-1],
        "p95_during_over_alone": ms(busy, 0.95) / ms(alone, 0.95),
    }
