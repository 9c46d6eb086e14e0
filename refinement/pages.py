"""Reviewers: refinement plans, each proposal's risk and diff, the decisions on them, the history."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from core.accounts.roles import Action
from core.inputs import QueryModel, QueryText, page_query
from core.projects.selection import project_pk
from core.web import page, requires, show_learn_error, when
from learnportal_protocol.errors import ErrorCode, LearnError
from refinement.diffs import edits_summary, side_by_side, weight_step
from refinement.forms import DECISION_FORMS
from refinement.learning_store import plan_get
from refinement.models import OPEN_PROPOSAL, Refinement, RefinementStatus
from refinement.permissions import Permission, Verb
from refinement.proposal_ids import NO_PLAN
from refinement.review import describe
from refinement.selectors import (
    HistoryCursor,
    HistoryFilters,
    history_links,
    history_page,
    plan_proposal,
    plan_proposals,
    plan_refinements,
    plan_rows,
    proposal_refinements,
    queued_rollback_of,
    queued_rollbacks,
    refinement_get,
    rollback_chain,
)
from refinement.services.apply import proposal_apply_stored
from refinement.services.approval import proposal_approve, proposal_permissions, proposal_reject
from refinement.services.register import proposal_wire
from refinement.services.rollback import refinement_rollback, rollback_permission
from refinement.vocabulary import PlanStatus, ReviewKind, RiskLevel

if TYPE_CHECKING:
    from django.forms import Form

    from core.accounts.principals import Principal
    from refinement.models import Proposal
    from refinement.review import Assessment

PLANS_SHOWN = 200
HISTORY_PAGE_SIZE = 25
ROLLBACK_EDITS_SHOWN = 20
FIELD_ID = "decision-%s"  # the confirm page has one form, so its fields may have ids


@requires(Action.DECIDE)
def plan_index(request: HttpRequest, principal: Principal) -> HttpResponse:
    status = request.GET.get("status", "")
    if status not in {s.value for s in PlanStatus}:
        status = ""
    plans = [
        _plan_row(row, principal)
        for row in plan_rows(project_pk(principal.project), status=status, limit=PLANS_SHOWN)
    ]
    context = {
        "plans": plans,
        "status": status,
        "statuses": [s.value for s in PlanStatus],
        "shown": PLANS_SHOWN,
        "queued_rollbacks": queued_rollbacks(project_pk(principal.project)),
        "no_plan": NO_PLAN,
    }
    return page(request, "refinement/plans.html", context)


def _plan_row(row: dict[str, Any], principal: Principal) -> dict[str, Any]:
    return {
        **row,
        "when": when(row["created"]),
        "requester": requester(row["requested_by"], principal),
    }


def requester(key: str, principal: Principal) -> dict[str, Any]:
    """Who requested a plan, for its badge: a machine (a token) or a person, and whether it is you."""
    kind, _, name = key.partition(":")
    return {
        "key": key,
        "name": name or key,
        "kind": "machine" if kind == "token" else "person",
        "you": key == principal.key,
    }


@requires(Action.DECIDE)
def plan_show(request: HttpRequest, principal: Principal, plan_id: str) -> HttpResponse:
    try:
        plan = plan_get(principal=principal, plan_id=plan_id).model_dump(mode="json")
    except LearnError as error:
        if error.code == ErrorCode.NOT_FOUND:
            raise Http404(error.message) from None
        raise
    project = project_pk(principal.project)
    records = plan_proposals(project, plan_id)
    judged = proposal_permissions(principal=principal, records=records)
    refinements = proposal_refinements(records)
    for proposal in plan["proposals"]:
        assessment, permissions = judged[proposal["proposal_id"]]
        _decorate(proposal, assessment, refinements.get(proposal["proposal_id"]))
        proposal["actions"] = _actions(plan_id, proposal, permissions)
        proposal["chain"] = _chain(principal, plan_id, refinements.get(proposal["proposal_id"]))
    plan["when"] = when(plan["created"])
    plan["refinements"] = [
        _chain(principal, plan_id, r) for r in plan_refinements(project, plan_id)
    ]
    plan["requester"] = requester(plan["requested_by"], principal)
    plan["risk_level"] = max(
        (RiskLevel(p["risk_level"]) for p in plan["proposals"]), default=RiskLevel.NONE
    ).value
    plan["open_ids"] = [p["proposal_id"] for p in plan["proposals"] if p["status"] in OPEN_PROPOSAL]
    plan["open"] = len(plan["open_ids"])
    plan["bulk"] = _bulk_actions(plan_id, plan["open"])
    context = {"plan": plan, "own_plan": plan["requester"]["you"]}
    return page(request, "refinement/plan.html", context)


def _decorate(
    proposal: dict[str, Any], assessment: Assessment, refinement: Refinement | None
) -> None:
    """A proposal's review and diff, shaped for its card."""
    # Plans are filed without an automatic review; until one exists, a decision's review
    # carries the same assessment, so its reasons explain the risk as well.
    reviewed = [r for r in proposal["reviews"] if r["reasons"]]
    latest = next(
        (r for r in reviewed if r["kind"] == ReviewKind.AUTO), reviewed[0] if reviewed else None
    )
    proposal["auto_reasons"] = latest["reasons"] if latest else []
    proposal["confidence_adjusted"] = assessment.confidence_adjusted or any(
        r["confidence_adjusted"] for r in proposal["reviews"] if r["current"]
    )
    people = {ReviewKind.APPROVE, ReviewKind.REJECT}
    decisions = [r for r in proposal["reviews"] if r["kind"] in people]
    proposal["decision"] = decisions[0] if decisions else None
    proposal["open"] = proposal["status"] in OPEN_PROPOSAL
    # What is there now, if it is not what the proposal expects (only news while it is open).
    proposal["stale"] = (
        {"expected": describe(proposal["old_value"]), "found": describe(assessment.current)}
        if assessment.conflict and proposal["open"]
        else None
    )
    if proposal["target"] == "skill_file":
        proposal["rows"] = side_by_side(proposal["old_value"], proposal["new_value"])
        proposal["old_absent"] = proposal["old_value"] is None
        proposal["new_absent"] = proposal["new_value"] is None
    elif proposal["target"] == "router_weight":
        proposal["weight"] = weight_step(
            proposal["old_value"], proposal["new_value"], settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK
        )


