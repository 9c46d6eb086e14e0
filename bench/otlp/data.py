"""The runs an instrumented agent sends: traces of ten spans (an agent's root, model calls, tool
calls, retrievals), as OTLP/HTTP protobuf bodies and as the same turns with their steps for
`/api/turns/`, so that every side stores the same thing."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import orjson
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

SPANS = 10  # a trace's spans: the root and nine under it
TRACES_A_REQUEST = 100  # as the issue measured Phoenix: one client, 100 traces a request
TOOLS = ("lookup_order", "search_catalog", "refund", "weather", "calendar")
WORDS = [
    "the",
    "order",
    "was",
    "shipped",
    "on",
    "time",
    "and",
    "the",
    "customer",
    "asked",
    "about",
    "a",
    "refund",
    "for",
    "the",
]
# The kinds of the nine spans under the root, in order.
CHILDREN = ("llm", "retrieval", "llm", "tool", "llm", "tool", "retrieval", "tool", "llm")
OPERATIONS = {"agent": "invoke_agent", "llm": "chat", "tool": "execute_tool"}


@dataclass(frozen=True)
class Step:
    span_id: str
    parent_id: str
    name: str
    kind: str
    input: str
    output: str
    start_ns: int
    end_ns: int
    error: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Run:
    trace_id: str
    session_id: str
    steps: list[Step]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def agent_runs(count: int, seed: int = 7, *, start_ns: int = 1_800_000_000 * 10**9) -> list[Run]:
    rng = random.Random(seed)
    runs = []
    for index in range(count):
        trace_id = rng.getrandbits(128).to_bytes(16, "big").hex()
        ids = [rng.getrandbits(64).to_bytes(8, "big").hex() for _ in range(SPANS)]
        begin = start_ns + index * 5 * 10**9
        root = Step(ids[0], "", "invoke_agent support", "agent", _text(rng, 30), _text(rng, 60),
                    begin, begin + 4 * 10**9,
                    attributes={"gen_ai.agent.name": "support", "gen_ai.system": "bench"})  # fmt: skip
        steps = [root]
        for offset, kind in enumerate(CHILDREN, start=1):
            at = begin + offset * 300 * 10**6
            tool = rng.choice(TOOLS)
            failed = kind == "tool" and rng.random() < 0.1
            attributes: dict[str, Any] = {}
            if kind == "llm":
                attributes = {"gen_ai.request.model": "small-1",
                              "gen_ai.usage.input_tokens": rng.randint(200, 2000),
                              "gen_ai.usage.output_tokens": rng.randint(10, 300)}  # fmt: skip
            elif kind == "tool":
                attributes = {"gen_ai.tool.name": tool}
            else:
                attributes = {"openinference.span.kind": "RETRIEVER"}
            steps.append(
                Step(
                    ids[offset],
                    ids[0],
                    tool if kind == "tool" else f"{kind} {offset}",
                    kind,
                    _text(rng, 25),
                    _text(rng, 40),
                    at,
                    at + rng.randint(20, 280) * 10**6,
                    error="tool timed out" if failed else "",
                    attributes=attributes,
                )
            )
        runs.append(Run(trace_id, f"conv-{index // 4}", steps))
    return runs


def _value(value: Any) -> AnyValue:
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        return AnyValue(int_value=value)
    return AnyValue(string_value=str(value))


def _span(run: Run, step: Step) -> Span:
    attributes = dict(step.attributes)
    if step.kind in OPERATIONS:
        attributes["gen_ai.operation.name"] = OPERATIONS[step.kind]
    attributes["input.value"], attributes["output.value"] = step.input, step.output
    if step.kind == "agent":
        attributes["gen_ai.conversation.id"] = run.session_id
    status = Status(code=Status.STATUS_CODE_ERROR, message=step.error) if step.error else Status()
    return Span(
        trace_id=bytes.fromhex(run.trace_id),
        span_id=bytes.fromhex(step.span_id),
        parent_span_id=bytes.fromhex(step.parent_id) if step.parent_id else b"",
        name=step.name,
        kind=Span.SPAN_KIND_INTERNAL,
        start_time_unix_nano=step.start_ns,
        end_time_unix_nano=step.end_ns,
        attributes=[KeyValue(key=k, value=_value(v)) for k, v in attributes.items()],
        status=status,
    )


def otlp_bodies(runs: list[Run], per_request: int = TRACES_A_REQUEST) -> list[bytes]:
    """ExportTraceServiceRequest protobuf bodies of `per_request` traces each."""
    bodies = []
    for start in range(0, len(runs), per_request):
        request = ExportTraceServiceRequest()
        resource = request.resource_spans.add()
        resource.resource.attributes.append(
            KeyValue(key="service.name", value=AnyValue(string_value="support"))
        )
        spans = resource.scope_spans.add()
        for run in runs[start : start + per_request]:
            spans.spans.extend(_span(run, step) for step in run.steps)
        bodies.append(request.SerializeToString())
    return bodies


def turns_bodies(runs: list[Run], per_request: int = TRACES_A_REQUEST) -> list[bytes]:
    """The same runs as `POST /api/turns/` bodies: a turn a trace, a step a span."""
    bodies = []
    for start in range(0, len(runs), per_request):
        turns = []
        for run in runs[start : start + per_request]:
            root = run.steps[0]
            steps = [
                {
                    "step_id": s.span_id,
                    "parent_id": s.parent_id,
                    "name": s.name,
                    "kind": s.kind,
                    "input": s.input,
                    "output": s.output,
                    "start": s.start_ns / 1e9,
                    "end": s.end_ns / 1e9,
                    "status": "error" if s.error else "ok",
                    "error": s.error,
                    "attributes": s.attributes,
                }
                for s in run.steps
            ]
            turns.append(
                {
                    "correlation_id": run.trace_id,
                    "session_id": run.session_id,
                    "component_name": "support",
                    "rated_turn": {
                        "prompt": root.input,
                        "response": root.output,
                        "model": "support",
                    },
                    "steps": steps,
                }
            )
        bodies.append(orjson.dumps({"turns": turns}))
    return bodies
