from __future__ import annotations

import hashlib
import secrets
from typing import ClassVar

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone

from core.accounts.roles import MACHINE_ROLES, Role

TOKEN_PREFIX = "lp_"
USERNAME_UNIQUE_IN_ANY_CASE = "accounts_user_username_unique_in_any_case"
USERNAME_TAKEN = "Someone has this username already, in this or another case."


def hash_token(raw: str) -> str:
    # Tokens carry 256 random bits, so a fast hash is enough: nothing to brute-force.
    return hashlib.sha256(raw.encode()).hexdigest()


class User(AbstractUser):
    """A person. A superuser is a site admin, in every project; anyone else has a role in each
    project they are a member of (core.projects.models.Membership)."""

    class Meta(AbstractUser.Meta):
        constraints: ClassVar = [
            # One person a name, whatever its case: "Ann" and "ann" would be two people that
            # every page, export and lockout tells apart by case alone.
            models.UniqueConstraint(
                Lower("username"),
                name=USERNAME_UNIQUE_IN_ANY_CASE,
                violation_error_message=USERNAME_TAKEN,
            )
        ]

    @property
    def effective_role(self) -> Role:
        """The person's role in their home project: a site admin's is `admin`, a person's is
        that of their one project or of `default` (core.accounts.principals)."""
        from core.accounts.principals import principal_for_user

        return principal_for_user(self).role


class ApiToken(models.Model):
    """A bearer credential: a machine's (agent, environment) or a person's personal token."""

    name = models.CharField(max_length=150, unique=True)
    role = models.CharField(
        max_length=16,
        choices=[(role.value, role.value) for role in Role if role in MACHINE_ROLES],
        blank=True,
        help_text="For machine tokens; a personal token takes its user's role.",
    )
    user = models.ForeignKey(
        User, null=True, blank=True, on_delete=models.CASCADE, related_name="tokens"
    )
    project = models.ForeignKey(
        "projects.Project",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="tokens",
        help_text="A machine token's one project; a personal token acts in its person's.",
    )
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    hint = models.CharField(max_length=12, editable=False, help_text="The first characters.")
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=(models.Q(user__isnull=True) & ~models.Q(role=""))
                | (models.Q(user__isnull=False) & models.Q(role="")),
                name="token_is_machine_xor_personal",
            ),
            models.CheckConstraint(
                condition=models.Q(user__isnull=True, project__isnull=False)
                | models.Q(user__isnull=False, project__isnull=True),
                name="machine_token_has_one_project",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    @classmethod
    def issue(
        cls, *, name: str, role: str = "", user: User | None = None, project_id: int | None = None
    ) -> tuple[ApiToken, str]:
        """Create a token; the raw value is returned once and never stored."""
        raw = TOKEN_PREFIX + secrets.token_urlsafe(32)
        token = cls.objects.create(
            name=name,
            role=role,
            user=user,
            project_id=project_id,
            key_hash=hash_token(raw),
            hint=raw[:10],
        )
        return token, raw
