"""The rubric builder, `/projects/<slug>/rubric/`: a project's managers and site admins write its
next rubric version beside a live preview of the rating form; its other members read it.

The builder's form (learnportal.people.rubric_draft) works without script: each button (add,
move, remove, preview, save) posts the whole draft and the page comes back with it changed.
rubric_builder.js does the same in the page and refreshes the preview as one types, from
`/projects/<slug>/rubric/preview/`. The preview is the rating form itself (feedback.pages.
rubric_form and its partial), drawn from the draft in a frame of its own, so that its hotkeys
act there as on the rating page; saving goes through `rubric_replace`, the one rule REST shares.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.views.decorators.http import require_POST

from core.accounts.roles import Action
from core.web import forbidden_page, page, portal_principal, when
from feedback.pages.rubric_form import rubric_form_of
from feedback.rubrics.questions import QUESTION_KINDS, rubric_from
from feedback.rubrics.versions import VERSION_DIGITS
from feedback.selectors.rubrics import rubric_version, rubric_versions
from feedback.services.rubrics import (
    DEFAULT_VERSION,
    StoredRubric,
    answered_keys,
    rubric_current,
    rubric_replace,
)
from learnportal.api.errors import learn_error_response
from learnportal.people.project_pages import _entered
from learnportal.people.rubric_draft import (
    PREFERENCE,
    Card,
    DraftRefused,
    blank_card,
    cards_of,
    cards_sent,
    draft_data,
    draft_max_bytes,
    next_token,
    preference_sent,
    show_refusal,
)
from learnportal_protocol.errors import ErrorCode, LearnError

if TYPE_CHECKING:
    from django.http import HttpRequest

    from core.accounts.principals import Principal
    from core.projects.models import Project
    from core.web import AuthenticatedHttpRequest

MOVES = ("up", "down", "remove")


@dataclass(frozen=True)
class SampleTurn:
    """The turn the preview rates: one response to mark spans in."""

    correlation_id: str = "sample"
    component_name: str = "sample"
    model: str = "preview"
    session_id: str = ""
    prompt: str = "At what temperature does water boil at sea level?"
    response: str = (
        "Water boils at 90 °C at sea level. Higher up it boils at a lower temperature, "
        "because the air pressure is lower there."
    )


def too_large() -> LearnError:
    limit = draft_max_bytes()
    return LearnError(
        ErrorCode.TOO_LARGE, f"A draft rubric is at most {limit} bytes; this one is larger."
    )


def _too_large(request: HttpRequest) -> bool:
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return True
    return length > draft_max_bytes()


def preview_document(request: HttpRequest, stored: StoredRubric, slug: str) -> str:
    """The rating form of `stored`, as a page of its own for the preview's frame."""
    context = {
        "rubric": rubric_form_of(stored),
        "turn": SampleTurn(),
        "environment": "",
        "rate_url": reverse("portal:project-rubric-preview", args=[slug]),
    }
    return render_to_string("projects/rubric_preview.html", context, request=request)


# The page -----------------------------------------------------------------------------------


