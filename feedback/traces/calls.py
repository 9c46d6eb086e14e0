"""A trace's tool steps as calls of their tools: one experience a step (its id made of the
trace's and the span's, so that a span sent again is the same experience), its reward the one
the agent put on the span (`learnportal.reward`), else 1 for a step that succeeded and -1 for
one that failed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson
from pydantic import TypeAdapter, ValidationError

from learnportal_protocol.models import Experience
from learnportal_protocol.wire import invalid_from

if TYPE_CHECKING:
    from feedback.traces.otlp import Trace

REWARD_KEY = "learnportal.reward"
REWARDS = {"ok": 1.0, "error": -1.0}


EXPERIENCES = TypeAdapter(list[Experience])


def tool_calls(traces: list[Trace]) -> tuple[list[Experience], list[str]]:
    """The tool steps of `traces` as experiences, and a line for each that cannot be one."""
    found = [(trace, step) for trace in traces for step in trace.steps if step["kind"] == "tool"]
    sent = [orjson.dumps(_call(trace, step)) for trace, step in found]
    try:  # all at once, as learn/experience reads a batch; one at a time if any is refused
        return EXPERIENCES.validate_json(b"[" + b",".join(sent) + b"]"), []
    except ValidationError:
        pass
    calls: list[Experience] = []
    refused: list[str] = []
    for (_, step), call in zip(found, sent, strict=True):
        try:
            calls.append(Experience.model_validate_json(call))
        except ValidationError as exc:
            first = invalid_from(exc).details[0]
            refused.append(f"tool step {step['step_id']}: {first['msg']} (not counted)")
    return calls, refused


def _call(trace: Trace, step: dict[str, Any]) -> dict[str, Any]:
    reported = step["attributes"].get(REWARD_KEY)
    numeric = isinstance(reported, int | float) and not isinstance(reported, bool)
    start, end = step["start"], step["end"]
    action: dict[str, Any] = {"component_name": step["name"], "success": step["status"] == "ok"}
    if start is not None and end is not None:
        action["duration_ms"] = (end - start) * 1000
    call = {
        "experience_id": f"otlp-{trace.trace_id}-{step['step_id']}",
        "action": action,
        "reward": float(reported) if numeric else REWARDS[step["status"]],
        "episode_id": trace.trace_id,
    }
    if end is not None or start is not None:
        call["ts"] = end if end is not None else start
    return call
