"""OTLP traces into turns and steps, through the one path `POST /api/turns/` takes
(feedback.services.turns): a trace that breaks a bound is refused whole, the others stored.
Each tool step of a stored trace is then a call of its tool, as an experience through the one
path `learn/experience` takes (feedback.services.experiences): its stats, its hours and its
rewards for routing follow, with no `learn/*` of the agent's own."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
from django.conf import settings
from django.db import transaction
from pydantic import ValidationError

from core.accounts.roles import Action
from core.projects.selection import project_pk
from feedback.models import Turn
from feedback.services.experiences import experience_store
from feedback.services.turns import turns_store
from feedback.traces.calls import tool_calls
from feedback.traces.otlp import traces_of
from feedback.turn_items import TurnItem, TurnsRequest, turn_inputs, turns_batch_checked
from learnportal_protocol.errors import ErrorCode, LearnError
from learnportal_protocol.wire import invalid_from

if TYPE_CHECKING:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )

    from core.accounts.principals import Principal
    from feedback.services.experiences import RoutingPolicy
    from feedback.traces.otlp import Trace

NO_ROOT = {"session_id": "", "component_name": "", "prompt": "", "response": "", "model": ""}


def traces_ingest(
    *, principal: Principal, request: ExportTraceServiceRequest, policy: RoutingPolicy
) -> tuple[int, list[str]]:
    """Store the request's traces as turns with their steps, and their tool steps as calls
    (chosen under `policy`, as experiences are): how many spans were refused, and why, a line
    each."""
    principal.require(Action.SUBMIT_TURNS)
    traces, refused = traces_of(request)
    turns_batch_checked(len(traces))  # a trace is a turn: as many as one request may carry
    rejected = len(refused)
    kept: list[tuple[Trace, TurnItem]] = []
    items = [orjson.dumps(_item(trace)) for trace in traces.values()]
    try:  # the whole request at once, as /api/turns/ reads one; a trace at a time if refused
        whole = TurnsRequest.model_validate_json(b'{"turns":[' + b",".join(items) + b"]}")
        kept = list(zip(traces.values(), whole.turns, strict=True))
    except ValidationError:
        for trace, item in zip(traces.values(), items, strict=True):
            try:
                kept.append((trace, TurnItem.model_validate_json(item)))
            except ValidationError as exc:
                first = invalid_from(exc).details[0]
                place = ".".join(str(part) for part in first["loc"])
                refused.append(f"trace {trace.trace_id}: {place}: {first['msg']}")
                rejected += trace.spans
    with transaction.atomic():  # one commit: the turns and their calls, or neither
        for _ in range(2):  # a trace the store refuses (a bound counting stored steps) is left out
            try:
                turns_store(principal=principal, turns=turn_inputs([item for _, item in kept]))
                break
            except LearnError as error:
                if error.code != ErrorCode.INVALID:
                    raise
                named = {d["loc"][1] for d in error.details if d["loc"][:1] == ["turns"]}
                for index in sorted(named, reverse=True):
                    trace, _ = kept.pop(index)
                    refused.append(f"trace {trace.trace_id}: {_message(error, index)}")
                    rejected += trace.spans
        _roots_fill(principal, [trace for trace, _ in kept if trace.root is not None])
        calls, refused_calls = tool_calls([trace for trace, _ in kept])
        refused.extend(refused_calls)
        for start in range(0, len(calls), settings.LEARNPORTAL_MAX_BATCH):
            part = calls[start : start + settings.LEARNPORTAL_MAX_BATCH]
            experience_store(principal=principal, experiences=part, policy=policy)
    return rejected, refused


def _item(trace: Trace) -> dict[str, Any]:
    root = trace.root or NO_ROOT
    return {
        "correlation_id": trace.trace_id,
        "session_id": root["session_id"],
        "component_name": root["component_name"],
        "rated_turn": {k: root[k] for k in ("prompt", "response", "model")},
        "steps": trace.steps,
    }


def _message(error: LearnError, index: int) -> str:
    said = [str(d["msg"]) for d in error.details if d["loc"][1:2] == [index]]
    return "; ".join(said)[:300]


def _roots_fill(principal: Principal, rooted: list[Trace]) -> None:
    """A turn made before its root span came (from its other spans) takes what the root says:
    one read finds them (most turns were made with their root), an UPDATE each."""
    project = project_pk(principal.project)
    turns = Turn.objects.filter(project_id=project, **NO_ROOT)
    waiting = set(
        turns.filter(correlation_id__in=[trace.trace_id for trace in rooted]).values_list(
            "correlation_id", flat=True
        )
    )
    for trace in rooted:
        if trace.trace_id in waiting and trace.root is not None:
            turns.filter(correlation_id=trace.trace_id).update(**trace.root)
