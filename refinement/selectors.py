"""Read-only queries over refinements that pages may use; the services own every write."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from refinement import store
from refinement.answers import Routing
from refinement.models import (
    HistoryEntry,
    Proposal,
    ProposalStatus,
    Refinement,
    RefinementStatus,
    Revision,
)
from refinement.paths import UNWEIGHTED, WEIGHT_PREFIX

if TYPE_CHECKING:
    from django.db.models import QuerySet

CHAIN_LIMIT = 50


def routing_read() -> Routing:
    """The current routing weights, as a runtime's component selection reads them.

    Relative traffic shares (the most favoured component at 1.0, `refinement.adapt.targets_for`):
    a runtime picks among its candidates in proportion to them (README, "Routing weights").
    """
    return Routing(weights=store.routing_weights(), updated=store.routing_updated())


def rollback_chain(refinement: Refinement) -> list[Refinement]:
    """The refinement, its rollback, the rollback of that and so on, oldest first.

    The last one may be a rollback queued for a reviewer.
    """
    chain = [refinement]
    while len(chain) < CHAIN_LIMIT:
        undo = Refinement.objects.filter(rollback_of=chain[-1]).first()
        if undo is None:
            break
        chain.append(undo)
    return chain


def plan_refinements(plan_id: str) -> list[Refinement]:
    """A plan's refinements that no one proposal stands for (an adapt's bulk step), oldest first."""
    return list(
        Refinement.objects.filter(
            plan__plan_id=plan_id, proposal__isnull=True, rollback_of__isnull=True
        ).order_by("ts", "id")
    )


def queued_rollbacks(*, limit: int = 50) -> list[Refinement]:
    """Machines' rollbacks waiting for a reviewer, oldest first, whatever plan they belong to."""
    return list(
        Refinement.objects.filter(status=RefinementStatus.QUEUED, rollback_of__isnull=False)
        .select_related("rollback_of", "plan")
        .order_by("ts", "id")[:limit]
    )


def proposal_refinements(proposal_ids: list[str]) -> dict[str, Refinement]:
    """Each proposal's latest applied or rolled-back refinement, by proposal id."""
    found: dict[str, Refinement] = {}
    rows = (
        Refinement.objects.filter(
            proposal__proposal_id__in=proposal_ids, status__in=["applied", "rolled_back"]
        )
        .select_related("proposal")
        .order_by("ts", "id")
    )
    for refinement in rows:
        if refinement.proposal is not None:  # as filtered: said again for the type checker
            found[refinement.proposal.proposal_id] = refinement
    return found


def history_page_entries() -> QuerySet[HistoryEntry]:
    """The whole history, newest first, for a paginator (`history_entries` stops at a limit)."""
    return HistoryEntry.objects.order_by("-ts", "-id")


def open_proposal_count() -> int:
    """Proposals waiting for a decision: pending, or queued for a reviewer."""
    return Proposal.objects.filter(
        status__in=[ProposalStatus.PENDING, ProposalStatus.QUEUED]
    ).count()


@dataclass(frozen=True)
class WeightChange:
    """One applied change of a component's routing weight, and the refinement that made it."""

    ts: float
    before: float
    after: float
    actor: str
    refinement_id: str
    plan_id: str
    is_rollback: bool


def _weight(value: object) -> float:
    return float(value) if isinstance(value, int | float) else UNWEIGHTED


def weight_history(component_name: str, *, limit: int) -> list[WeightChange]:
    """The newest `limit` changes of the component's weight, oldest first: one range of the
    revisions' (path, ts) index, however many adapts there were."""
    rows = (
        Revision.objects.filter(path=WEIGHT_PREFIX + component_name)
        .order_by("-ts", "-id")
        .values_list(
            "ts",
            "before",
            "after",
            "actor",
            "refinement__refinement_id",
            "refinement__plan__plan_id",
            "refinement__rollback_of_id",
        )[:limit]
    )
    changes = [
        WeightChange(
            ts=ts,
            before=_weight(before),
            after=_weight(after),
            actor=actor,
            refinement_id=refinement_id or "",
            plan_id=plan_id or "",
            is_rollback=rollback_of is not None,
        )
        for ts, before, after, actor, refinement_id, plan_id, rollback_of in list(rows)[::-1]
    ]
    return changes


def component_weight(component_name: str) -> float:
    """The weight in force (0.5 for a component never weighted)."""
    return store.routing_weights_of([component_name]).get(component_name, UNWEIGHTED)
