"""Managers and site admins: the project's intake rules (`/intake/`), each with what it takes
in words, how many turns it let in (in all and in the last day), and its buttons (edit,
enable or disable, delete); and the form that adds a rule or, with `?edit=<id>`, changes one.
Every change goes through the rules' service (feedback.intake.rules) as `/api/intake-rules/`
does, and the page redirects back with what came of it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.shortcuts import redirect

from core.accounts.roles import Action
from core.web import page, requires, show_learn_error
from feedback.intake.forms import IntakeRuleForm
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
    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal
    from feedback.intake.models import IntakeRule

RULE_ID_DIGITS = 18  # a rule's id as a page posts or links it: a bigint's at most
SAVE, TOGGLE, DELETE = "save", "toggle", "delete"  # what a button posts as `do`
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
    editing = _rule_named(rules, request.GET.get("edit", ""))
    form: IntakeRuleForm | None = None
    if request.method == "POST":
        do = request.POST.get("do", "")
        posted = _rule_named(rules, request.POST.get("rule", ""))
        if do == SAVE:
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
    }
    return page(request, "feedback/intake.html", context, status=400 if form.errors else 200)


def _rule_named(rules: list[IntakeRule], text: str) -> IntakeRule | None:
    if not text.isdigit() or len(text) > RULE_ID_DIGITS:
        return None
    return next((rule for rule in rules if rule.pk == int(text)), None)


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
