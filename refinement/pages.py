"""Reviewers: refinement plans, each proposal's risk and diff, the decisions on them, the history."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from learnportal.accounts.roles import Action
from learnportal.protocol.errors import ErrorCode, LearnError
from learnportal.web import page, requires, show_learn_error, when
from refinement.diffs import edits_summary, skill_file_diff, weight_change
from refinement.forms import DECISION_FORMS, ApproveForm, RejectForm
from refinement.learning_store import plan_get, plan_list
from refinement.models import ProposalStatus, Refinement, RefinementStatus
from refinement.selectors import (
    history_page_entries,
    plan_refinements,
    proposal_refinements,
    queued_rollbacks,
    rollback_chain,
)
from refinement.services import (
    proposal_apply_stored,
    proposal_approve,
    proposal_reject,
    refinement_rollback,
)
from refinement.vocabulary import ReviewKind

if TYPE_CHECKING:
    from django.forms import Form

    from learnportal.accounts.principals import Principal

PLANS_SHOWN = 200
HISTORY_PAGE_SIZE = 25
HISTORY_LIST_PARTIAL = "refinement/partials/history_list.html"
NO_PLAN = "-"  # the plan part of a rollback's URL for a refinement of no plan
OPEN = {ProposalStatus.PENDING, ProposalStatus.APPROVED, ProposalStatus.QUEUED}


@requires(Action.DECIDE)
def plan_index(request: HttpRequest, principal: Principal) -> HttpResponse:
    plans = plan_list(principal=principal, limit=PLANS_SHOWN).model_dump(mode="json")
    for plan in plans:
        plan["when"] = when(plan["created"])
        plan["open"] = sum(p["status"] in OPEN for p in plan["proposals"])
        plan["applied"] = sum(p["status"] == ProposalStatus.APPLIED for p in plan["proposals"])
    context = {"plans": plans, "queued_rollbacks": queued_rollbacks(), "no_plan": NO_PLAN}
    return page(request, "refinement/plans.html", context)


@requires(Action.DECIDE)
def plan_show(request: HttpRequest, principal: Principal, plan_id: str) -> HttpResponse:
    return _plan_page(request, principal, plan_id)


def _plan_page(
    request: HttpRequest,
    principal: Principal,
    plan_id: str,
    *,
    forms: dict[tuple[str, str], Form] | None = None,
    status: int = 200,
) -> HttpResponse:
    try:
        plan = plan_get(principal=principal, plan_id=plan_id).model_dump(mode="json")
    except LearnError as error:
        if error.code == ErrorCode.NOT_FOUND:
            raise Http404(error.message) from None
        raise
    refinements = proposal_refinements([p["proposal_id"] for p in plan["proposals"]])
    forms = forms or {}
    for proposal in plan["proposals"]:
        _decorate(proposal, refinements.get(proposal["proposal_id"]))
        proposal["approve_form"] = forms.get(("approve", proposal["proposal_id"]), ApproveForm())
        proposal["reject_form"] = forms.get(("reject", proposal["proposal_id"]), RejectForm())
    plan["when"] = when(plan["created"])
    plan["refinements"] = [_chain(r) for r in plan_refinements(plan_id)]
    context = {"plan": plan, "own_plan": plan["requested_by"] == principal.key}
    return page(request, "refinement/plan.html", context, status=status)


def _decorate(proposal: dict[str, Any], refinement: Refinement | None) -> None:
    # Plans are filed without an automatic review; until one exists, a decision's review
    # carries the same assessment, so its reasons explain the risk as well.
    reviewed = [r for r in proposal["reviews"] if r["reasons"]]
    latest = next(
        (r for r in reviewed if r["kind"] == ReviewKind.AUTO), reviewed[0] if reviewed else None
    )
    proposal["auto_reasons"] = latest["reasons"] if latest else []
    people = {ReviewKind.APPROVE, ReviewKind.REJECT}
    decisions = [r for r in proposal["reviews"] if r["kind"] in people]
    proposal["decision"] = decisions[0] if decisions else None
    if proposal["target"] == "skill_file":
        proposal["diff_lines"] = skill_file_diff(
            proposal["path"], proposal["old_value"], proposal["new_value"]
        )
    elif proposal["target"] == "router_weight":
        proposal["weight"] = weight_change(proposal["old_value"], proposal["new_value"])
    proposal["chain"] = _chain(refinement) if refinement else []
    proposal["may_decide"] = proposal["status"] in OPEN


def _chain(refinement: Refinement) -> list[dict[str, Any]]:
    """A refinement and the rollbacks that followed it, with the one action the last allows.

    An applied one may be rolled back; a rollback queued for a reviewer is applied by rolling
    back what it undoes, which is the reviewer's approval.
    """
    chain = rollback_chain(refinement)
    links: list[dict[str, Any]] = []
    for index, link in enumerate(chain):
        last = index == len(chain) - 1
        action, target = "", ""
        if last and link.status == RefinementStatus.APPLIED:
            action, target = "rollback", link.refinement_id
        elif last and link.status == RefinementStatus.QUEUED and index > 0:
            action, target = "apply_rollback", chain[index - 1].refinement_id
        links.append(
            {
                "refinement": link,
                "is_rollback": index > 0,
                "queued": link.status == RefinementStatus.QUEUED,
                "action": action,
                "target": target,
            }
        )
    return links


@require_POST
@requires(Action.DECIDE)
def proposal_decide(
    request: HttpRequest, principal: Principal, plan_id: str, proposal_id: str, decision: str
) -> HttpResponse:
    if decision not in DECISION_FORMS:
        raise Http404(f"No decision {decision!r}.")
    form = DECISION_FORMS[decision](request.POST)
    forms = {(decision, proposal_id): form}
    if not form.is_valid():
        return _plan_page(request, principal, plan_id, forms=forms, status=400)
    try:
        done = _decide(principal, proposal_id, decision, form.cleaned_data)
    except LearnError as error:
        if any(set(d.get("loc", [])) & form.fields.keys() for d in error.details):
            show_learn_error(form, error)
            return _plan_page(request, principal, plan_id, forms=forms, status=400)
        messages.error(request, error.message)
    else:
        messages.success(request, done)
    return redirect(reverse("portal:plan", args=[plan_id]) + f"#{proposal_id}")


def _decide(principal: Principal, proposal_id: str, decision: str, data: dict[str, Any]) -> str:
    if decision == "approve":
        proposal_approve(principal=principal, proposal_id=proposal_id, note=data["note"])
        return f"Approved {proposal_id}."
    if decision == "reject":
        proposal_reject(principal=principal, proposal_id=proposal_id, reason=data["reason"])
        return f"Rejected {proposal_id}."
    outcome = proposal_apply_stored(principal=principal, proposal_id=proposal_id)
    if outcome.error:
        return f"{proposal_id} was not applied: {outcome.error}"
    return f"Applied {proposal_id} as {outcome.refinement_id}."


def rollback_and_say(request: HttpRequest, principal: Principal, refinement_id: str) -> None:
    """Roll a refinement back for a page, and say how it went in the page's messages."""
    try:
        outcome = refinement_rollback(principal=principal, refinement_id=refinement_id)
    except LearnError as error:
        messages.error(request, error.message)
        return
    if outcome.rolled_back:
        messages.success(
            request, f"Rolled back {refinement_id} (undone by {outcome.rollback_refinement_id})."
        )
    else:
        messages.error(request, f"{refinement_id} was not rolled back: {outcome.error}")


@require_POST
@requires(Action.DECIDE)
def refinement_undo(
    request: HttpRequest, principal: Principal, plan_id: str, refinement_id: str
) -> HttpResponse:
    rollback_and_say(request, principal, refinement_id)
    if plan_id == NO_PLAN:
        return redirect("portal:plans")
    return redirect("portal:plan", plan_id=plan_id)


@requires(Action.HISTORY)
def history_index(request: HttpRequest, principal: Principal) -> HttpResponse:
    paginator = Paginator(history_page_entries(), HISTORY_PAGE_SIZE)
    page_obj = paginator.get_page(request.GET.get("page"))
    entries = []
    for record in page_obj:
        entry = record.as_entry()
        entry["when"] = when(entry["ts"])
        entry["changes"] = edits_summary(entry["diff"])
        entries.append(entry)
    context = {"page_obj": page_obj, "entries": entries}
    # `?partial=1` is what history.js fetches when the server pushes an event.
    template = HISTORY_LIST_PARTIAL if request.GET.get("partial") else "refinement/history.html"
    return page(request, template, context)
