from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from core.accounts.models import ApiToken, User


@admin.register(User)
# Django's admin classes are generic in the stubs only (subscripting them needs django-stubs-ext's
# monkeypatch at run time), hence the two ignores.
class LearnPortalUserAdmin(UserAdmin):  # type: ignore[type-arg]
    list_display = ("username", "is_superuser", "is_active", "last_login")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = (
        "name",
        "role",
        "project",
        "user",
        "hint",
        "created_at",
        "last_used_at",
        "revoked_at",
    )
    readonly_fields = ("key_hash", "hint", "created_at", "last_used_at")
