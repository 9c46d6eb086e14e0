"""`POST /v1/traces`: an agent instrumented with the OpenTelemetry SDK changes only its
exporter's endpoint and token, and its traces become turns with steps (docs/contract.md,
"Traces"); OTLP's JSON and gzip too; what cannot be stored is refused by trace, named in the
answer's partial_success."""

from __future__ import annotations

import gzip
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from django.test import override_settings
from google.protobuf import json_format
from openinference.semconv.trace import OpenInferenceSpanKindValues, SpanAttributes
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
from opentelemetry.trace import Status, StatusCode

from core.projects.services import project_add
from feedback.models import Experience, Turn, TurnStep
from tests.builders import stats_req
from tests.factories import ApiTokenFactory
from tests.harness import Actor, human_actor, token_actor

if TYPE_CHECKING:
    from collections.abc import Iterator

pytestmark = pytest.mark.django_db

TRACE = "5b8efff798038103d269b633813fc60c"
# An attribute nested 300 arrays deep: JSON orjson reads, deeper than Python's stack for
# protobuf's reading of it.
DEEP = (
    b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"attributes": [{"key": "a", "value": '
    + b'{"arrayValue": {"values": [' * 300
    + b'{"stringValue": "x"}'
    + b"]}}" * 300
    + b"}]}]}]}]}"
)
ROOT, TOOL, LLM = "eee19b7ec3c1b174", "eee19b7ec3c1b175", "eee19b7ec3c1b176"


def key_value(key: str, value: Any) -> dict[str, Any]:
    kinds = {str: "stringValue", bool: "boolValue", int: "intValue", float: "doubleValue"}
    return {"key": key, "value": {kinds[type(value)]: value}}


def span(span_id: str, parent: str, name: str, **attributes: Any) -> dict[str, Any]:
    """A span in OTLP JSON with these attributes (`gen_ai`'s own underscore kept, the others
    dots: `tool_name` is `tool.name`)."""
    return {
        "traceId": TRACE,
        "spanId": span_id,
        "parentSpanId": parent,
        "name": name,
        "startTimeUnixNano": "1800000000000000000",
        "endTimeUnixNano": "1800000001500000000",
        "attributes": [key_value(_key(k), v) for k, v in attributes.items()],
    }


def _key(word: str) -> str:
    return word.replace("_", ".").replace("gen.ai.", "gen_ai.")


def otlp_json(*spans: dict[str, Any], service: str = "shop-agent") -> dict[str, Any]:
    resource = {"attributes": [key_value("service.name", service)]}
    return {"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": list(spans)}]}]}


def post(actor: Actor, body: bytes, content_type: str = "application/json", **headers: str) -> Any:
    client: Any = actor.client  # its stubs take a str body and no extra headers
    return client.post("/v1/traces", data=body, content_type=content_type, **headers)


def answered(response: Any) -> ExportTraceServiceResponse:
    assert response.status_code == 200, response.content
    message = ExportTraceServiceResponse()
    if response["Content-Type"] == "application/json":
        json_format.Parse(response.content, message)
    else:
        message.ParseFromString(response.content)
    return message


# --- the real exporter -----------------------------------------------------------------------


