"""A project's guidelines page: its managers edit the project's and each question's guidelines
and preview them as raters see them; every member reads them, their versions and the diff of
any two. And the button of the rating pages by which a person acknowledges a version.

Thin over core.projects.guidelines, which REST shares (learnportal.people.guidelines_api).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from core.accounts.roles import Action
from core.projects.guidelines import (
    Guidelines,
    guidelines_acknowledge,
    guidelines_at,
    guidelines_current,
    guidelines_history,
    guidelines_replace,
)
from core.projects.models import GUIDELINES_LENGTH, QUESTION_GUIDELINES_LENGTH
from core.web import forbidden_page, page, when
from feedback.pages.guidelines import changes_shown, guidelines_shown, question_labels
from feedback.pages.rubric_form import PREFIX
from learnportal.people.project_pages import project_entered
from learnportal_protocol.errors import LearnError

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal
    from core.projects.models import Project
    from core.web import AuthenticatedHttpRequest


def _number(sent: str | None, default: int) -> int | None:
    if sent is None or sent == "":
        return default
    return int(sent) if sent.isdigit() else None


def _diff(project: Project, request: HttpRequest, labels: dict[str, str]) -> dict[str, Any]:
    """The diff `?from=&to=` asks for (by default the newest version against the one before),
    or what is wrong with a version it names."""
    newest = guidelines_current(project.pk).version
    picked = {
        "from": _number(request.GET.get("from"), max(newest - 1, 0)),
        "to": _number(request.GET.get("to"), newest),
    }
    versions: dict[str, Guidelines] = {}
    errors = {}
    for name, number in picked.items():
        try:
            if number is not None:
                versions[name] = guidelines_at(project.pk, number)
        except LearnError:
            pass
        if name not in versions:
            errors[name] = "not a version of these guidelines"
    if errors:
        return {"diff_errors": errors, "diff_from": picked["from"], "diff_to": picked["to"]}
    old, new = versions["from"], versions["to"]
    return {
        "diff_errors": {},
        "diff_from": old.version,
        "diff_to": new.version,
        "diff_changes": changes_shown(old, new, labels) if old.version != new.version else None,
    }


def _guidelines_page(
    request: HttpRequest,
    member: Principal,
    project: Project,
    *,
    draft: Guidelines | None = None,
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> HttpResponse:
    labels = question_labels(project.pk)
    current = guidelines_current(project.pk)
    shown = draft or current
    errors = errors or {}
    fields = [
        {
            "name": PREFIX + key,
            "key": key,
            "label": label,
            "text": shown.questions.get(key, ""),
            "error": errors.get(key, ""),
        }
        for key, label in labels.items()
    ]
    diff = _diff(project, request, labels)
    context = {
        "project": project,
        "manages": member.may(Action.MANAGE_PROJECT),
        "current": current,
        "current_when": when(current.created),
        "text": shown.text,
        "text_error": errors.get("", ""),
        "form_error": errors.get("*", ""),
        "fields": fields,
        "preview": guidelines_shown(shown, labels, base=request.path),
        "is_draft": draft is not None,
        "versions": [
            {"version": v.version, "by": v.by, "when": when(v.created)}
            for v in guidelines_history(project.pk)
        ],
        "numbers": list(range(current.version + 1)),
        "text_length": GUIDELINES_LENGTH,
        "question_length": QUESTION_GUIDELINES_LENGTH,
        **diff,
    }
    if diff["diff_errors"]:
        status = 400
    return page(request, "projects/guidelines.html", context, status=status)


def _errors_of(error: LearnError) -> dict[str, str]:
    """A refusal's details by where the page shows them: "" the project's text, a question's
    key its own, "*" above the form."""
    placed: dict[str, str] = {}
    for item in error.details:
        loc = item.get("loc") or []
        if loc[:1] == ["guidelines"]:
            placed[""] = str(item["msg"])
        elif loc[:1] == ["questions"] and len(loc) > 1:
            placed[str(loc[1])] = str(item["msg"])
        else:
            placed["*"] = str(item["msg"])
    return placed or {"*": error.message}


@login_required
def project_guidelines(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    member, project = project_entered(request, slug)
    if request.method != "POST":
        return _guidelines_page(request, member, project)
    if not member.may(Action.MANAGE_PROJECT):
        return forbidden_page(request, member, Action.MANAGE_PROJECT)
    current = guidelines_current(project.pk)
    labels = question_labels(project.pk)
    questions = dict(current.questions)  # a question the rubric no longer asks keeps its own
    questions |= {key: request.POST.get(PREFIX + key, "") for key in labels}
    text = request.POST.get("guidelines", "")
    draft = Guidelines(current.version, text, questions, current.by, current.created)
    if "preview" in request.POST:
        return _guidelines_page(request, member, project, draft=draft)
    try:
        saved = guidelines_replace(member=member, project=project, text=text, questions=questions)
    except LearnError as error:
        return _guidelines_page(
            request, member, project, draft=draft, errors=_errors_of(error), status=400
        )
    if saved.version == current.version:
        messages.info(request, f"Nothing changed: the guidelines stay at version {saved.version}.")
    else:
        messages.success(request, f"Saved version {saved.version} of the guidelines.")
    return redirect("portal:project-guidelines", slug=project.slug)


@require_POST
@login_required
def guidelines_acknowledged(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """The rating pages' "I have read these": back to the page it was pressed on."""
    member, project = project_entered(request, slug)
    sent = request.POST.get("version", "")
    try:
        version = int(sent) if sent.isdigit() else 0
        guidelines_acknowledge(principal=member, project=project, version=version)
    except LearnError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, f"Thank you: you have read version {version} of the guidelines.")
    back = request.POST.get("next", "")
    same_origin = url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return redirect(back if same_origin and back.startswith("/") else "portal:queue")
