"""What every page shares, whichever app serves it: who may see it, the 403 page, forms and
their errors.

The base of the pages: it imports no app, so that feedback's and refinement's pages build on it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any, ClassVar, Concatenate

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from pydantic import BaseModel, ValidationError

from core.accounts.principals import Principal
from core.accounts.roles import Action
from core.form_words import in_form_words
from core.instants import utc
from core.projects.chosen import principal_chosen
from core.projects.models import Project
from core.projects.selection import visible_projects
from learnportal_protocol.wire import invalid_from

if TYPE_CHECKING:
    from datetime import datetime

    from core.accounts.models import User
    from learnportal_protocol.errors import LearnError

PortalView = Callable[Concatenate[HttpRequest, Principal, ...], HttpResponse]


class AuthenticatedHttpRequest(HttpRequest):
    """The request of a view behind `login_required`: its user is a person, never anonymous.

    For the type checker only (django-stubs' way of saying so); Django never makes one.
    """

    user: User


def nav_links(principal: Principal | None) -> dict[str, bool]:
    """Which navigation links base.html shows: only pages this role may use."""
    if principal is None:
        return {}
    return {
        "rate": principal.may(Action.FEEDBACK) and principal.may(Action.READ_TURNS),
        "import": principal.may(Action.IMPORT_TURNS),
        "queue": principal.may(Action.QUEUE),
        "explorer": principal.may(Action.EXPLORE),
        "components": principal.may(Action.STATS),
        "plans": principal.may(Action.DECIDE),
        "history": principal.may(Action.HISTORY),
        "agreement": principal.may(Action.READ_AGREEMENT),
        "skills": principal.may(Action.DECIDE),
        "accounts": principal.may(Action.MANAGE_ACCOUNTS),
        "webhooks": principal.may(Action.MANAGE_WEBHOOKS),
        "projects": bool(principal.seats) or principal.may(Action.MANAGE_PROJECTS),
    }


def portal_principal(request: HttpRequest) -> Principal | None:
    """Who is asking for a page, in the project they act in (core.projects.chosen)."""
    if not request.user.is_authenticated:
        return None
    return principal_chosen(request.user, request.session)


def header_seat(principal: Principal | None) -> dict[str, Any]:
    """The header's project: the role in it, its name (none in a portal of one project) and
    the projects the picker offers (none unless there is more than one to enter)."""
    if principal is None:
        return {}
    enterable = visible_projects(principal)
    names = {project.slug: project.name for project in enterable}
    projects = Project.objects
    shown = len(enterable) > 1 or projects.exclude(slug=principal.project).exists()
    name = names.get(principal.project)
    if shown and name is None:  # a person in `default` who is no member of it
        name = projects.filter(slug=principal.project).values_list("name", flat=True).first()
    return {
        "role": principal.role.value,
        "slug": principal.project,
        "project": (name or principal.project) if shown else "",
        "choices": enterable if len(enterable) > 1 else [],
        "listed": principal.project in names,
    }


def page(
    request: HttpRequest, template: str, context: dict[str, Any] | None = None, *, status: int = 200
) -> HttpResponse:
    """Render a portal page, with the navigation the person's role allows in the project they
    act in."""
    principal = portal_principal(request)
    context = {**(context or {}), "may": nav_links(principal), "seat": header_seat(principal)}
    return render(request, template, context, status=status)


def forbidden_page(request: HttpRequest, principal: Principal, action: Action) -> HttpResponse:
    """The portal's 403 page: who you are, and what your role may not do."""
    context = {"role": principal.role.value, "action": action.value}
    return page(request, "portal/403.html", context, status=403)


def requires(action: Action) -> Callable[[PortalView], Callable[..., HttpResponse]]:
    """Log in first; then a role that may not `action` gets the 403 page, not the view."""

    def decorate(view: PortalView) -> Callable[..., HttpResponse]:
        @login_required
        @wraps(view)
        def wrapper(request: AuthenticatedHttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            principal = principal_chosen(request.user, request.session)
            if not principal.may(action):
                return forbidden_page(request, principal, action)
            return view(request, principal, *args, **kwargs)

        return wrapper

    return decorate


def when(ts: float | None) -> datetime | None:
    """Epoch seconds, as the services store them, for the `date` and `timesince` filters; None
    (which they show as nothing) for a time no datetime holds (core.instants)."""
    return utc(ts)


def show_learn_error(
    form: forms.Form, error: LearnError, locs: dict[str, str] | None = None
) -> None:
    """Attach each detail to the form field its `loc` names, in words that say what to do
    (`form_words`); the rest to the whole form."""
    locs = locs or {}
    placed = False
    for item in error.details:
        names = [part for part in item.get("loc", []) if isinstance(part, str)]
        field = next(
            (locs.get(n, n) for n in reversed(names) if locs.get(n, n) in form.fields), None
        )
        if field is not None:
            form.add_error(field, in_form_words(item["msg"]))
            placed = True
    if not placed:
        form.add_error(None, error.message)


class BodyForm(forms.Form):
    """A form for one REST body (`body_model`): the model alone judges what is sent.

    Its fields only read text out of the POST (no validators of their own, so no limit or
    message of Django's); then the body model validates it, and each of its refusals is put next
    to the field it names with the message REST gives. A field's limit for the browser (a
    widget's `maxlength`) is the model's constant.
    """

    body_model: ClassVar[type[BaseModel]]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            field.validators = []

    def clean(self) -> dict[str, Any] | None:
        data = super().clean()
        try:
            self.body_model.model_validate(data)
        except ValidationError as exc:
            show_learn_error(self, invalid_from(exc))
        return data
