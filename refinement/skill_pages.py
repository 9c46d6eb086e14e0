"""Reviewers: the learnings tree, each file's versions and diffs, and the steps' settings.

Thin over `refinement.learning_store` (what REST serves) and `refinement.services`: an admin's
edit of a step's settings is `step_update`, the same refinement as `PUT /api/steps/<id>/`, and
its rollback is `refinement_rollback`, as any other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect
from django.urls import reverse
from django.views.decorators.http import require_POST

from core.accounts.roles import Action
from core.markdown import markdown_html
from core.projects.selection import project_pk
from core.web import page, requires, show_learn_error, when
from learnportal_protocol.errors import ErrorCode, LearnError
from refinement.diffs import skill_file_diff
from refinement.learning_store import (
    LEARNINGS,
    STEP_ID,
    skill_list,
    skill_versions,
    step_get,
    step_refinements,
    step_update,
    steps_list,
)
from refinement.models import RefinementStatus
from refinement.pages import rollback_and_say
from refinement.paths import is_markdown
from refinement.skill_forms import StepSettingsForm

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal
    from refinement.answers import SkillEntry

GLOBAL = f"{LEARNINGS}_global/"
GLOBAL_SKILL = f"{GLOBAL}SKILL.md"
EMPTY_TREE = (
    "No learnings yet. They arrive as plans to review: an agent reports a successful run of a "
    "read-write step (POST /api/steps/<step-id>/runs/ with its edits), or an operator runs "
    "`manage.py import_skills DIR`."
)


def _tree(entries: list[SkillEntry]) -> dict[str, Any]:
    """The files grouped as the learning store lays them out: the global skill, its references
    and scripts, and each step's folder."""
    tree: dict[str, Any] = {"skill": None, "references": [], "scripts": [], "steps": {}}
    for entry in entries:
        item = {
            **entry.model_dump(),
            "name": entry.path.rsplit("/", 1)[-1],
            "when": when(entry.updated),
        }
        if entry.path == GLOBAL_SKILL:
            tree["skill"] = item
        elif entry.path.startswith(f"{GLOBAL}references/"):
            tree["references"].append(item)
        elif entry.path.startswith(f"{GLOBAL}scripts/"):
            tree["scripts"].append(item)
        else:
            step_id = entry.path.removeprefix(LEARNINGS).split("/", 1)[0]
            tree["steps"].setdefault(step_id, []).append(item)
    return tree


@requires(Action.DECIDE)
def skill_index(request: HttpRequest, principal: Principal) -> HttpResponse:
    entries = list(skill_list(principal=principal).root)
    tree = _tree(entries)
    skill_html = None
    if tree["skill"] is not None:
        text = skill_versions(principal=principal, path=GLOBAL_SKILL).text or ""
        skill_html = markdown_html(text, base=_folder_url(GLOBAL_SKILL))
    project = project_pk(principal.project)
    workflow = steps_list(project=project)
    configured = {step.step_id for step in workflow.steps}
    steps = [
        {**step.model_dump(), "files": len(tree["steps"].get(step.step_id, []))}
        for step in workflow.steps
    ] + [
        {**step_get(project=project, step_id=step_id).model_dump(), "files": len(files)}
        for step_id, files in sorted(tree["steps"].items())
        if step_id not in configured
    ]
    context = {
        "tree": tree,
        "empty": not entries,
        "empty_text": EMPTY_TREE,
        "skill_html": skill_html,
        "global_skill_objective": workflow.global_skill_objective,
        "steps": steps,
    }
    return page(request, "refinement/skills.html", context)


def _folder_url(path: str) -> str:
    return reverse("portal:skill", args=[path]).rsplit("/", 1)[0] + "/"


