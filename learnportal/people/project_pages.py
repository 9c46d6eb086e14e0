"""The projects' pages: the list, each project's settings and its members, and the picker of
the project a person acts in.

Thin over `core.projects.services`, which REST shares. A project one may not enter is the
portal's 404, exactly as one that does not exist; its managers and site admins change it, its
other members read its settings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect
from django.utils.cache import add_never_cache_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST
from pydantic import ValidationError

from core.accounts.roles import Action, Role
from core.markdown import markdown_html
from core.projects import services
from core.projects.chosen import project_choose
from core.projects.invitations import invitation_days, invitation_make, waiting
from core.projects.models import MAX_PRIORITY_WEIGHT
from core.projects.selection import principal_in, visible_projects
from core.web import forbidden_page, page, portal_principal, show_learn_error
from feedback.judges.marks import MarkRequest, mark_add, mark_remove, marked_people
from learnportal.people.project_forms import (
    PROJECT_ROLE_CHOICES,
    MemberAddForm,
    MemberInviteForm,
    MemberRoleForm,
    ProjectCreateForm,
    ProjectSettingsForm,
)
from learnportal.people.welcome import welcome_url
from learnportal_protocol.errors import LearnError
from learnportal_protocol.models import USERNAME_LENGTH

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal
    from core.projects.models import Project
    from core.web import AuthenticatedHttpRequest


def _entered(principal: Principal, slug: str) -> tuple[Principal, Project]:
    """`principal` in the project `slug`, or the 404 page for one they may not enter."""
    try:
        return principal_in(principal, slug), services.project_named(slug)
    except LearnError:
        raise Http404("No such project.") from None


# The picker ---------------------------------------------------------------------------------


@require_POST
@login_required
def project_choice(request: AuthenticatedHttpRequest) -> HttpResponse:
    try:
        chosen = project_choose(request.user, request.session, request.POST.get("project", ""))
    except LearnError:
        raise Http404("No such project.") from None
    messages.success(request, f"You now act in {chosen.project} as {chosen.role.value}.")
    back = request.POST.get("next", "")
    same_origin = url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )
    return redirect(back if same_origin and back.startswith("/") else "portal:home")


# The list -----------------------------------------------------------------------------------


def _projects_page(
    request: HttpRequest,
    principal: Principal,
    *,
    form: ProjectCreateForm | None = None,
    status: int = 200,
) -> HttpResponse:
    admin = principal.may(Action.MANAGE_PROJECTS)
    seats = dict(principal.seats)
    rows = [
        {"project": project, "role": Role.ADMIN.value if admin else seats[project.slug].value}
        for project in visible_projects(principal)
    ]
    context = {"rows": rows, "form": (form or ProjectCreateForm()) if admin else None}
    return page(request, "projects/projects.html", context, status=status)


@login_required
def project_index(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The list; a site admin's POST makes a project (a slug of its own: no route shadows it)."""
    principal = portal_principal(request)
    assert principal is not None  # behind login_required
    if request.method != "POST":
        return _projects_page(request, principal)
    if not principal.may(Action.MANAGE_PROJECTS):
        return forbidden_page(request, principal, Action.MANAGE_PROJECTS)
    form = ProjectCreateForm(request.POST)
    if form.is_valid():
        try:
            project = services.project_add(**form.cleaned_data)
        except LearnError as error:
            show_learn_error(form, error)
        else:
            messages.success(request, f"Made the project {project.slug}.")
            return redirect("portal:project", slug=project.slug)
    return _projects_page(request, principal, form=form, status=400)


# One project's settings ---------------------------------------------------------------------


def _settings_of(project: Project) -> dict[str, Any]:
    return {field: getattr(project, field) for field in services.SETTINGS_FIELDS}


