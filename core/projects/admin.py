from __future__ import annotations

from django.contrib import admin

from core.projects.models import Membership, Project


class MembershipInline(admin.TabularInline):  # type: ignore[type-arg]
    model = Membership
    extra = 0
    autocomplete_fields = ("user",)


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    list_display = ("slug", "name", "ratings_per_turn", "lease_seconds", "blind", "created_at")
    search_fields = ("slug", "name")
    inlines = (MembershipInline,)