def _version(value: str | None, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


@requires(Action.DECIDE)
def skill_show(request: HttpRequest, principal: Principal, path: str) -> HttpResponse:
    try:
        versions = skill_versions(principal=principal, path=path)
    except LearnError as error:
        if error.code == ErrorCode.NOT_FOUND:
            raise Http404(error.message) from None
        raise
    numbers = [revision.version for revision in versions.revisions]
    newest = numbers[0] if numbers else 0
    older = numbers[1] if len(numbers) > 1 else 0
    a = _version(request.GET.get("a"), older)
    b = _version(request.GET.get("b"), newest)
    known = {0, *numbers}
    errors = {
        name: "not a version of this file" for name, v in (("a", a), ("b", b)) if v not in known
    }
    if errors:
        a, b = older, newest
    revisions = [
        {
            "version": r.version,
            "actor": r.actor,
            "when": when(r.ts),
            "refinement_id": r.refinement.refinement_id if r.refinement else "",
            "plan_id": r.refinement.plan.plan_id if r.refinement and r.refinement.plan else "",
            "deleted": r.after is None,
        }
        for r in versions.revisions
    ]
    context = {
        "path": versions.path,
        "text": versions.text,
        "version": versions.version,
        "html": markdown_html(versions.text, base=_folder_url(versions.path))
        if versions.text and is_markdown(versions.path)
        else None,
        "revisions": revisions,
        "numbers": sorted(known),
        "a": a,
        "b": b,
        "diff_errors": errors,
        "diff_lines": skill_file_diff(versions.path, versions.text_at(a), versions.text_at(b))
        if a != b
        else [],
    }
    return page(request, "refinement/skill.html", context, status=400 if errors else 200)


def _step_page(
    request: HttpRequest,
    principal: Principal,
    step_id: str,
    *,
    form: StepSettingsForm | None = None,
    status: int = 200,
) -> HttpResponse:
    if not STEP_ID.match(step_id):
        raise Http404(f"{step_id!r} is not a step id.")
    project = project_pk(principal.project)
    step = step_get(project=project, step_id=step_id).model_dump()
    entries = [
        e
        for e in skill_list(principal=principal).root
        if e.path.startswith(f"{LEARNINGS}{step_id}/")
    ]
    refinements = []
    for refinement in step_refinements(project=project, step_id=step_id):
        undone = refinement.status == RefinementStatus.ROLLED_BACK
        refinements.append(
            {
                "refinement": refinement,
                "when": when(refinement.ts),
                "edits": [e for e in refinement.edits if e["path"].startswith(f"steps.{step_id}.")],
                "may_roll_back": refinement.status == RefinementStatus.APPLIED,
                "undone": undone,
            }
        )
    settings_form = form or StepSettingsForm(
        initial={name: step[name] for name in StepSettingsForm.base_fields}
    )
    context = {
        "step": step,
        "files": [{**e.model_dump(), "when": when(e.updated)} for e in entries],
        "refinements": refinements,
        "form": settings_form if principal.may(Action.MANAGE_STEPS) else None,
        "was_locked": step["lock_learnings"],
    }
    return page(request, "refinement/step.html", context, status=status)


@requires(Action.DECIDE)
def step_show(request: HttpRequest, principal: Principal, step_id: str) -> HttpResponse:
    return _step_page(request, principal, step_id)


@require_POST
@requires(Action.MANAGE_STEPS)
def step_edit(request: HttpRequest, principal: Principal, step_id: str) -> HttpResponse:
    form = StepSettingsForm(request.POST)
    if form.is_valid():
        try:
            project = project_pk(principal.project)
            before = {r.pk for r in step_refinements(project=project, step_id=step_id)}
            step_update(principal=principal, step_id=step_id, changes=form.cleaned_data)
        except LearnError as error:
            show_learn_error(form, error)
        else:
            made = [
                r for r in step_refinements(project=project, step_id=step_id) if r.pk not in before
            ]
            if made:
                messages.success(
                    request,
                    f"Saved the settings of {step_id} as refinement {made[0].refinement_id}; "
                    "roll it back below to undo it.",
                )
            else:
                messages.info(request, f"Nothing changed in the settings of {step_id}.")
            return redirect("portal:step", step_id=step_id)
    return _step_page(request, principal, step_id, form=form, status=400)


@require_POST
@requires(Action.DECIDE)
def step_rollback(
    request: HttpRequest, principal: Principal, step_id: str, refinement_id: str
) -> HttpResponse:
    rollback_and_say(request, principal, refinement_id)
    return redirect("portal:step", step_id=step_id)