@login_required
def project_settings(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    principal = portal_principal(request)
    assert principal is not None  # behind login_required
    member, project = _entered(principal, slug)
    manages = member.may(Action.MANAGE_PROJECT)
    status = 200
    preview = project.guidelines
    if request.method == "POST":
        if not manages:
            return forbidden_page(request, member, Action.MANAGE_PROJECT)
        form = ProjectSettingsForm(request.POST)
        preview = request.POST.get("guidelines", "")
        if form.is_valid() and "preview" not in request.POST:
            try:
                services.project_update(project=project, changes=form.cleaned_data, member=member)
            except LearnError as error:
                show_learn_error(form, error)
            else:
                messages.success(request, f"Saved the settings of {project.slug}.")
                return redirect("portal:project", slug=project.slug)
        status = 400 if form.errors else 200
    else:
        form = ProjectSettingsForm(initial=_settings_of(project))
    if not manages:
        for field in form.fields.values():
            field.disabled = True
    context = {
        "project": project,
        "role": member.role.value,
        "manages": manages,
        "form": form,
        "max_priority": MAX_PRIORITY_WEIGHT,
        "preview": markdown_html(preview, base=request.path),
    }
    return page(request, "projects/settings.html", context, status=status)


# Its members --------------------------------------------------------------------------------


def _members_page(
    request: HttpRequest,
    member: Principal,
    project: Project,
    *,
    form: MemberAddForm | None = None,
    invite_form: MemberInviteForm | None = None,
    invited: dict[str, Any] | None = None,
    row_errors: dict[str, str] | None = None,
    status: int = 200,
) -> HttpResponse:
    everyone = services.members(project)
    judges = marked_people(project.pk)
    rows = [
        {
            "person": person,
            "role": role.value,
            "is_you": person.pk == member.user_id,
            "waiting": waiting(person),
            "judge": person.username in judges,
        }
        for person, role in everyone
    ]
    row_errors = row_errors or {}
    listed = {person.username for person, _ in everyone}
    context = {
        "project": project,
        "members": rows,
        "form": form or MemberAddForm(),
        "invite_form": invite_form or MemberInviteForm(),
        "invited": invited,
        "days": invitation_days(),
        "row_errors": row_errors,
        # A refusal about someone with no row (not a member, no such person): above the table.
        "unplaced_errors": [text for name, text in row_errors.items() if name not in listed],
        "roles": [value for value, _ in PROJECT_ROLE_CHOICES],
    }
    return page(request, "projects/members.html", context, status=status)


def project_entered(request: AuthenticatedHttpRequest, slug: str) -> tuple[Principal, Project]:
    """The signed-in person in the project `slug`, or the 404 page for one they may not enter."""
    principal = portal_principal(request)
    assert principal is not None  # behind login_required
    return _entered(principal, slug)


@login_required
def project_members(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    member, project = project_entered(request, slug)
    if not member.may(Action.MANAGE_PROJECT):
        return forbidden_page(request, member, Action.MANAGE_PROJECT)
    if request.method != "POST":
        return _members_page(request, member, project)
    form = MemberAddForm(request.POST)
    if form.is_valid():
        try:
            person = services.person_named(form.cleaned_data["username"])
            role = services.member_change(
                actor=member, project=project, person=person, role=form.cleaned_data["role"]
            )
        except LearnError as error:
            show_learn_error(form, error)
        else:
            messages.success(request, f"Added {person.username} to {project.slug} as {role.value}.")
            return redirect("portal:project-members", slug=project.slug)
    return _members_page(request, member, project, form=form, status=400)


@require_POST
@login_required
def member_invite(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    """Invite a person with no account yet; the page shows their link this once."""
    member, project = project_entered(request, slug)
    if not member.may(Action.MANAGE_PROJECT):
        return forbidden_page(request, member, Action.MANAGE_PROJECT)
    form = MemberInviteForm(request.POST)
    status, invited = 400, None
    if form.is_valid():
        try:
            invitation = invitation_make(
                actor=member,
                project=project,
                username=form.cleaned_data["username"],
                role=form.cleaned_data["role"],
            )
        except LearnError as error:
            show_learn_error(form, error)
            status = error.http_status
        else:
            status, form = 200, MemberInviteForm()
            invited = {
                "invitation": invitation,
                "url": welcome_url(request, invitation),
                "label": f"The invitation link of {invitation.person.get_username()}",
            }
    response = _members_page(
        request, member, project, invite_form=form, invited=invited, status=status
    )
    add_never_cache_headers(response)  # the link is shown once, and never kept
    return response


def _member_change(
    request: AuthenticatedHttpRequest, slug: str, username: str, form: MemberRoleForm | None
) -> HttpResponse:
    """Change a member's role to the one `form` holds, or with no form end their membership."""
    member, project = project_entered(request, slug)
    if not member.may(Action.MANAGE_PROJECT):
        return forbidden_page(request, member, Action.MANAGE_PROJECT)
    try:
        person = services.person_named(username)
        if form is None:
            services.member_end(actor=member, project=project, person=person)
            done = f"{person.username} is no longer a member of {project.slug}."
        elif form.is_valid():
            role = form.cleaned_data["role"]
            services.member_change(actor=member, project=project, person=person, role=role)
            done = f"{person.username} is now {role} in {project.slug}."
        else:
            rows = {username: "Choose one of the roles."}
            return _members_page(request, member, project, row_errors=rows, status=400)
    except LearnError as error:
        rows = {username: error.message}
        return _members_page(request, member, project, row_errors=rows, status=400)
    messages.success(request, done)
    return redirect("portal:project-members", slug=project.slug)


@require_POST
@login_required
def member_role(request: AuthenticatedHttpRequest, slug: str, username: str) -> HttpResponse:
    return _member_change(request, slug, username, MemberRoleForm(request.POST))


@require_POST
@login_required
def member_remove(request: AuthenticatedHttpRequest, slug: str, username: str) -> HttpResponse:
    return _member_change(request, slug, username, None)


@require_POST
@login_required
def member_judge(request: AuthenticatedHttpRequest, slug: str, username: str) -> HttpResponse:
    """Mark a member as a judge (`judge=1`) or take the mark off: their ratings then measured
    against the other people's as a machine judge's are (feedback.judges.marks)."""
    member, project = project_entered(request, slug)
    if not member.may(Action.MANAGE_PROJECT):
        return forbidden_page(request, member, Action.MANAGE_PROJECT)
    try:
        if request.POST.get("judge") == "1":
            mark_add(member, MarkRequest(username=username[:USERNAME_LENGTH]))
            done = f"{username} is marked as a judge: measured against the other people."
        else:
            mark_remove(member, username)
            done = f"{username} is no longer marked as a judge."
    except (LearnError, ValidationError) as error:
        said = error.message if isinstance(error, LearnError) else "No such member."
        return _members_page(request, member, project, row_errors={username: said}, status=400)
    messages.success(request, done)
    return redirect("portal:project-members", slug=project.slug)
