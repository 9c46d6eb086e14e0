"""Projects and memberships: the one place they are made and changed (REST, pages, commands).

Refusals are `LearnError`s naming the field, as in core.accounts.services.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from core.accounts.models import User
from core.accounts.roles import PROJECT_ROLES, Role
from core.projects.guidelines import guidelines_current, guidelines_save
from core.projects.models import DEFAULT_PROJECT, Project
from core.projects.rules import queue_rules_changed, queue_rules_of
from learnportal_protocol.errors import conflict, detail, forbidden, invalid, not_found

if TYPE_CHECKING:
    from core.accounts.principals import Principal

SETTINGS_FIELDS = (
    "name",
    "ratings_per_turn",
    "lease_seconds",
    "blind",
    "priority_negative",
    "priority_unsure",
    "guidelines",
    "guidelines_ack_required",
    "comparisons_as_evidence",
    "compare_turns",
    "gold_rate",
    "gold_min_items",
    "gold_pause_below",
    "judges_weighed",
)


def project_named(slug: str) -> Project:
    project = Project.objects.filter(slug=slug).first()
    if project is None:
        raise not_found(f"No project {slug[:50]!r}.", [detail(["project"], "no such project")])
    return project


def default_project() -> Project:
    project, _ = Project.objects.get_or_create(
        slug=DEFAULT_PROJECT, defaults={"name": "Default project"}
    )
    return project


def _cleaned(project: Project, *, exclude: list[str] | None = None) -> None:
    try:
        project.full_clean(exclude=exclude, validate_unique=False, validate_constraints=False)
    except ValidationError as exc:
        details = [
            detail([field], message)
            for field, messages in exc.message_dict.items()
            for message in messages
        ]
        raise invalid("; ".join(f"{d['loc'][0]}: {d['msg']}" for d in details), details) from None


def project_add(*, slug: str, name: str) -> Project:
    project = Project(slug=slug, name=name)
    _cleaned(project)
    try:
        with transaction.atomic():
            project.save()
    except IntegrityError:
        raise conflict(f"A project {slug!r} exists already.", [detail(["slug"], "taken")]) from None
    return project


def project_update(*, project: Project, changes: dict[str, Any], member: Principal) -> Project:
    """Change a project's settings (`SETTINGS_FIELDS`) as `member` asks; the slug never changes.
    New guidelines are the next version of them (core.projects.guidelines), its questions' kept."""
    unknown = sorted(set(changes) - set(SETTINGS_FIELDS))
    if unknown:
        raise invalid(
            f"A project's settings are {', '.join(SETTINGS_FIELDS)}.",
            [detail([field], "not a project setting") for field in unknown],
        )
    rules_before = queue_rules_of([project.pk])
    for field, value in changes.items():
        setattr(project, field, value)
    _cleaned(project)
    with transaction.atomic():
        if fields := [field for field in changes if field != "guidelines"]:
            project.save(update_fields=fields)
        if "guidelines" in changes:
            kept = guidelines_current(project.pk).questions
            guidelines_save(project=project, text=changes["guidelines"], questions=kept, by=member)
        if queue_rules_of([project.pk]) != rules_before:
            queue_rules_changed.send(sender=Project, project_id=project.pk)
    return project


def _project_role(value: str) -> Role:
    words = ", ".join(sorted(role.value for role in PROJECT_ROLES))
    if value not in {role.value for role in PROJECT_ROLES}:
        raise invalid(f"role is one of {words}.", [detail(["role"], f"must be one of {words}")])
    return Role(value)


def member_set(*, project: Project, person: User, role: str) -> Role:
    """Make `person` a member of `project` with `role`, or change their role there."""
    chosen = _project_role(role)
    if person.is_superuser:
        raise invalid(
            f"{person.get_username()} is a site admin, in every project already.",
            [detail(["username"], "a site admin needs no membership")],
        )
    person.memberships.update_or_create(project=project, defaults={"role": chosen.value})
    return chosen


def member_remove(*, project: Project, person: User) -> None:
    deleted, _ = person.memberships.filter(project=project).delete()
    if not deleted:
        raise not_found(
            f"{person.get_username()} is not a member of {project.slug}.",
            [detail(["username"], "not a member")],
        )


def member_change(*, actor: Principal, project: Project, person: User, role: str) -> Role:
    """`member_set` as `actor` asks it: never their own role."""
    _not_self(actor, person, "change your own role")
    return member_set(project=project, person=person, role=role)


def member_end(*, actor: Principal, project: Project, person: User) -> None:
    """`member_remove` as `actor` asks it: never themselves."""
    _not_self(actor, person, "remove yourself")
    member_remove(project=project, person=person)


def _not_self(actor: Principal, person: User, what: str) -> None:
    # A manager who demoted or removed themselves could lock a project out of its managers.
    if actor.user_id == person.pk:
        raise forbidden(
            f"You may not {what}; ask another manager or a site admin.",
            [detail(["username"], "yourself")],
        )


def members(project: Project) -> list[tuple[User, Role]]:
    """Each member of `project` with their role there, by username."""
    rows = project.memberships.select_related("user").order_by("user__username")
    return [(row.user, Role(row.role)) for row in rows]


def person_named(username: str) -> User:
    person = User.objects.filter(username__iexact=username).first()
    if person is None:
        raise not_found(f"No person {username[:150]!r}.", [detail(["username"], "no such person")])
    return person
