"""django.contrib.admin's app, with the site of accounts.admin_site (apart from accounts.apps,
whose one AppConfig Django finds by itself)."""

from __future__ import annotations

from django.contrib.admin.apps import AdminConfig


class PortalAdminConfig(AdminConfig):
    default_site = "core.accounts.admin_site.PortalAdminSite"