BULK_FROM = 2  # open proposals from which a plan's page offers to decide them all at once


def _bulk_actions(plan_id: str, open_count: int) -> list[dict[str, str]]:
    """The buttons that approve or apply every open proposal shown (refinement.plan_decisions)."""
    if open_count < BULK_FROM:
        return []
    return [
        {
            "decision": decision,
            "label": f"{decision.capitalize()} all {open_count} open…",
            "url": reverse("portal:decide-all", args=[plan_id, decision]),
        }
        for decision in ("approve", "apply")
    ]


ACTION_LABELS = {Verb.APPROVE: "Approve…", Verb.REJECT: "Reject…", Verb.APPLY: "Apply…"}


def _actions(
    plan_id: str, proposal: dict[str, Any], permissions: dict[Verb, Permission]
) -> list[dict[str, Any]]:
    """An open proposal's buttons, each enabled or disabled with the reason `may` gives."""
    if not proposal["open"]:
        return []
    return [
        {
            "verb": verb.value,
            "label": ACTION_LABELS[verb],
            "url": reverse("portal:decide", args=[plan_id, proposal["proposal_id"], verb.value]),
            "allowed": permissions[verb].allowed,
            "reason": permissions[verb].reason,
            "id": f"{proposal['proposal_id']}-{verb.value}-why",
        }
        for verb in ACTION_LABELS
    ]


