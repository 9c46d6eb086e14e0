"""Where a proposal id from a request resolves: a client-chosen id is its principal's own.

A `proposal_id` is chosen by the client, so it names a proposal among the ones this principal
requested (unique per principal, `Proposal.Meta`): another agent can neither reach one by its id
nor take an id first to make the owner's request conflict. A plan's proposals are named within
their plan (plan ids are the host's, unique); an agent reaches only its own plans, a reviewer or
admin any. People deciding from the dashboard or REST name a proposal by its id, with its
requester (or plan) where several principals use that id. All of it within one project: a
proposal or plan of another project is not there (`not_found`, as one that does not exist).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Q

from core.projects.selection import project_pk
from learnportal_protocol.errors import detail, forbidden, invalid, not_found
from refinement.models import Plan, Proposal
from refinement.permissions import by_person

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from core.accounts.principals import Principal

NO_PLAN = "-"  # the plan part of a URL for a proposal or refinement of no plan


def own(principal: Principal) -> Q:
    """The proposals whose ids are this principal's: the ones it requested, in the project it
    acts in."""
    return Q(project=project_pk(principal.project), requested_by=principal.key)


def resendable(principal: Principal) -> Q:
    """The open proposals that the same edit, sent again without ids, may stand for: a
    reviewer's or admin's (whose act is the approval it waits for) anyone's in the project, an
    agent's its own."""
    return Q(project=project_pk(principal.project)) if by_person(principal) else own(principal)


def reachable_plan(principal: Principal, plan_id: str) -> Plan | None:
    """The plan a request's `plan_id` names (None for none, or one of another project, as for
    one that does not exist), refused if it is another agent's."""
    project = project_pk(principal.project)
    plan = Plan.objects.filter(project=project, plan_id=plan_id).first() if plan_id else None
    if plan is not None and plan.requested_by != principal.key and not by_person(principal):
        raise forbidden(
            f"Plan {plan.plan_id} belongs to {plan.requested_by}; only they, a reviewer or an "
            "admin may name it. Send the proposal without its plan_id.",
            [detail(["proposal", "plan_id"], "a plan of another principal")],
        )
    return plan


def stored_proposal(
    rows: QuerySet[Proposal],
    project: int,
    proposal_id: str,
    *,
    requested_by: str = "",
    plan_id: str = "",
) -> Proposal:
    """A stored proposal of the project as a person names it: its id, and its requester or plan
    if need be.

    `plan_id` is a plan's id, `NO_PLAN` for a proposal of none, or "" for any.
    """
    rows = rows.filter(project=project, proposal_id=proposal_id)
    if requested_by:
        rows = rows.filter(requested_by=requested_by)
    if plan_id == NO_PLAN:
        rows = rows.filter(plan__isnull=True)
    elif plan_id:
        rows = rows.filter(plan__plan_id=plan_id)
    found = list(rows.order_by("id")[:2])
    if not found:
        raise not_found(f"No proposal {proposal_id!r}.")
    if len(found) > 1:
        raise invalid(
            f"Several principals use proposal id {proposal_id!r}; say whose with requested_by.",
            [detail(["requested_by"], "required: the proposal id is not unique")],
        )
    return found[0]
