"""People and tokens in the portal: admins manage accounts and machine tokens; everyone their
own personal tokens.

Thin over `core.accounts.services`, which the commands share. A new token's raw value is
in the answer to the POST that made it, once (never stored, never in a redirect or the session),
sent with `Cache-Control: no-store`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_POST

from core.accounts import services
from core.accounts.models import ApiToken, User
from core.accounts.roles import Action
from core.web import page, requires, show_learn_error
from learnportal.people.forms import (
    HUMAN_CHOICES,
    ActiveForm,
    MachineTokenForm,
    PersonAddForm,
    PersonalTokenForm,
    RoleForm,
)
from learnportal_protocol.errors import LearnError

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal
    from core.web import AuthenticatedHttpRequest


def _once(response: HttpResponse) -> HttpResponse:
    add_never_cache_headers(response)
    return response


# People -------------------------------------------------------------------------------------


def _people_page(
    request: HttpRequest,
    *,
    form: PersonAddForm | None = None,
    row_errors: dict[int, str] | None = None,
    status: int = 200,
) -> HttpResponse:
    context = {
        "people": services.people(),
        "form": form or PersonAddForm(),
        "row_errors": row_errors or {},
        "roles": [value for value, _ in HUMAN_CHOICES],
    }
    return page(request, "accounts/people.html", context, status=status)


@requires(Action.MANAGE_ACCOUNTS)
def people_index(request: HttpRequest, principal: Principal) -> HttpResponse:
    return _people_page(request)


@require_POST
@requires(Action.MANAGE_ACCOUNTS)
def person_add(request: HttpRequest, principal: Principal) -> HttpResponse:
    form = PersonAddForm(request.POST)
    if form.is_valid():
        try:
            person = services.person_add(**form.cleaned_data)
        except LearnError as error:
            show_learn_error(form, error)
        else:
            messages.success(request, f"Added {person.username} as {form.cleaned_data['role']}.")
            return redirect("portal:people")
    return _people_page(request, form=form, status=400)


def _person_change(
    request: HttpRequest, person_id: int, form: RoleForm | ActiveForm
) -> HttpResponse:
    person = get_object_or_404(User, pk=person_id)
    actor = cast("User", request.user)  # behind `requires`: a person, logged in
    if not form.is_valid():
        return _people_page(
            request, row_errors={person.pk: "Choose one of the options."}, status=400
        )
    try:
        if isinstance(form, RoleForm):
            services.person_set_role(actor=actor, person=person, role=form.cleaned_data["role"])
            done = f"{person.username} is now {person.effective_role}."
        else:
            active = form.cleaned_data["active"]
            services.person_set_active(actor=actor, person=person, active=active)
            done = f"{person.username} is {'active again' if active else 'deactivated'}."
    except LearnError as error:
        return _people_page(request, row_errors={person.pk: error.message}, status=400)
    messages.success(request, done)
    return redirect("portal:people")


@require_POST
@requires(Action.MANAGE_ACCOUNTS)
def person_role(request: HttpRequest, principal: Principal, person_id: int) -> HttpResponse:
    return _person_change(request, person_id, RoleForm(request.POST))


@require_POST
@requires(Action.MANAGE_ACCOUNTS)
def person_active(request: HttpRequest, principal: Principal, person_id: int) -> HttpResponse:
    return _person_change(request, person_id, ActiveForm(request.POST))


# Machine tokens -----------------------------------------------------------------------------


def _tokens_page(
    request: HttpRequest,
    *,
    form: MachineTokenForm | None = None,
    new_token: dict[str, str] | None = None,
    status: int = 200,
) -> HttpResponse:
    context = {
        "tokens": services.machine_tokens(),
        "form": form or MachineTokenForm(),
        "new_token": new_token,
    }
    return page(request, "accounts/tokens.html", context, status=status)


@requires(Action.MANAGE_ACCOUNTS)
def token_index(request: HttpRequest, principal: Principal) -> HttpResponse:
    return _tokens_page(request)


@require_POST
@requires(Action.MANAGE_ACCOUNTS)
def token_create(request: HttpRequest, principal: Principal) -> HttpResponse:
    form = MachineTokenForm(request.POST)
    if form.is_valid():
        try:
            token, raw = services.token_issue(**form.cleaned_data)
        except LearnError as error:
            show_learn_error(form, error)
        else:
            shown = {"name": token.name, "role": token.role, "raw": raw}
            return _once(_tokens_page(request, new_token=shown, status=201))
    return _tokens_page(request, form=form, status=400)


@require_POST
@requires(Action.MANAGE_ACCOUNTS)
def token_revoke(request: HttpRequest, principal: Principal, token_id: int) -> HttpResponse:
    token = get_object_or_404(ApiToken, pk=token_id)
    _revoke(request, lambda: services.token_revoke(token=token))
    return redirect("portal:tokens")


def _revoke(request: HttpRequest, revoke: Any) -> None:
    try:
        token = revoke()
    except LearnError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"Revoked {token.name}; it no longer works.")


# Personal tokens: everyone's own ---------------------------------------------------------------


def _own_tokens_page(
    request: AuthenticatedHttpRequest,
    *,
    form: PersonalTokenForm | None = None,
    new_token: dict[str, str] | None = None,
    status: int = 200,
) -> HttpResponse:
    context = {
        "tokens": services.personal_tokens(request.user),
        "form": form or PersonalTokenForm(),
        "new_token": new_token,
        "prefix": services.personal_token_name(request.user, ""),
    }
    return page(request, "accounts/own_tokens.html", context, status=status)


@login_required
def own_token_index(request: AuthenticatedHttpRequest) -> HttpResponse:
    return _own_tokens_page(request)


@require_POST
@login_required
def own_token_create(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = PersonalTokenForm(request.POST)
    if form.is_valid():
        try:
            token, raw = services.personal_token_issue(
                user=request.user, label=form.cleaned_data["label"]
            )
        except LearnError as error:
            show_learn_error(form, error)
        else:
            shown = {"name": token.name, "role": request.user.effective_role.value, "raw": raw}
            return _once(_own_tokens_page(request, new_token=shown, status=201))
    return _own_tokens_page(request, form=form, status=400)


@require_POST
@login_required
def own_token_revoke(request: AuthenticatedHttpRequest, token_id: int) -> HttpResponse:
    _revoke(request, lambda: services.personal_token_revoke(user=request.user, token_id=token_id))
    return redirect("portal:own-tokens")