def _chain(
    principal: Principal, plan_id: str, refinement: Refinement | None
) -> list[dict[str, Any]]:
    """A refinement and the rollbacks that followed it, with the one action the last allows.

    An applied one may be rolled back; a rollback queued for a reviewer is applied by rolling
    back what it undoes, which is the reviewer's approval.
    """
    if refinement is None:
        return []
    chain = rollback_chain(refinement)
    links: list[dict[str, Any]] = []
    for index, link in enumerate(chain):
        last = index == len(chain) - 1
        action, target = "", None
        if last and link.status == RefinementStatus.APPLIED:
            action, target = "rollback", link
        elif last and link.status == RefinementStatus.QUEUED and index > 0:
            action, target = "apply_rollback", chain[index - 1]
        permission = rollback_permission(principal=principal, refinement=target) if target else None
        links.append(
            {
                "refinement": link,
                "is_rollback": index > 0,
                "rolls_back": chain[index - 1].refinement_id if index > 0 else "",
                "rolled_back_by": chain[index + 1].refinement_id if not last else "",
                "queued": link.status == RefinementStatus.QUEUED,
                "action": action,
                "url": reverse("portal:rollback", args=[plan_id, target.refinement_id])
                if target
                else "",
                "allowed": permission.allowed if permission else False,
                "reason": permission.reason if permission else "",
                "id": f"{link.refinement_id}-why",
            }
        )
    return links


@require_http_methods(["GET", "POST"])
@requires(Action.DECIDE)
def proposal_decide(
    request: HttpRequest, principal: Principal, plan_id: str, proposal_id: str, decision: str
) -> HttpResponse:
    """GET asks to confirm the decision (the page works without JavaScript); POST makes it."""
    if decision not in DECISION_FORMS:
        raise Http404(f"No decision {decision!r}.")
    try:
        record = plan_proposal(
            project_pk(principal.project),
            plan_id,
            proposal_id,
            requested_by=request.GET.get("requested_by", ""),
        )
    except LearnError as error:  # none, or several principals' (name one: ?requested_by=)
        raise Http404(error.message) from None
    if request.method == "GET":
        return _confirm_decision(
            request, principal, record, decision, DECISION_FORMS[decision](auto_id=FIELD_ID)
        )
    form = DECISION_FORMS[decision](request.POST, auto_id=FIELD_ID)
    if not form.is_valid():
        return _confirm_decision(request, principal, record, decision, form, status=400)
    try:
        done = decide(principal, record, decision, form.cleaned_data)
    except LearnError as error:
        if any(set(d.get("loc", [])) & form.fields.keys() for d in error.details):
            show_learn_error(form, error)
            return _confirm_decision(request, principal, record, decision, form, status=400)
        return _confirm_decision(
            request,
            principal,
            record,
            decision,
            form,
            refusal=error.message,
            status=error.http_status,
        )
    messages.success(request, done)
    return redirect(reverse("portal:plan", args=[plan_id]) + f"#{proposal_id}")


CONFIRM = {
    "approve": ("Approve", "It can then be applied, by you or another reviewer."),
    "reject": ("Reject", "It will not be applied; the requester reads your reason."),
    "apply": ("Apply", "The change goes live now; it can be rolled back afterwards."),
}


def _confirm_decision(
    request: HttpRequest,
    principal: Principal,
    record: Proposal,
    decision: str,
    form: Form,
    *,
    refusal: str = "",
    status: int = 200,
) -> HttpResponse:
    assessment, permissions = proposal_permissions(principal=principal, records=[record])[
        record.proposal_id
    ]
    proposal = proposal_wire(record) | {
        "status": record.status,
        "risk_level": record.risk_level,
        "reviews": [],
    }
    _decorate(proposal, assessment, None)
    proposal["auto_reasons"] = assessment.reasons + assessment.blocking  # the review now
    permission = permissions[Verb(decision)]
    verb, consequence = CONFIRM[decision]
    context = {
        "verb": verb,
        "decision": decision,
        "consequence": consequence,
        "proposal": proposal,
        "plan_id": record.plan.plan_id if record.plan else NO_PLAN,
        "form": form,
        "allowed": permission.allowed and not refusal,
        "refusal": refusal or permission.reason,
        "action_url": request.get_full_path(),
    }
    return page(request, "refinement/confirm_decision.html", context, status=status)


def decide(principal: Principal, record: Proposal, decision: str, data: dict[str, Any]) -> str:
    """Make one decision on one proposal through its service; say what was done."""
    named = {
        "proposal_id": record.proposal_id,
        "requested_by": record.requested_by,
        "plan_id": record.plan.plan_id if record.plan else NO_PLAN,
    }
    proposal_id = record.proposal_id
    if decision == "approve":
        proposal_approve(principal=principal, note=data["note"], **named)
        return f"Approved {proposal_id}."
    if decision == "reject":
        proposal_reject(principal=principal, reason=data["reason"], **named)
        return f"Rejected {proposal_id}."
    outcome = proposal_apply_stored(principal=principal, **named)
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


