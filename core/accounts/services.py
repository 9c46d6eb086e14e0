"""People and tokens: the one place they are created, changed and revoked.

The commands (`adduser`, `createtoken`, `revoketoken`) and the admins' pages both call these, so
a rule is written once. Every change is a model `save()`, so the signals of accounts.signals
drop the cached principals at once: a revoked token, a deactivated person or a changed role
counts from the next request or frame.

Refusals are `LearnError`s naming the field (`invalid`, `conflict`, `forbidden`): the pages put
them next to the field, the commands print their message.
"""

from __future__ import annotations

import re

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from core.accounts.models import USERNAME_TAKEN, ApiToken, User
from core.accounts.roles import HUMAN_ROLES, MACHINE_ROLES, Role
from core.projects.models import DEFAULT_PROJECT
from core.projects.services import default_project, member_set, project_named
from learnportal_protocol.errors import LearnError, conflict, detail, forbidden, invalid, not_found
from learnportal_protocol.models import NO_CONTROL, USERNAME_LENGTH

NAME_CHARACTERS = re.compile(NO_CONTROL)
TOKEN_NAME_RULE = f"A token's name is 1 to {USERNAME_LENGTH} characters with no control characters."
PERSONAL_SEPARATOR = ":"


def _role(value: str, allowed: frozenset[Role], field: str) -> Role:
    if value not in {role.value for role in allowed}:
        words = ", ".join(sorted(role.value for role in allowed))
        raise invalid(f"{field} is one of {words}.", [detail([field], f"must be one of {words}")])
    return Role(value)


# Tokens -------------------------------------------------------------------------------------


def _check_token_name(name: str) -> None:
    if not name or len(name) > USERNAME_LENGTH or not NAME_CHARACTERS.fullmatch(name):
        raise invalid(TOKEN_NAME_RULE, [detail(["name"], TOKEN_NAME_RULE)])
    if ApiToken.objects.filter(name=name).exists():
        # A revoked token keeps its name, so that the history still names one token.
        message = f"A token named {name!r} exists already; pick another name."
        raise conflict(message, [detail(["name"], "a token has this name already")])


def token_issue(
    *, name: str, role: str = "", user: User | None = None, project: str = DEFAULT_PROJECT
) -> tuple[ApiToken, str]:
    """A machine token with `role` (agent, environment) in `project`, or a personal token
    acting as `user` (in their projects, with their roles there).

    Answers the token and its raw value, which is shown once and never stored.
    """
    _check_token_name(name)
    if user is None:
        _role(role, MACHINE_ROLES, "role")
        home = default_project() if project == DEFAULT_PROJECT else project_named(project)
        return ApiToken.issue(name=name, role=role, project_id=home.pk)
    if role:
        raise invalid(
            "A personal token takes its person's role; send no role.",
            [detail(["role"], "a personal token has no role of its own")],
        )
    if not user.is_active:
        raise forbidden(f"{user.get_username()} is deactivated; a token of theirs would not work.")
    return ApiToken.issue(name=name, user=user)


def personal_token_name(user: User, label: str) -> str:
    """A person's tokens are named `<username>:<label>`, so that their labels never collide."""
    return f"{user.get_username()}{PERSONAL_SEPARATOR}{label}"


def personal_token_issue(*, user: User, label: str) -> tuple[ApiToken, str]:
    """A person's own token, labelled (`laptop`, `importer`); refusals name the `label`."""
    if not label or PERSONAL_SEPARATOR in label:
        raise invalid(
            "Give the token a label without ':'.", [detail(["label"], "a label without ':'")]
        )
    try:
        return token_issue(name=personal_token_name(user, label), user=user)
    except LearnError as error:
        for item in error.details:
            if item.get("loc") == ["name"]:
                item["loc"] = ["label"]
        raise


def token_revoke(*, token: ApiToken) -> ApiToken:
    """Revoke a token: it stops working at once (open sockets within a second)."""
    with transaction.atomic():
        token = ApiToken.objects.select_for_update().get(pk=token.pk)
        if token.revoked_at is not None:
            raise conflict(f"Token {token.name} was revoked already.")
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])
    return token


