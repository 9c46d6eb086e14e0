"""Bodies of learn/* requests, as a client sends them over HTTP or WebSocket (one unique id
sequence for all), and a snapshot of what is stored.

The items (`turn`, `feedback`, `experience`) are factory_boy DictFactories: each sends its few
defaults and what the test adds, nothing else, so that the host's defaults are the ones tested.
The rows and protocol items the services take are tests/factories'.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

import factory

from feedback.models import ComponentStats, Experience, Feedback, Turn
from refinement.paths import weight_path

_ids = itertools.count(1)


def next_id(prefix: str) -> str:
    return f"{prefix}-{next(_ids)}"


# A DictFactory is generic in factory_boy's stubs alone, not when the module runs.
if TYPE_CHECKING:
    Body = factory.DictFactory[dict[str, Any]]
else:
    Body = factory.DictFactory


class TurnBody(Body):
    prompt = "What is the answer?"
    response = "The answer is 42."
    model = "agent-v1"


class FeedbackBody(Body):
    feedback_id = factory.LazyFunction(lambda: next_id("fb"))
    polarity = "positive"
    score = 0.5


class ExperienceBody(Body):
    experience_id = factory.LazyFunction(lambda: next_id("exp"))
    action: factory.LazyFunction[dict[str, Any]] = factory.LazyFunction(dict)
    reward = 0.5


turn = TurnBody.build
feedback = FeedbackBody.build


def experience(component: str = "", **fields: Any) -> dict[str, Any]:
    """An experience of a call of `component` (its action's component_name, beside what else
    the action says)."""
    action = fields.pop("action", {})
    if component:
        action = {"component_name": component, **action}
    return ExperienceBody.build(action=action, **fields)


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


def adapt_req(strategy: str = "ppo", component_name: str = "") -> dict[str, Any]:
    return {
        "type": "learn/adapt/req",
        "id": next_id("la"),
        "strategy": strategy,
        "component_name": component_name,
    }


def plan_req(component_name: str = "", scope: str = "local") -> dict[str, Any]:
    return {
        "type": "learn/refinement/plan/req",
        "id": next_id("lp"),
        "component_name": component_name,
        "scope": scope,
    }


def review_req(proposal: dict[str, Any]) -> dict[str, Any]:
    return {"type": "learn/refinement/review/req", "id": next_id("lr"), "proposal": proposal}


def apply_req(proposal: dict[str, Any]) -> dict[str, Any]:
    return {"type": "learn/refinement/apply/req", "id": next_id("lx"), "proposal": proposal}


def rollback_req(refinement_id: str) -> dict[str, Any]:
    return {
        "type": "learn/refinement/rollback/req",
        "id": next_id("lb"),
        "refinement_id": refinement_id,
    }


def history_req() -> dict[str, Any]:
    return {"type": "learn/refinement/history/req", "id": next_id("lh")}


def weight_proposal(component: str, old: Any, new: Any, **extra: Any) -> dict[str, Any]:
    return {
        "target": "router_weight",
        "op": "update",
        "path": weight_path(component),
        "old_value": old,
        "new_value": new,
        **extra,
    }


def file_proposal(path: str, old: Any, new: Any, op: str | None = None) -> dict[str, Any]:
    if op is None:
        op = "create" if old is None else ("delete" if new is None else "update")
    return {"target": "skill_file", "op": op, "path": path, "old_value": old, "new_value": new}


def stored() -> dict[str, int]:
    """Row counts of everything a learn/* write may touch."""
    return {
        "feedback": Feedback.objects.count(),
        "experience": Experience.objects.count(),
        "turn": Turn.objects.count(),
        "components": ComponentStats.objects.count(),
    }
