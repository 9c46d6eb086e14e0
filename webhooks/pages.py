"""The admins' webhook pages: register (the secret shown once), list, each endpoint's delivery
log with a redeliver button, remove. Thin over `webhooks.services`, as REST is, and over the
endpoints of the project the person acts in (core.projects.chosen): another project's endpoint
is missing, as one that does not exist."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlencode

from django.contrib import messages
from django.shortcuts import redirect
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_POST

from core.accounts.roles import Action
from core.inputs import page_query
from core.projects.selection import project_pk
from core.web import page, requires, show_learn_error, when
from learnportal_protocol.errors import ErrorCode, LearnError
from webhooks import services
from webhooks.forms import EndpointForm
from webhooks.log import DeliveryLogQuery, log_page
from webhooks.models import DeliveryState

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal


# The endpoint just registered and its secret, kept in the (server-side) session from the POST
# to the page it redirects to, which shows them once.
CREATED_KEY = "webhooks.created"


def _index(
    request: HttpRequest,
    principal: Principal,
    *,
    form: EndpointForm | None = None,
    created: dict[str, str] | None = None,
    status: int = 200,
) -> HttpResponse:
    context = {
        "endpoints": services.endpoints_list(project=project_pk(principal.project)),
        "form": form or EndpointForm(),
        "created": created,
    }
    return page(request, "webhooks/index.html", context, status=status)


@requires(Action.MANAGE_WEBHOOKS)
def webhook_index(request: HttpRequest, principal: Principal) -> HttpResponse:
    created = request.session.pop(CREATED_KEY, None)
    response = _index(request, principal, created=created)
    if created is not None:
        add_never_cache_headers(response)  # the secret, once: never from a cache
    return response


@require_POST
@requires(Action.MANAGE_WEBHOOKS)
def webhook_create(request: HttpRequest, principal: Principal) -> HttpResponse:
    form = EndpointForm(request.POST)
    if form.is_valid():
        try:
            endpoint, secret = services.endpoint_register(
                project=project_pk(principal.project), actor=principal.name, **form.cleaned_data
            )
        except LearnError as error:
            show_learn_error(form, error)
        else:
            # Post/redirect/get: reloading the page it lands on registers nothing again.
            request.session[CREATED_KEY] = {"url": endpoint.url, "secret": secret}
            return redirect("portal:webhooks")
    return _index(request, principal, form=form, status=400)


@requires(Action.MANAGE_WEBHOOKS)
def webhook_detail(request: HttpRequest, principal: Principal, endpoint_id: int) -> HttpResponse:
    try:
        endpoint = services.endpoint_get(endpoint_id, project=project_pk(principal.project))
    except LearnError:
        return page(request, "webhooks/missing.html", {"endpoint_id": endpoint_id}, status=404)
    query, problems = page_query(DeliveryLogQuery, request.GET)
    try:
        deliveries, cursor = log_page(endpoint, query)
    except LearnError as error:  # a cursor of no page: the first page, and why
        problems = {"cursor": str(error.details[0]["msg"])}
        query = query.model_copy(update={"cursor": ""})
        deliveries, cursor = log_page(endpoint, query)
    rows = [
        {
            "delivery": d,
            "queued": when(d.created_at),
            "tried": d.last_attempt_at and when(d.last_attempt_at),
        }
        for d in deliveries
    ]
    context = {
        "endpoint": endpoint,
        "rows": rows,
        "state": query.state.value if query.state else "",
        "states": DeliveryState.values,
        "next_url": None if cursor is None else "?" + urlencode(query.as_params(cursor=cursor)),
        "first_url": "?" + urlencode(query.as_params()) if query.cursor else None,
        "query_errors": problems,
    }
    status = 400 if problems else 200
    return page(request, "webhooks/endpoint.html", context, status=status)


@require_POST
@requires(Action.MANAGE_WEBHOOKS)
def webhook_delete(request: HttpRequest, principal: Principal, endpoint_id: int) -> HttpResponse:
    try:
        project = project_pk(principal.project)
        services.endpoint_delete(services.endpoint_get(endpoint_id, project=project))
    except LearnError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, "The endpoint is removed; nothing more is sent to it.")
    return redirect("portal:webhooks")


@require_POST
@requires(Action.MANAGE_WEBHOOKS)
def webhook_redeliver(
    request: HttpRequest, principal: Principal, endpoint_id: int, delivery_id: int
) -> HttpResponse:
    try:
        endpoint = services.endpoint_get(endpoint_id, project=project_pk(principal.project))
        delivery = services.redeliver(endpoint, delivery_id)
    except LearnError as error:
        messages.error(request, error.message)
        if error.code is ErrorCode.NOT_FOUND:
            return redirect("portal:webhooks")
    else:
        messages.success(request, f"{delivery.message_id} is queued to be sent again.")
    return redirect("portal:webhook", endpoint_id=endpoint_id)