def personal_token_revoke(*, user: User, token_id: int) -> ApiToken:
    """A person revokes one of their own tokens; anyone else's is not found, as if absent."""
    token = user.tokens.filter(pk=token_id).first()
    if token is None:
        raise not_found(f"You have no token {token_id}.")
    return token_revoke(token=token)


def token_revoke_named(*, name: str) -> ApiToken:
    token = ApiToken.objects.filter(name=name, revoked_at__isnull=True).first()
    if token is None:
        raise not_found(f"No active token named {name!r}.")
    return token_revoke(token=token)


def machine_tokens() -> list[ApiToken]:
    """Every machine token, active ones first, newest first."""
    return list(
        ApiToken.objects.filter(user__isnull=True).order_by("revoked_at", "-created_at", "-id")
    )


def personal_tokens(user: User) -> list[ApiToken]:
    return list(user.tokens.order_by("revoked_at", "-created_at", "-id"))


# People -------------------------------------------------------------------------------------


def _apply_role(person: User, role: Role) -> None:
    # An admin is a superuser (and staff, for Django's admin), in every project; nobody else is
    # either, and their role is their membership's (`_seat`).
    person.is_superuser = person.is_staff = role is Role.ADMIN


def _seat(person: User, role: Role, project: str) -> None:
    if role is Role.ADMIN:
        person.memberships.all().delete()
    else:
        home = default_project() if project == DEFAULT_PROJECT else project_named(project)
        member_set(project=home, person=person, role=role.value)


def person_add(*, username: str, role: str, password: str, project: str = DEFAULT_PROJECT) -> User:
    """A person who logs in with `password`: a site admin, or a member of `project` with
    `role` there; refusals name the field."""
    chosen = _role(role, HUMAN_ROLES, "role")
    if chosen is not Role.ADMIN and project != DEFAULT_PROJECT:
        project_named(project)
    taken = User.objects.filter(username__iexact=username).values_list("username", flat=True)
    if existing := taken.first():
        raise conflict(
            f"A user named {existing!r} exists already; usernames differ in more than case.",
            [detail(["username"], USERNAME_TAKEN)],
        )
    person = User(username=username)
    _apply_role(person, chosen)
    try:
        person.full_clean(exclude=["password"])
    except ValidationError as exc:
        raise _refused("username", exc) from None
    try:
        validate_password(password, person)
    except ValidationError as exc:
        raise _refused("password", exc) from None
    person.set_password(password)
    with transaction.atomic():
        person.save()
        _seat(person, chosen, project)
    return person


def _refused(field: str, exc: ValidationError) -> LearnError:
    return invalid(" ".join(exc.messages), [detail([field], m) for m in exc.messages])


def _not_self(actor: User, person: User, what: str) -> None:
    if actor.pk == person.pk:
        raise forbidden(
            f"You cannot {what} your own account; ask another admin.",
            [detail(["person"], f"you may not {what} yourself")],
        )


def person_set_role(
    *, actor: User, person: User, role: str, project: str = DEFAULT_PROJECT
) -> User:
    """A site admin makes `person` a site admin, or gives them `role` in `project`."""
    chosen = _role(role, HUMAN_ROLES, "role")
    if chosen is not person_role(person, project):
        _not_self(actor, person, "change the role of")
        with transaction.atomic():
            if person.is_superuser is not (chosen is Role.ADMIN):
                _apply_role(person, chosen)
                person.save(update_fields=["is_superuser", "is_staff"])
            _seat(person, chosen, project)
    return person


def person_role(person: User, project: str = DEFAULT_PROJECT) -> Role:
    """`person`'s role in `project`: `admin` for a site admin, `none` for a non-member."""
    if person.is_superuser:
        return Role.ADMIN
    seat = person.memberships.filter(project__slug=project).values_list("role", flat=True)
    return Role(seat.first() or Role.NONE)


def person_set_active(*, actor: User, person: User, active: bool) -> User:
    """Deactivate (or reactivate) a person: their sessions and personal tokens stop at once."""
    if person.is_active != active:
        if not active:
            _not_self(actor, person, "deactivate")
        person.is_active = active
        person.save(update_fields=["is_active"])
    return person


def people() -> list[User]:
    return list(User.objects.order_by("-is_active", "username"))