@require_http_methods(["GET", "POST"])
@requires(Action.DECIDE)
def refinement_undo(
    request: HttpRequest, principal: Principal, plan_id: str, refinement_id: str
) -> HttpResponse:
    """GET asks to confirm the rollback; POST rolls back (or applies the queued rollback)."""
    refinement = refinement_get(project_pk(principal.project), refinement_id)
    if refinement is None:
        raise Http404(f"No refinement {refinement_id!r}.")
    back = reverse("portal:plans") if plan_id == NO_PLAN else reverse("portal:plan", args=[plan_id])
    if request.method == "GET":
        return _confirm_rollback(request, principal, refinement, back)
    try:
        outcome = refinement_rollback(principal=principal, refinement_id=refinement_id)
    except LearnError as error:
        return _confirm_rollback(
            request, principal, refinement, back, refusal=error.message, status=error.http_status
        )
    if outcome.rolled_back:
        messages.success(
            request, f"Rolled back {refinement_id} (undone by {outcome.rollback_refinement_id})."
        )
    else:
        messages.error(request, f"{refinement_id} was not rolled back: {outcome.error}")
    return redirect(back)


def _confirm_rollback(
    request: HttpRequest,
    principal: Principal,
    refinement: Refinement,
    back: str,
    *,
    refusal: str = "",
    status: int = 200,
) -> HttpResponse:
    permission = rollback_permission(principal=principal, refinement=refinement)
    queued = queued_rollback_of(refinement)
    context = {
        "refinement": refinement,
        "queued": queued,
        # What the rollback does: each edit from what it wrote back to what it found.
        "changes": edits_summary(
            [
                {"path": e["path"], "before": e["after"], "after": e["before"]}
                for e in refinement.edits[:ROLLBACK_EDITS_SHOWN]
            ]
        ),
        "more": max(0, len(refinement.edits) - ROLLBACK_EDITS_SHOWN),
        "back": back,
        "allowed": permission.allowed and not refusal,
        "refusal": refusal or permission.reason,
        "action_url": request.path,
    }
    return page(request, "refinement/confirm_rollback.html", context, status=status)


class HistoryQuery(QueryModel):
    path: QueryText = ""
    actor: QueryText = ""
    kind: QueryText = ""
    refinement: QueryText = ""
    before: QueryText = ""
    after: QueryText = ""


@requires(Action.HISTORY)
def history_index(request: HttpRequest, principal: Principal) -> HttpResponse:
    query, problems = page_query(HistoryQuery, request.GET)
    filters = HistoryFilters.of(query.model_dump())
    before = HistoryCursor.parse(query.before)
    after = HistoryCursor.parse(query.after)
    records, older, newer = history_page(
        project_pk(principal.project), filters, before=before, after=after, size=HISTORY_PAGE_SIZE
    )
    links = history_links([r.refinement_id for r in records if r.refinement_id])
    entries = []
    for record in records:
        entry = record.as_entry()
        entry["id"] = record.pk
        entry["when"] = when(entry["ts"])
        entry["changes"] = edits_summary(entry["diff"])
        entry["links"] = links.get(record.refinement_id, {})
        entries.append(entry)
    kept = filters.query()
    first_page = before is None and after is None
    context = {
        "entries": entries,
        "filters": filters,
        "kinds": HISTORY_KINDS,
        "older": f"?{kept}&before={older}" if older else "",
        "newer": f"?{kept}&after={newer}" if newer else "",
        "newest": f"?{kept}" if not first_page else "",
        "query_errors": problems,
        # Only the newest page follows live events: live.js fetches the page's own URL again
        # and swaps its history region for the fresh one.
        "live": first_page,
    }
    return page(request, "refinement/history.html", context, status=400 if problems else 200)


HISTORY_KINDS = (
    "plan",
    "review",
    "approve",
    "reject",
    "queue",
    "apply",
    "rollback",
    "change",
    "adapt",
    "run",
    "workflow",
)
