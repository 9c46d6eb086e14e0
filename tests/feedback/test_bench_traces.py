"""Smoke tests of bench.traces' library (bench/otlp) on tiny sizes (the bench itself is
`make bench`): its OTLP bodies and its `/api/turns/` bodies say the same runs, as the ingest
reads them, so that the sides store the same thing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from bench.otlp.data import SPANS, agent_runs, otlp_bodies, turns_bodies
from bench.otlp.report import block
from feedback.traces.otlp import traces_of

if TYPE_CHECKING:
    from tests.harness import Actor

STEP_FIELDS = ("step_id", "parent_id", "name", "kind", "input", "output", "status", "error")


def test_the_otlp_and_the_turns_bodies_say_the_same_runs() -> None:
    runs = agent_runs(30, seed=5)
    (otlp,) = otlp_bodies(runs, per_request=30)
    (turns,) = turns_bodies(runs, per_request=30)
    request = ExportTraceServiceRequest()
    request.ParseFromString(otlp)
    traces, refused = traces_of(request)
    assert refused == []
    sent = {turn["correlation_id"]: turn for turn in orjson.loads(turns)["turns"]}
    assert set(traces) == set(sent)
    for trace_id, trace in traces.items():
        assert trace.spans == SPANS
        assert trace.root is not None
        turn = sent[trace_id]
        assert (trace.root["prompt"], trace.root["response"], trace.root["session_id"]) == (
            turn["rated_turn"]["prompt"],
            turn["rated_turn"]["response"],
            turn["session_id"],
        )
        mapped = sorted(tuple(step[f] for f in STEP_FIELDS) for step in trace.steps)
        assert mapped == sorted(tuple(step[f] for f in STEP_FIELDS) for step in turn["steps"])


@pytest.mark.django_db
def test_a_body_of_the_bench_is_stored_whole_over_both_paths(agent: Actor) -> None:
    runs = agent_runs(5, seed=6)
    stored = agent.client.post(
        "/v1/traces",
        data=otlp_bodies(runs)[0],
        content_type="application/x-protobuf",
    )
    assert stored.status_code == 200
    again = agent.client.post(
        "/api/turns/", data=turns_bodies(agent_runs(5, seed=7))[0], content_type="application/json"
    )
    assert again.status_code == 201, again.content


def test_the_report_says_each_goal_against_its_measure() -> None:
    side: dict[str, Any] = {"spans_s": 100.0, "visible_after_s": 0.5, "end_to_end_spans_s": 90.0,
                            "rss_peak_mb": 100.0, "busy_answers": 0}  # fmt: skip
    results = {
        "traces": 10,
        "spans_a_trace": SPANS,
        "turns": {**side, "spans_s": 110.0},
        "otlp": side,
        "phoenix": {**side, "spans_s": 4.0, "end_to_end_spans_s": 2.0, "rss_peak_mb": 400.0},
        "meta": {"started": "now", "command": "python -m bench.traces", "db_version": "SQLite",
                 "nproc": 2, "cpu": "x", "python": "3.11"},
    }  # fmt: skip
    text = block(results)
    assert "| `/v1/traces` spans/s over `/api/turns/`'s | 0.91 | >= 0.8 | PASS |" in text
    assert (
        "| spans/s stored and readable, against Phoenix's sustained | 45.0x | >= 20x | PASS |"
        in (text)
    )
    assert "| peak RSS, a share of Phoenix's | 0.25 | < 0.33 | PASS |" in text
