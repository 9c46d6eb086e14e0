"""Managers and site admins: the project's intake rules (`/intake/`), each with what it takes
in words, how many turns it let in (in all and in the last day), and its buttons (edit,
enable or disable, delete); the form that adds a rule or, with `?edit=<id>`, changes one; and
the parts of the queue kept for named people (feedback.assignments), with the form that keeps
one. Every change goes through the services as `/api/intake-rules/` and
`/api/queue-assignments/` do, and the page redirects back with what came of it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from django.contrib import messages
from django.db.models import Model
from django.shortcuts import redirect

from core.accounts.roles import Action
from core.inputs import posted_id
from core.web import page, requires, show_learn_error
from feedback.assignments.rules import (
    AssignmentRequest,
    assignment_add,
    assignment_remove,
    assignments_read,
)
from feedback.intake.forms import AssignmentForm, IntakeRuleForm
from feedback.intake.rules import (
    FIELDS,
    IntakeRuleRequest,
    rule_add,
    rule_change,
    rule_remove,
    rules_read,
)
from learnportal_protocol.errors import LearnError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal
    from feedback.assignments.models import QueueAssignment
    from feedback.intake.models import IntakeRule

Row = TypeVar("Row", bound=Model)
SAVE, TOGGLE, DELETE = "save", "toggle", "delete"  # what a button posts as `do`
ASSIGN, UNASSIGN = "assign", "unassign"
ASSIGNING = "assign"  # the assignment form's fields' prefix: the rule's form has a component too
NO_SUCH_RULE = "No such intake rule in this project: nothing changed."


def taken_in_words(rule: IntakeRule) -> list[str]:
    """What the rule takes, a phrase a criterion (none: every turn)."""
    said = []
    if rule.component:
        said.append(f"turns of {rule.component}")
    if rule.metadata_key:
        said.append(f"whose environment holds {rule.metadata_key}")
    if rule.about_feedback:
        source = {"human": "people's", "env": "environments'", "self": "agents' own"}
        said.append(f"on {source.get(rule.source, 'any')} feedback")
        if rule.polarity:
            said.append(rule.polarity)
        if rule.score_min is not None:
            said.append(f"score at least {rule.score_min:g}")
        if rule.score_max is not None:
            said.append(f"score at most {rule.score_max:g}")
        if rule.confidence_below is not None:
            said.append(f"confidence below {rule.confidence_below:g}")
        if rule.judge_agreement_below is not None:
            said.append(f"its judge agreeing with people below {rule.judge_agreement_below:g}")
    return said or ["every turn as it arrives"]


@requires(Action.MANAGE_PROJECT)
def intake(request: HttpRequest, principal: Principal) -> HttpResponse:
    rules = rules_read(principal)
    editing = _named(rules, request.GET.get("edit", ""))
    form: IntakeRuleForm | None = None
    assigning = AssignmentForm(rules=rules, prefix=ASSIGNING)
    if request.method == "POST":
        do = request.POST.get("do", "")
        posted = _named(rules, request.POST.get("rule", ""))
        if do in (ASSIGN, UNASSIGN):
            assigning = AssignmentForm(request.POST, rules=rules, prefix=ASSIGNING)
            if _assigned(request, principal, do, assigning):
                return redirect(request.path)
        elif do == SAVE:
            form = IntakeRuleForm(request.POST)
            if _saved(request, principal, form, posted):
                return redirect(request.path)
            editing = posted
        else:
            _toggle_or_delete(request, principal, do, posted)
            return redirect(request.path)
    if form is None:
        form = IntakeRuleForm(initial=_initial(editing))
    context = {
        "rules": [(rule, taken_in_words(rule)) for rule in rules],
        "form": form,
        "editing": editing,
        "assignments": assignments_read(principal),
        "assigning": assigning,
    }
    refused = form.errors or assigning.errors
    return page(request, "feedback/intake.html", context, status=400 if refused else 200)


def _named(rows: Sequence[Row], text: str) -> Row | None:
    """The row among these whose id a page posted or linked as `text`, if any."""
    wanted = posted_id(text)
    return next((row for row in rows if row.pk == wanted), None) if wanted is not None else None


def _initial(rule: IntakeRule | None) -> dict[str, Any]:
    if rule is None:
        return {"enabled": True, "priority": 0}
    return {name: getattr(rule, name) for name in FIELDS}


def _saved(
    request: HttpRequest, principal: Principal, form: IntakeRuleForm, rule: IntakeRule | None
) -> bool:
    """Add the rule the form holds, or change `rule` to it: whether it was stored (else the
    form holds why not)."""
    if not form.is_valid():
        return False
    body = IntakeRuleRequest.model_validate(form.cleaned_data)
    try:
        stored = (
            rule_add(principal, body) if rule is None else rule_change(principal, rule.pk, body)
        )
    except LearnError as error:
        show_learn_error(form, error)
        return False
    verb = "Added" if rule is None else "Saved"
    messages.success(request, f"{verb} the rule {stored.name}.")
    return True


def _toggle_or_delete(
    request: HttpRequest, principal: Principal, do: str, rule: IntakeRule | None
) -> None:
    if rule is None or do not in (TOGGLE, DELETE):
        messages.error(request, NO_SUCH_RULE)
        return
    if do == DELETE:
        rule_remove(principal, rule.pk)
        messages.success(request, f"Deleted the rule {rule.name}: the turns it let in stay in.")
        return
    fields = {name: getattr(rule, name) for name in FIELDS} | {"enabled": not rule.enabled}
    rule_change(principal, rule.pk, IntakeRuleRequest.model_validate(fields))
    state = "enabled" if not rule.enabled else "disabled"
    messages.success(request, f"The rule {rule.name} is {state}.")


def _assigned(request: HttpRequest, principal: Principal, do: str, form: AssignmentForm) -> bool:
    """Keep a part of the queue for the people the form names, or delete the assignment it
    posts: whether that was done (else the form holds why not)."""
    if do == UNASSIGN:
        found = _named(assignments_read(principal), request.POST.get("assignment", ""))
        if found is None:
            messages.error(request, "No such assignment in this project: nothing changed.")
        else:
            assignment_remove(principal, found.pk)
            messages.success(request, f"Opened {_part(found)} to everyone again.")
        return True
    if not form.is_valid():
        return False
    try:
        made = assignment_add(principal, AssignmentRequest.model_validate(form.cleaned_data))
    except LearnError as error:
        show_learn_error(form, error)
        return False
    messages.success(request, f"Kept {_part(made)} for {', '.join(made.usernames)}.")
    return True


def _part(assignment: QueueAssignment) -> str:
    if assignment.rule is not None:
        return f"the turns the rule {assignment.rule.name} let in"
    if assignment.component:
        return f"the turns of {assignment.component}"
    return "the whole queue"
