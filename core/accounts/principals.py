"""Who is calling: the one object every transport hands to the services."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from core.accounts.models import ApiToken, User, hash_token
from core.accounts.roles import ALLOWED, Action, Role
from learnportal_protocol.errors import ErrorCode, LearnError

LAST_USED_RESOLUTION = timedelta(seconds=60)


@dataclass(frozen=True)
class Principal:
    role: Role
    name: str
    is_human: bool
    user_id: int | None = None
    token_id: int | None = None

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
        return LearnError(
            ErrorCode.FORBIDDEN, f"The {self.role.value} role may not {action.value}."
        )


def principal_for_user(user: User) -> Principal:
    return Principal(
        role=user.effective_role, name=user.get_username(), is_human=True, user_id=user.pk
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
        ApiToken.objects.select_related("user")
        .filter(key_hash=key_hash, revoked_at__isnull=True)
        .first()
    )
    if token is None or (token.user is not None and not token.user.is_active):
        return None
    if token.user is not None:
        principal = principal_for_user(token.user)
        return Principal(
            role=principal.role,
            name=principal.name,
            is_human=True,
            user_id=principal.user_id,
            token_id=token.pk,
        )
    return Principal(role=Role(token.role), name=token.name, is_human=False, token_id=token.pk)


def bearer_token(header_value: str | bytes | None) -> str | None:
    if not header_value:
        return None
    if isinstance(header_value, bytes):
        header_value = header_value.decode("latin-1")
    scheme, _, credentials = header_value.partition(" ")
    if scheme.lower() != "bearer" or not credentials.strip():
        return None
    return credentials.strip()
