"""A reviewer approves or applies every open proposal a plan's page showed, with one confirmation.

Each proposal is decided by the same service as one by one (`pages.decide`: the same checks,
its own transaction), so one refused proposal does not hold back the others: the page says,
per proposal, what was done and why one was refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from core.accounts.roles import Action
from core.projects.selection import project_pk
from core.web import page, requires
from learnportal_protocol.errors import LearnError
from refinement.models import OPEN_PROPOSAL
from refinement.pages import decide
from refinement.permissions import Verb
from refinement.selectors import plan_proposals
from refinement.services.approval import proposal_permissions

if TYPE_CHECKING:
    from core.accounts.principals import Principal
    from refinement.models import Proposal

BULK_VERBS = {"approve": Verb.APPROVE, "apply": Verb.APPLY}
DONE_WORDS = {"approve": "approved", "apply": "applied"}
CHOOSE_AGAIN = "Open the plan's page again and press the button there."
NONE_CHOSEN = f"No proposal was chosen. {CHOOSE_AGAIN}"
NOT_OPEN = "%(value)s is no open proposal of this plan (decided meanwhile?). " + CHOOSE_AGAIN


class ShownProposalsForm(forms.Form):
    """The open proposals the plan's page showed, by id (hidden: the page chose them)."""

    proposal = forms.MultipleChoiceField(
        widget=forms.MultipleHiddenInput,
        error_messages={"required": NONE_CHOSEN, "invalid_choice": NOT_OPEN},
    )

    def __init__(self, data: dict[str, Any], *, open_ids: list[str]) -> None:
        super().__init__(data, auto_id=False)
        field = self.fields["proposal"]
        assert isinstance(field, forms.MultipleChoiceField)
        field.choices = [(proposal_id, proposal_id) for proposal_id in open_ids]


@require_http_methods(["GET", "POST"])
@requires(Action.DECIDE)
def plan_decide_all(
    request: HttpRequest, principal: Principal, plan_id: str, decision: str
) -> HttpResponse:
    """GET lists what would be decided and asks to confirm; POST decides each in turn."""
    if decision not in BULK_VERBS:
        raise Http404(f"No decision {decision!r} for a whole plan.")
    records = plan_proposals(project_pk(principal.project), plan_id)
    if not records:
        raise Http404(f"No plan {plan_id!r} with proposals.")
    open_records = {r.proposal_id: r for r in records if r.status in OPEN_PROPOSAL}
    if request.method == "POST":
        asked = request.POST.getlist("proposal")
    else:  # without a choice, every open proposal, as the plan's page shows them
        asked = request.GET.getlist("proposal") or list(open_records)
    form = ShownProposalsForm({"proposal": asked}, open_ids=list(open_records))
    if request.method == "GET" or not form.is_valid():
        chosen = [open_records[i] for i in dict.fromkeys(asked) if i in open_records]
        status = 400 if form.errors else 200
        return _confirm_all(request, principal, plan_id, decision, form, chosen, status)
    done, refused = [], []
    for proposal_id in form.cleaned_data["proposal"]:
        try:
            done.append(decide(principal, open_records[proposal_id], decision, {"note": ""}))
        except LearnError as error:
            refused.append(f"{proposal_id}: {error.message}")
    if done:
        messages.success(request, f"{len(done)} of {len(done) + len(refused)}: " + " ".join(done))
    for why in refused:
        messages.error(request, f"Not {DONE_WORDS[decision]}, {why}")
    return redirect(reverse("portal:plan", args=[plan_id]))


def _confirm_all(
    request: HttpRequest,
    principal: Principal,
    plan_id: str,
    decision: str,
    form: ShownProposalsForm,
    records: list[Proposal],
    status: int,
) -> HttpResponse:
    judged = proposal_permissions(principal=principal, records=records)
    verb = BULK_VERBS[decision]
    permissions = [judged[record.proposal_id][1][verb] for record in records]
    rows = [
        {"proposal": record, "allowed": permission.allowed, "reason": permission.reason}
        for record, permission in zip(records, permissions, strict=True)
    ]
    context = {
        "plan_id": plan_id,
        "decision": decision,
        "verb": decision.capitalize(),
        "done_word": DONE_WORDS[decision],
        "rows": rows,
        "allowed": sum(permission.allowed for permission in permissions),
        "errors": [e for errors in form.errors.values() for e in errors],
        "action_url": request.path,
    }
    return page(request, "refinement/confirm_all.html", context, status=status)