@login_required
def project_rubric(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    principal = portal_principal(request)
    assert principal is not None  # behind login_required
    member, project = _entered(principal, slug)
    if request.method == "POST":
        if not member.may(Action.MANAGE_PROJECT):
            return forbidden_page(request, member, Action.MANAGE_PROJECT)
        return _posted(request, member, project)
    current = rubric_current(project.pk)
    shown = current
    asked = request.GET.get("version", "")
    if asked:
        known = asked.isdigit() and len(asked) <= VERSION_DIGITS
        older = rubric_version(project.pk, int(asked)) if known else None
        if older is None:
            raise Http404("No such version of the rubric.")
        shown = older
    answered = _answered(project, current)
    cards = cards_of(shown.rubric, answered)
    return _rubric_page(
        request, member, project, cards, shown.rubric.preference, preview=shown, viewed=shown
    )


def _answered(project: Project, current: StoredRubric) -> set[str]:
    return answered_keys(project.pk, {q.key for q in current.rubric.questions})


def _posted(request: HttpRequest, member: Principal, project: Project) -> HttpResponse:
    current = rubric_current(project.pk)
    kept = current.rubric.preference
    if _too_large(request):
        cards = cards_of(current.rubric, _answered(project, current))
        return _rubric_page(
            request, member, project, cards, kept, error=too_large().message, status=413
        )
    preference = preference_sent(request.POST)
    try:
        cards = cards_sent(request.POST, _answered(project, current))
    except DraftRefused as refused:
        return _rubric_page(request, member, project, refused.cards, preference, status=400)
    except LearnError as error:
        cards = cards_of(current.rubric, _answered(project, current))
        return _rubric_page(request, member, project, cards, kept, error=error.message, status=400)
    action = request.POST.get("do", "preview")
    if action == "save":
        return _saved(request, member, project, cards, preference)
    if action == "add":
        kind = request.POST.get("add_kind", "")
        cards.append(blank_card(next_token(cards), kind if kind in QUESTION_KINDS else "numeric"))
    else:
        move, _, token = action.partition(":")
        if move in MOVES:
            _move(cards, move, token)
    draft = _draft(cards, preference)
    return _rubric_page(request, member, project, cards, preference, preview=draft)


def _move(cards: list[Card], move: str, token: str) -> None:
    place = next((i for i, card in enumerate(cards) if card.token == token), None)
    if place is None:
        return
    card = cards[place]
    if move == "remove":
        if card.answered:
            card.error = "It has answers: retire it instead (it then takes no new ones)."
        else:
            cards.pop(place)
        return
    other = place - 1 if move == "up" else place + 1
    if 0 <= other < len(cards):
        cards[place], cards[other] = cards[other], cards[place]


def _draft(cards: list[Card], preference: str) -> StoredRubric | LearnError:
    try:
        return StoredRubric(0, rubric_from(draft_data(cards, preference)))
    except LearnError as error:
        return error


def _saved(
    request: HttpRequest, member: Principal, project: Project, cards: list[Card], preference: str
) -> HttpResponse:
    data = draft_data(cards, preference)
    try:
        stored = rubric_replace(member=member, project=project, data=data)
    except LearnError as error:
        return _rubric_page(
            request, member, project, cards, preference, preview=error, status=error.http_status
        )
    messages.success(request, f"Saved version {stored.version} of the rubric of {project.slug}.")
    return redirect("portal:project-rubric", slug=project.slug)


def _rubric_page(
    request: HttpRequest,
    member: Principal,
    project: Project,
    cards: list[Card],
    preference: str,
    *,
    preview: StoredRubric | LearnError | None = None,
    viewed: StoredRubric | None = None,
    error: str = "",
    status: int = 200,
) -> HttpResponse:
    current = rubric_current(project.pk)
    old = viewed is not None and viewed.version != current.version
    editable = member.may(Action.MANAGE_PROJECT) and not old
    preference_error = ""
    if isinstance(preview, LearnError):
        placed = [str(d.get("msg", "")) for d in preview.details if d.get("loc") == [PREFERENCE]]
        preference_error = next(iter(placed), "")
        error = show_refusal(cards, preview) or error
        preview = None
    context: dict[str, Any] = {
        "project": project,
        "role": member.role.value,
        "manages": member.may(Action.MANAGE_PROJECT),
        "editable": editable,
        "cards": cards,
        "preference": preference,
        "preference_error": preference_error,
        "scored_keys": []
        if preview is None
        else [q.key for q in preview.rubric.questions if q.scored],
        "kinds": list(QUESTION_KINDS),
        "template_card": blank_card("__card__", "numeric"),
        "current": current,
        "on_default": current.version == DEFAULT_VERSION,
        "viewed": viewed if old else None,
        "error": error,
        "preview": "" if preview is None else preview_document(request, preview, project.slug),
        "versions": [
            {"version": row.version, "by": row.by, "created": when(row.created)}
            for row in rubric_versions(project.pk)
        ],
    }
    return page(request, "projects/rubric.html", context, status=status)


# The preview --------------------------------------------------------------------------------


@require_POST
@login_required
def rubric_preview(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """The rating form of the draft posted (the builder's form), or its refusal as the API's
    error, naming `["questions", i, field]`."""
    principal = portal_principal(request)
    assert principal is not None  # behind login_required
    member, project = _entered(principal, slug)
    if _too_large(request):
        return learn_error_response(too_large())
    try:
        member.require(Action.MANAGE_PROJECT)
        cards = cards_sent(request.POST, set())
        rubric = rubric_from(draft_data(cards, preference_sent(request.POST)))
    except DraftRefused as refused:
        return learn_error_response(refused.error)
    except LearnError as error:
        return learn_error_response(error)
    return HttpResponse(preview_document(request, StoredRubric(0, rubric), project.slug))
