from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from learnportal.accounts.models import ApiToken, User


@admin.register(User)
class LearnPortalUserAdmin(UserAdmin):
    fieldsets = (*UserAdmin.fieldsets, ("Role", {"fields": ("role",)}))
    list_display = ("username", "role", "is_superuser", "is_active", "last_login")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("name", "role", "user", "hint", "created_at", "last_used_at", "revoked_at")
    readonly_fields = ("key_hash", "hint", "created_at", "last_used_at")