@pytest.fixture
def tracer_of(asgi_server: str) -> Iterator[Any]:
    """A tracer whose spans the SDK's OTLP/HTTP protobuf exporter sends to the server, each as
    it ends (children before their root), with an agent's token."""
    token = ApiTokenFactory.create(name="traced-agent", role="agent").raw
    exporter = OTLPSpanExporter(
        endpoint=f"{asgi_server}/v1/traces", headers={"Authorization": f"Bearer {token}"}
    )
    provider = TracerProvider(resource=Resource.create({"service.name": "shop-agent"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider.get_tracer("tests")
    provider.shutdown()


def test_an_agent_on_the_sdk_sends_its_run_as_a_turn_with_steps(tracer_of: Any) -> None:
    tracer = tracer_of
    with tracer.start_as_current_span("invoke_agent shopper") as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        root.set_attribute("gen_ai.agent.name", "shopper")
        root.set_attribute("gen_ai.conversation.id", "conv-7")
        root.set_attribute("input.value", "Find me a red kettle")
        with tracer.start_as_current_span("chat gpt") as llm:
            llm.set_attribute("gen_ai.operation.name", "chat")
            llm.set_attribute("gen_ai.request.model", "gpt-x")
            llm.set_attribute("gen_ai.usage.input_tokens", 42)
            llm.set_attribute("gen_ai.usage.output_tokens", 7)
        with tracer.start_as_current_span("execute_tool") as tool:
            tool.set_attribute("gen_ai.operation.name", "execute_tool")
            tool.set_attribute("gen_ai.tool.name", "catalog_search")
            tool.set_attribute("gen_ai.tool.call.arguments", '{"q": "red kettle"}')
            tool.set_status(Status(StatusCode.ERROR, "catalog timed out"))
        root.set_attribute("output.value", "I could not search the catalog.")
        trace_id = format(root.get_span_context().trace_id, "032x")
    stored = Turn.objects.get(correlation_id=trace_id)
    assert (stored.session_id, stored.component_name, stored.model) == (
        "conv-7",
        "shopper",
        "shopper",
    )
    assert (stored.prompt, stored.response) == (
        "Find me a red kettle",
        "I could not search the catalog.",
    )  # the root came last: its turn was made by its children, then filled
    steps = {s.kind: s for s in TurnStep.objects.filter(turn=stored)}
    assert sorted(steps) == ["agent", "llm", "tool"]
    assert (steps["tool"].name, steps["tool"].status, steps["tool"].error) == (
        "catalog_search",
        "error",
        "catalog timed out",
    )
    assert steps["tool"].input == '{"q": "red kettle"}'
    assert (steps["llm"].tokens_in, steps["llm"].tokens_out) == (42, 7)
    assert (
        steps["tool"].parent_id
        == steps["agent"].step_id
        == format(root.get_span_context().span_id, "016x")
    )
    assert steps["agent"].end is not None and steps["agent"].start is not None
    assert steps["agent"].end >= steps["agent"].start


def test_an_openinference_agent_flushes_its_batch_and_the_run_is_in_the_queue_at_once(
    asgi_server: str,
) -> None:
    token = ApiTokenFactory.create(name="oi-agent", role="agent").raw
    exporter = OTLPSpanExporter(
        endpoint=f"{asgi_server}/v1/traces", headers={"Authorization": f"Bearer {token}"}
    )
    provider = TracerProvider(resource=Resource.create({"service.name": "rag-agent"}))
    provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=60_000))
    tracer = provider.get_tracer("tests")
    kind = SpanAttributes.OPENINFERENCE_SPAN_KIND
    with tracer.start_as_current_span("answer") as root:
        root.set_attribute(kind, OpenInferenceSpanKindValues.CHAIN.value)
        root.set_attribute(SpanAttributes.SESSION_ID, "sess-3")
        root.set_attribute(SpanAttributes.INPUT_VALUE, "Who wrote Dune?")
        with tracer.start_as_current_span("retrieve") as retrieval:
            retrieval.set_attribute(kind, OpenInferenceSpanKindValues.RETRIEVER.value)
            retrieval.set_attribute(SpanAttributes.OUTPUT_VALUE, "Dune (1965), Frank Herbert")
        with tracer.start_as_current_span("lookup") as tool:
            tool.set_attribute(kind, OpenInferenceSpanKindValues.TOOL.value)
            tool.set_attribute(SpanAttributes.TOOL_NAME, "wiki")
        with tracer.start_as_current_span("llm") as llm:
            llm.set_attribute(kind, OpenInferenceSpanKindValues.LLM.value)
            llm.set_attribute(SpanAttributes.LLM_MODEL_NAME, "small-1")
            llm.set_attribute(SpanAttributes.LLM_TOKEN_COUNT_PROMPT, 30)
        root.set_attribute(SpanAttributes.OUTPUT_VALUE, "Frank Herbert.")
        trace_id = format(root.get_span_context().trace_id, "032x")
    assert not Turn.objects.filter(correlation_id=trace_id).exists()  # still in the batch
    assert provider.force_flush()
    annotator = human_actor("oi-ann", "annotator")
    leased = annotator.rest("post", "/api/queue/next/")
    assert leased.status_code == 200, leased.content
    queued = leased.json()["turn"]
    assert (queued["correlation_id"], queued["session_id"]) == (trace_id, "sess-3")
    assert queued["rated_turn"]["response"] == "Frank Herbert."
    shown = annotator.rest("get", f"/api/turns/{queued['id']}/").json()["steps"]
    kinds = {step["name"]: step["kind"] for step in shown}
    assert kinds == {"answer": "chain", "retrieve": "retrieval", "wiki": "tool", "llm": "llm"}
    provider.shutdown()


# --- JSON, gzip, OpenInference ---------------------------------------------------------------


def test_otlp_json_with_gzip_and_openinference_attributes(agent: Actor) -> None:
    body = otlp_json(
        span(
            ROOT,
            "",
            "agent",
            openinference_span_kind="AGENT",
            session_id="s-1",
            input_value="What is 2+2?",
            output_value="4",
        ),
        span(TOOL, ROOT, "calc", openinference_span_kind="TOOL", tool_name="calculator"),
    )
    response = post(agent, gzip.compress(orjson.dumps(body)), HTTP_CONTENT_ENCODING="gzip")
    assert response["Content-Type"] == "application/json"
    assert answered(response).partial_success.rejected_spans == 0
    turn = Turn.objects.get(correlation_id=TRACE)
    assert (turn.session_id, turn.prompt, turn.response, turn.component_name) == (
        "s-1",
        "What is 2+2?",
        "4",
        "shop-agent",
    )
    tool = TurnStep.objects.get(step_id=TOOL)
    assert (tool.kind, tool.name, tool.parent_id, tool.start) == (
        "tool",
        "calculator",
        ROOT,
        1_800_000_000.0,
    )


def test_protobuf_is_answered_in_protobuf_and_a_span_resent_is_stored_once(agent: Actor) -> None:
    message = ExportTraceServiceRequest()
    json_format.ParseDict(_base64(otlp_json(span(ROOT, "", "root"))), message)
    for _ in range(2):
        response = post(agent, message.SerializeToString(), "application/x-protobuf")
        assert response["Content-Type"] == "application/x-protobuf"
        assert answered(response).partial_success.rejected_spans == 0
    assert TurnStep.objects.filter(step_id=ROOT).count() == 1


def _base64(value: Any) -> Any:
    import base64

    if isinstance(value, dict):
        return {
            k: base64.b64encode(bytes.fromhex(v)).decode()
            if k in ("traceId", "spanId", "parentSpanId")
            else _base64(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_base64(v) for v in value]
    return value


# --- refusals --------------------------------------------------------------------------------


@override_settings(LEARNPORTAL_MAX_STEP_ATTRIBUTES_BYTES=256)
def test_a_trace_that_breaks_a_bound_is_refused_by_name_and_the_others_stored(
    agent: Actor,
) -> None:
    other = "0af7651916cd43dd8448eb211c80319c"
    bad = {**span("aaaaaaaaaaaaaaaa", "", "big", big_note="x" * 400), "traceId": other}
    response = post(agent, orjson.dumps(otlp_json(span(ROOT, "", "fine"), bad)))
    partial = answered(response).partial_success
    assert partial.rejected_spans == 1
    assert other in partial.error_message and "attributes" in partial.error_message
    assert list(Turn.objects.values_list("correlation_id", flat=True)) == [TRACE]


def test_a_span_without_proper_ids_is_refused_and_counted(agent: Actor) -> None:
    broken = {**span(ROOT, "", "broken"), "spanId": "abcd"}
    partial = answered(post(agent, orjson.dumps(otlp_json(broken)))).partial_success
    assert (partial.rejected_spans, "broken" in partial.error_message) == (1, True)
    assert not Turn.objects.exists()


@pytest.mark.parametrize(
    ("body", "headers", "field"),
    [
        (b"\x0a\xff\xff", {"content_type": "application/x-protobuf"}, "body"),
        (b"{not json", {}, "body"),
        (b"1", {}, "body"),
        (b'["resourceSpans"]', {}, "body"),
        (DEEP, {}, "body"),
        (b"plain", {"HTTP_CONTENT_ENCODING": "gzip"}, "body"),
        (b"{}", {"HTTP_CONTENT_ENCODING": "br"}, "encoding"),
        (gzip.compress(b"0" * 5000), {"HTTP_CONTENT_ENCODING": "gzip"}, "body"),
    ],
    ids=[
        "bad-protobuf",
        "bad-json",
        "json-number",
        "json-list",
        "json-nested-too-deep",
        "not-gzip",
        "unknown-encoding",
        "unpacks-too-large",
    ],
)
@override_settings(LEARNPORTAL_MAX_BODY_BYTES=2048)
def test_a_body_that_does_not_decode_is_invalid_and_stores_nothing(
    agent: Actor, body: bytes, headers: dict[str, str], field: str
) -> None:
    content_type = headers.pop("content_type", "application/json")
    response = post(agent, body, content_type, **headers)
    assert response.status_code == 400, response.content
    assert [d["loc"] for d in response.json()["details"]] == [[field]]
    assert not Turn.objects.exists()


def test_only_an_agent_or_environment_sends_traces_and_in_its_own_project(
    anonymous: Actor, ann: Actor
) -> None:
    body = orjson.dumps(otlp_json(span(ROOT, "", "root")))
    assert post(anonymous, body).status_code == 401
    assert post(ann, body).status_code == 403
    project_add(slug="beta", name="Beta")
    answered(post(token_actor("beta-env", "environment", project="beta"), body))
    assert list(Turn.objects.values_list("project__slug", flat=True)) == ["beta"]
    assert (
        human_actor("beta-rev", "reviewer", project="beta")
        .rest("get", "/api/turns/")
        .json()["results"][0]["correlation_id"]
        == TRACE
    )


@override_settings(LEARNPORTAL_MAX_BATCH=1)
def test_more_traces_than_a_batch_holds_is_too_large(agent: Actor) -> None:
    second = {**span(TOOL, "", "other"), "traceId": "0af7651916cd43dd8448eb211c80319c"}
    response = post(agent, orjson.dumps(otlp_json(span(ROOT, "", "root"), second)))
    assert response.status_code == 413
    assert not Turn.objects.exists()


def test_each_tool_step_is_a_call_of_its_tool_once_with_its_reward(agent: Actor) -> None:
    failed = {**span(TOOL, ROOT, "lookup", gen_ai_operation_name="execute_tool",
                     gen_ai_tool_name="catalog"), "status": {"code": 2, "message": "down"}}  # fmt: skip
    rewarded = span(
        LLM, ROOT, "lookup", gen_ai_operation_name="execute_tool", gen_ai_tool_name="catalog"
    )
    rewarded["attributes"].append(key_value("learnportal.reward", 0.5))
    body = orjson.dumps(otlp_json(span(ROOT, "", "agent"), failed, rewarded))
    for _ in range(2):  # the exporter's retry: the same calls
        assert answered(post(agent, body)).partial_success.rejected_spans == 0
    answer = agent.learn(stats_req("catalog")).json()
    assert answer.get("type") == "learn/stats/resp", answer.get("message")
    stats = answer["components"][0]
    assert (stats["calls_total"], stats["calls_success"], stats["calls_failed"]) == (2, 1, 1)
    assert stats["avg_duration_ms"] == pytest.approx(1500.0)
    rewards = sorted(Experience.objects.values_list("reward", flat=True))
    assert rewards == [-1.0, 0.5]
    assert set(Experience.objects.values_list("episode_id", flat=True)) == {TRACE}


def test_a_revoked_token_sends_no_more_traces(agent: Actor) -> None:
    from core.accounts import services
    from core.accounts.models import ApiToken

    body = orjson.dumps(otlp_json(span(ROOT, "", "root")))
    answered(post(agent, body))
    services.token_revoke(token=ApiToken.objects.get(name="agent-1"))
    other = orjson.dumps(otlp_json({**span(TOOL, "", "later"), "traceId": "1" * 32}))
    assert post(agent, other).status_code == 401
    assert list(Turn.objects.values_list("correlation_id", flat=True)) == [TRACE]


def test_calls_over_the_experience_quota_store_none_of_the_request(
    agent: Actor, settings: Any
) -> None:
    """The turns and their tool calls are one write: a refusal of the calls leaves no turn
    stored without them."""
    settings.LEARNPORTAL_EXPERIENCE_OVERFLOW = "reject"
    settings.LEARNPORTAL_EXPERIENCE_LIMIT = 1
    tools = [
        span(step_id, ROOT, "lookup", gen_ai_operation_name="execute_tool", gen_ai_tool_name="db")
        for step_id in (TOOL, LLM)
    ]
    response = post(agent, orjson.dumps(otlp_json(span(ROOT, "", "agent"), *tools)))
    assert response.status_code == 429, response.content
    assert not Turn.objects.exists()
    assert not Experience.objects.exists()
