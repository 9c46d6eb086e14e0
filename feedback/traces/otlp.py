"""OTLP/HTTP traces in: an `ExportTraceServiceRequest` (protobuf or JSON, gzip or not) read with
`opentelemetry-proto`, each trace a turn and each span a step (docs/contract.md, "Traces").

The conventions read: OpenTelemetry's GenAI (`gen_ai.*`) and OpenInference
(`openinference.span.kind`, `input.value`, ...). What a trace's root span says makes the turn:
its session, component, prompt, response and model; a trace whose root has not come yet is a
turn with none of those until it does (feedback.traces.ingest).
"""

from __future__ import annotations

import base64
import math
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson
from google.protobuf import json_format
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from learnportal_protocol.errors import detail, invalid

if TYPE_CHECKING:
    from opentelemetry.proto.common.v1.common_pb2 import AnyValue
    from opentelemetry.proto.trace.v1.trace_pb2 import Span

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
NANO = 1e-9
TRACE_ID_BYTES, SPAN_ID_BYTES = 16, 8
STATUS_ERROR = 2  # Status.StatusCode.STATUS_CODE_ERROR

# What a span's kind is, by the conventions' words for it.
OPENINFERENCE_KINDS = {
    "LLM": "llm",
    "TOOL": "tool",
    "RETRIEVER": "retrieval",
    "RERANKER": "retrieval",
    "EMBEDDING": "retrieval",
    "AGENT": "agent",
    "CHAIN": "chain",
}
GENAI_OPERATIONS = {
    "chat": "llm",
    "text_completion": "llm",
    "generate_content": "llm",
    "execute_tool": "tool",
    "invoke_agent": "agent",
    "create_agent": "agent",
    "embeddings": "retrieval",
}
INPUT_KEYS = ("input.value", "gen_ai.input.messages", "gen_ai.tool.call.arguments", "gen_ai.prompt")
OUTPUT_KEYS = (
    "output.value",
    "gen_ai.output.messages",
    "gen_ai.tool.call.result",
    "gen_ai.completion",
)
INPUT_EVENTS = ("gen_ai.user.message", "gen_ai.system.message", "gen_ai.tool.message")
OUTPUT_EVENTS = ("gen_ai.choice", "gen_ai.assistant.message")
MODEL_KEYS = ("gen_ai.response.model", "gen_ai.request.model", "llm.model_name")
SESSION_KEYS = ("gen_ai.conversation.id", "session.id")
TOOL_KEYS = ("gen_ai.tool.name", "tool.name")
TOKENS_IN_KEYS = ("gen_ai.usage.input_tokens", "llm.token_count.prompt")
TOKENS_OUT_KEYS = ("gen_ai.usage.output_tokens", "llm.token_count.completion")
COST_KEYS = ("llm.cost.total", "gen_ai.usage.cost")
# The OTLP JSON encoding writes these ids in hex, where protobuf's JSON mapping reads base64.
HEX_IDS = frozenset({"traceId", "spanId", "parentSpanId"})


def decode(body: bytes, content_type: str, encoding: str, limit: int) -> ExportTraceServiceRequest:
    """The request `body` says, or `invalid`: gzip unpacked to at most `limit` bytes."""
    if encoding.strip().lower() == "gzip":
        body = _gunzipped(body, limit)
    elif encoding.strip() not in ("", "identity"):
        raise invalid(f"Content-Encoding {encoding[:40]!r}: gzip or none", [_at("encoding")])
    message = ExportTraceServiceRequest()
    try:
        if media_type(content_type) == JSON:
            data = orjson.loads(body)
            if not isinstance(data, dict):
                raise ValueError("JSON that is not an object")
            json_format.ParseDict(_base64_ids(data), message, ignore_unknown_fields=True)
        else:
            message.ParseFromString(body)
    except (DecodeError, json_format.ParseError, ValueError, TypeError, RecursionError) as exc:
        # RecursionError: JSON nested deeper than protobuf's JSON reading recurses (it reads
        # what orjson reads, 1024 levels, one Python frame a level).
        said = f"not an OTLP ExportTraceServiceRequest: {str(exc)[:200]}"
        raise invalid(f"The body is {said}", [_at("body", said)]) from None
    return message


def media_type(content_type: str) -> str:
    return content_type.split(";")[0].strip().lower() or PROTOBUF


def answer(content_type: str, rejected: int, why: str) -> tuple[bytes, str]:
    """The ExportTraceServiceResponse, in the request's encoding, and its media type."""
    response = ExportTraceServiceResponse()
    if rejected:
        response.partial_success.rejected_spans = rejected
        response.partial_success.error_message = why
    if media_type(content_type) == JSON:
        return json_format.MessageToJson(response, indent=None).encode(), JSON
    return response.SerializeToString(), PROTOBUF


def _at(field_name: str, said: str = "") -> dict[str, Any]:
    return detail([field_name], said or "not readable")


