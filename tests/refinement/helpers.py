"""What the refinement tests build their data from: calls and corrections sent as an agent
(their bodies are tests/builders.py's)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from feedback.models import ComponentOwner
from refinement import store
from refinement.paths import locate
from tests.builders import experience, experience_req, feedback, feedback_req
from tests.harness import default_pk

if TYPE_CHECKING:
    from refinement.models import Plan, Proposal
    from refinement.paths import Target
    from tests.harness import Actor


def calls(
    actor: Actor, component: str, n: int, *, reward: float, success: bool | None = None
) -> None:
    """Store `n` calls of a component through learn/experience/req (over HTTP)."""
    outcome = {} if success is None else {"success": success}
    experiences = [
        experience(component, action={"duration_ms": 100.0 + i, **outcome}, reward=reward)
        for i in range(n)
    ]
    response = actor.learn(experience_req(*experiences))
    assert response.status_code == 200, response.json()
    assert response.json()["stored"] == n


def corrections(actor: Actor, component: str, texts: list[str]) -> None:
    """Corrective feedback for a component through learn/feedback/req (source self)."""
    feedbacks = [
        feedback(
            polarity="corrective",
            score=-0.5,
            correction=text,
            source="self",
            component_name=component,
        )
        for text in texts
    ]
    response = actor.learn(feedback_req(*feedbacks))
    assert response.status_code == 200, response.json()
    assert response.json()["recorded"] == len(texts)


def own(owner: str, *components: str) -> None:
    """Make `owner` (a principal's key) the owner of components built without an ingest, as
    its first reported call would (feedback.attribution)."""
    ComponentOwner.objects.bulk_create(
        ComponentOwner(project_id=default_pk(), component_name=name, owner=owner, claimed=0.0)
        for name in components
    )


def two_arms(actor: Actor) -> None:
    """`alpha` does well and `beta` badly: every strategy prefers alpha."""
    calls(actor, "alpha", 30, reward=0.9, success=True)
    calls(actor, "beta", 30, reward=-0.8, success=False)


def weight(component: str) -> float | None:
    return store.routing_weights(default_pk()).get(component)


def weighted(component: str) -> float:
    """The weight of a component that has one."""
    found = weight(component)
    assert found is not None, f"{component} has no weight"
    return found


def plan_of(proposal: Proposal) -> Plan:
    """The plan a proposal was filed in (these tests' proposals all have one)."""
    assert proposal.plan is not None, f"{proposal.proposal_id} is in no plan"
    return proposal.plan


def value_at(target: Target, path: str) -> Any:
    """The store's value at a path a proposal for `target` may write."""
    location = locate(target, path)
    assert location is not None, f"{path} is no path for {target}"
    return store.read(location, project=default_pk())
