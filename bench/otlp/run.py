"""One run of `python -m bench.traces`: the same agent runs (traces of ten spans, 100 a request,
one client sending one request after another) stored by LearnPortal over `/api/turns/`, over
`/v1/traces`, and by Arize Phoenix over its `/v1/traces`, each on a fresh database; for each,
spans a second while sending, how long until the last trace can be read, and the server's
peak memory."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import httpx
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

from bench.harness.databases import BenchError
from bench.harness.memory import PeakRss
from bench.harness.report import log
from bench.harness.servers import Stack
from bench.otlp.data import SPANS, TRACES_A_REQUEST, agent_runs, otlp_bodies, turns_bodies
from bench.otlp.phoenix import PhoenixUnavailable, phoenix_server

if TYPE_CHECKING:
    from collections.abc import Callable

    from bench.harness.databases import Database

FULL = {"traces": 3_000}  # 30 requests of 100 traces: 30,000 spans a side
QUICK = {"traces": 500}
PROTOBUF = {"Content-Type": "application/x-protobuf"}
BUSY_WAIT = 0.05  # seconds before sending again a request Phoenix answered 503 (its queue full)
VISIBLE_TIMEOUT = 900.0


def _accepted(kind: str, response: httpx.Response) -> bool:
    if response.status_code not in (200, 201):
        return False
    if kind == "otlp":
        answer = ExportTraceServiceResponse()
        answer.ParseFromString(response.content)
        return answer.partial_success.rejected_spans == 0
    return True


def _side(
    kind: str,
    base: str,
    path: str,
    headers: dict[str, str],
    bodies: list[bytes],
    visible: Callable[[httpx.Client], bool],
    pid: int,
) -> dict[str, Any]:
    """Send the bodies (the first a warm-up, not counted), one after another, a 503 sent again;
    then wait until `visible` says the last trace can be read."""
    busy = 0
    with httpx.Client(base_url=base, headers=headers, timeout=600) as client:
        if not _accepted(kind, client.post(path, content=bodies[0])):
            raise BenchError(f"{kind}: the warm-up request to {base}{path} was refused")
        with PeakRss(pid) as memory:
            start = time.perf_counter()
            for body in bodies[1:]:
                while (response := client.post(path, content=body)).status_code == 503:
                    busy += 1
                    time.sleep(BUSY_WAIT)
                if not _accepted(kind, response):
                    raise BenchError(f"{kind}: {response.status_code} {response.text[:300]}")
            sent = time.perf_counter() - start
            while not visible(client):
                waited = time.perf_counter() - start - sent
                if waited > VISIBLE_TIMEOUT:
                    raise BenchError(f"{kind}: the last trace was not visible in time")
                # Often at first, then seldom: asking is work for the server too.
                time.sleep(0.02 if waited < 2 else 0.5)
            seen = time.perf_counter() - start
    spans = (len(bodies) - 1) * TRACES_A_REQUEST * SPANS
    return {
        "spans": spans,
        "send_s": sent,
        "spans_s": spans / sent,
        "visible_after_s": seen - sent,
        "end_to_end_spans_s": spans / seen,
        "rss_peak_mb": memory.peak,
        "busy_answers": busy,
    }


def _learnportal(database: Database, kind: str, bodies: list[bytes], last: str) -> dict[str, Any]:
    with Stack(database, f"traces-{kind}") as stack:
        assert stack.server is not None and stack.server.proc is not None
        headers = {"Authorization": f"Bearer {stack.tokens['agent']}"}
        path, sent_as = ("/v1/traces", PROTOBUF) if kind == "otlp" else ("/api/turns/", {})
        if kind == "turns":
            sent_as = {"Content-Type": "application/json"}

        def visible(client: httpx.Client) -> bool:
            found = client.get("/api/turns/", params={"correlation_id": last})
            return found.status_code == 200 and bool(found.json()["results"])

        log(f"traces: LearnPortal over {path} ({database.kind})")
        return _side(kind, stack.base_url, path, headers | sent_as, bodies, visible,
                     stack.server.proc.pid)  # fmt: skip


def _phoenix(bodies: list[bytes], last: str) -> dict[str, Any]:
    log("traces: Phoenix over /v1/traces (its own venv, SQLite)")
    with phoenix_server() as (base, pid):

        def visible(client: httpx.Client) -> bool:
            found = client.get("/v1/projects/default/spans", params={"trace_id": last, "limit": 1})
            return found.status_code == 200 and bool(found.json().get("data"))

        return _side("otlp", base, "/v1/traces", PROTOBUF, bodies, visible, pid)


def run(database: Database, sizes: dict[str, Any], *, phoenix: bool = True) -> dict[str, Any]:
    runs = agent_runs(sizes["traces"] + TRACES_A_REQUEST)  # one more request: the warm-up
    last = runs[-1].trace_id
    otlp, turns = otlp_bodies(runs), turns_bodies(runs)
    log(f"traces: {len(runs):,} traces of {SPANS} spans, {TRACES_A_REQUEST} a request")
    results: dict[str, Any] = {"traces": sizes["traces"], "spans_a_trace": SPANS}
    results["turns"] = _learnportal(database, "turns", turns, last)
    results["otlp"] = _learnportal(database, "otlp", otlp, last)
    if phoenix:
        try:
            results["phoenix"] = _phoenix(otlp, last)
        except PhoenixUnavailable as exc:
            results["phoenix"] = {"error": str(exc)[-2000:]}
    return results
