"""Small builders for request envelopes and a snapshot of what is stored."""

from __future__ import annotations

import itertools
from typing import Any

from feedback.models import ComponentStats, Experience, Feedback, Turn

_ids = itertools.count(1)


def next_id(prefix: str) -> str:
    return f"{prefix}-{next(_ids)}"


def turn(model: str = "agent-v1", response: str = "The answer is 42.", **extra: Any) -> dict:
    return {"prompt": "What is the answer?", "response": response, "model": model, **extra}


def feedback(**fields: Any) -> dict[str, Any]:
    return {"feedback_id": next_id("fb"), "polarity": "positive", "score": 0.5, **fields}


def experience(component: str = "", **fields: Any) -> dict[str, Any]:
    action = fields.pop("action", {})
    if component:
        action = {"component_name": component, **action}
    return {"experience_id": next_id("exp"), "action": action, "reward": 0.5, **fields}


def feedback_req(*items: dict[str, Any], **envelope: Any) -> dict[str, Any]:
    return {"type": "learn/feedback/req", "id": next_id("lf"), "feedbacks": list(items), **envelope}


def experience_req(*items: dict[str, Any], **envelope: Any) -> dict[str, Any]:
    return {
        "type": "learn/experience/req",
        "id": next_id("le"),
        "experiences": list(items),
        **envelope,
    }


def stats_req(component_name: str = "", **envelope: Any) -> dict[str, Any]:
    return {
        "type": "learn/stats/req",
        "id": next_id("ls"),
        "component_name": component_name,
        **envelope,
    }


def stored() -> dict[str, int]:
    """Row counts of everything a learn/* write may touch."""
    return {
        "feedback": Feedback.objects.count(),
        "experience": Experience.objects.count(),
        "turn": Turn.objects.count(),
        "components": ComponentStats.objects.count(),
    }
