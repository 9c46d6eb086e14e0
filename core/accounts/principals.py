"""Who is calling: the one object every transport hands to the services."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import timedelta

from core.accounts.models import ApiToken, User, hash_token
from core.accounts.roles import ALLOWED, Action, Role
from core.projects.models import DEFAULT_PROJECT, Membership
from learnportal_protocol.errors import ErrorCode, LearnError

LAST_USED_RESOLUTION = timedelta(seconds=60)


@dataclass(frozen=True)
class Principal:
    role: Role
    name: str
    is_human: bool
    user_id: int | None = None
    token_id: int | None = None
    # The project this principal acts in, by slug: a machine token's own, a person's chosen one
    # (core.projects.selection), and `role` is their role there.
    project: str = DEFAULT_PROJECT
    # A person's role in each project they are a member of; a site admin (`admin`) needs none.
    seats: tuple[tuple[str, Role], ...] = ()

    # Lets DRF's IsAuthenticated and templates treat a principal like an authenticated user.
    is_authenticated = True

    @property
    def key(self) -> str:
        return f"{'user' if self.is_human else 'token'}:{self.name}"

    def may(self, action: Action) -> bool:
        return self.role in ALLOWED[action]

    def require(self, action: Action) -> None:
        if not self.may(action):
            raise self.refusal(action)

    def refusal(self, action: Action) -> LearnError:
        """What a role that may not `action` is answered (`forbidden`)."""
        if self.role is Role.NONE:
            return LearnError(
                ErrorCode.FORBIDDEN,
                f"You are not a member of the project {self.project!r}; "
                "ask one of its managers to add you.",
            )
        return LearnError(
            ErrorCode.FORBIDDEN, f"The {self.role.value} role may not {action.value}."
        )


def principal_for_user(user: User) -> Principal:
    """A person in their home project: their one project, else `default`."""
    name = user.get_username()
    if user.is_superuser:
        return Principal(role=Role.ADMIN, name=name, is_human=True, user_id=user.pk)
    seats = tuple(
        (slug, Role(role))
        for slug, role in Membership.objects.filter(user_id=user.pk)
        .order_by("project__slug")
        .values_list("project__slug", "role")
    )
    home = seats[0][0] if len(seats) == 1 else DEFAULT_PROJECT
    return Principal(
        role=dict(seats).get(home, Role.NONE),
        name=name,
        is_human=True,
        user_id=user.pk,
        project=home,
        seats=seats,
    )


def principal_for_token(raw: str) -> Principal | None:
    """The principal a raw bearer token stands for, or None if it is unknown or revoked."""
    return principal_for_token_hash(hash_token(raw))


def principal_for_token_hash(key_hash: str) -> Principal | None:
    """The principal of a token's hash, read from the database (one query, nothing written).

    Callers on the request path go through accounts.credentials, which caches this and records
    `last_used_at` at most once a `LAST_USED_RESOLUTION`.
    """
    token = (
        ApiToken.objects.select_related("user", "project")
        .filter(key_hash=key_hash, revoked_at__isnull=True)
        .first()
    )
    if token is None or (token.user is not None and not token.user.is_active):
        return None
    if token.user is not None:
        return replace(principal_for_user(token.user), token_id=token.pk)
    project = token.project.slug if token.project else DEFAULT_PROJECT
    return Principal(
        role=Role(token.role), name=token.name, is_human=False, token_id=token.pk, project=project
    )


def bearer_token(header_value: str | bytes | None) -> str | None:
    if not header_value:
        return None
    if isinstance(header_value, bytes):
        header_value = header_value.decode("latin-1")
    scheme, _, credentials = header_value.partition(" ")
    if scheme.lower() != "bearer" or not credentials.strip():
        return None
    return credentials.strip()
