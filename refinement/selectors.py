"""Read-only queries over refinements that pages may use; the services own every write."""

from __future__ import annotations

from refinement.models import Refinement

CHAIN_LIMIT = 50


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