def _gunzipped(body: bytes, limit: int) -> bytes:
    unpack = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    try:
        data = unpack.decompress(body, limit + 1)
    except zlib.error as exc:
        raise invalid(f"The body is not gzip: {exc}", [_at("body", "not gzip")]) from None
    if len(data) > limit or unpack.unconsumed_tail:
        raise invalid(f"The body unpacks to more than {limit} bytes", [_at("body", "too large")])
    return data


def _base64_ids(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            key: _hex_to_base64(item)
            if key in HEX_IDS and isinstance(item, str)
            else _base64_ids(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_base64_ids(item) for item in value]
    return value


def _hex_to_base64(text: str) -> str:
    try:
        return base64.b64encode(bytes.fromhex(text)).decode()
    except ValueError:
        return text  # not hex: protobuf's JSON reading says what it is not


# --- spans into traces -----------------------------------------------------------------------


@dataclass
class Trace:
    """One trace's spans in a request, as steps, and what its root (if here) says of its turn."""

    trace_id: str
    steps: list[dict[str, Any]] = field(default_factory=list)
    root: dict[str, Any] | None = None
    spans: int = 0


def traces_of(request: ExportTraceServiceRequest) -> tuple[dict[str, Trace], list[str]]:
    """Each trace of the request by its id (hex), and what was refused, a line a span."""
    traces: dict[str, Trace] = {}
    refused: list[str] = []
    for resource_spans in request.resource_spans:
        resource = _attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                if len(span.trace_id) != TRACE_ID_BYTES or len(span.span_id) != SPAN_ID_BYTES:
                    refused.append(f"span {span.name[:60]!r}: its trace or span id has no length")
                    continue
                trace_id = span.trace_id.hex()
                trace = traces.setdefault(trace_id, Trace(trace_id))
                trace.spans += 1
                step, said = _step(span)
                trace.steps.append(step)
                if not span.parent_span_id:
                    trace.root = _turn_of(said, resource, step)
    return traces, refused


def _step(span: Span) -> tuple[dict[str, Any], dict[str, Any]]:
    said = _attributes(span.attributes)
    events = (
        [(event.name, _attributes(event.attributes)) for event in span.events]
        if span.events
        else []
    )
    kind = _kind(said)
    name = _first(said, TOOL_KEYS) if kind == "tool" else None
    step = {
        "step_id": span.span_id.hex(),
        "parent_id": span.parent_span_id.hex(),
        "name": str(name or span.name or "span")[:200],
        "kind": kind,
        "input": _text(_first(said, INPUT_KEYS) or _event_text(events, INPUT_EVENTS)),
        "output": _text(_first(said, OUTPUT_KEYS) or _event_text(events, OUTPUT_EVENTS)),
        "start": span.start_time_unix_nano * NANO or None,
        "end": span.end_time_unix_nano * NANO or None,
        "status": "error" if span.status.code == STATUS_ERROR else "ok",
        "error": span.status.message if span.status.code == STATUS_ERROR else "",
        "tokens_in": _count(_first(said, TOKENS_IN_KEYS)),
        "tokens_out": _count(_first(said, TOKENS_OUT_KEYS)),
        "cost": _cost(_first(said, COST_KEYS)),
        "attributes": said,
    }
    return step, said


def _turn_of(
    said: dict[str, Any], resource: dict[str, Any], root: dict[str, Any]
) -> dict[str, Any]:
    component = said.get("gen_ai.agent.name") or resource.get("service.name") or ""
    return {
        "session_id": str(_first(said, SESSION_KEYS) or "")[:200],
        "component_name": str(component)[:200],
        "prompt": root["input"],
        "response": root["output"],
        "model": str(_first(said, MODEL_KEYS) or component)[:200],
    }


def _kind(said: dict[str, Any]) -> str:
    openinference = str(said.get("openinference.span.kind", "")).upper()
    if openinference in OPENINFERENCE_KINDS:
        return OPENINFERENCE_KINDS[openinference]
    return GENAI_OPERATIONS.get(str(said.get("gen_ai.operation.name", "")), "other")


def _first(said: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        value = said.get(key)
        if value is not None and value != "":
            return value
    return None


def _event_text(events: list[tuple[str, dict[str, Any]]], names: tuple[str, ...]) -> Any:
    texts = [said.get("content") or said.get("message") for name, said in events if name in names]
    found = [text for text in texts if text]
    if not found:
        return None
    return found[0] if len(found) == 1 else found


def _text(value: Any) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else orjson.dumps(value).decode()
    return text.replace("\x00", "")


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _cost(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return None


def _attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs if pair.key}


def _value(value: AnyValue) -> Any:
    which = value.WhichOneof("value")
    if which == "string_value":  # the most of them: first
        text = value.string_value
        return text.replace("\x00", "") if "\x00" in text else text  # no database keeps a NUL
    if which == "array_value":
        return [_value(item) for item in value.array_value.values]
    if which == "kvlist_value":
        return _attributes(value.kvlist_value.values)
    if which == "bytes_value":
        return base64.b64encode(value.bytes_value).decode()
    if which is None:
        return None
    if which == "double_value" and not math.isfinite(value.double_value):
        return str(value.double_value)  # JSON has no NaN nor infinity
    return getattr(value, which)
