"""Django's admin, kept for admins: anyone else gets the portal's 403 page or its login.

Django's own admin sends every visitor without staff rights to its login form, even a person
logged in to the portal as an annotator, who could only fail there. Here a logged-in person
without the admin role gets the portal's 403 page, and a visitor not logged in goes to the
portal's login, coming back to the admin page afterwards.
"""

from __future__ import annotations

from functools import update_wrapper
from typing import TYPE_CHECKING, Any, TypeVar, cast

from django.contrib import admin
from django.contrib.auth.views import redirect_to_login
from django.urls import reverse

from core.accounts.principals import principal_for_user
from core.accounts.roles import Action
from core.web import forbidden_page

if TYPE_CHECKING:
    from collections.abc import Callable

    from django.http import HttpRequest, HttpResponse, HttpResponseBase

_View = TypeVar("_View", bound="Callable[..., HttpResponseBase]")


class PortalAdminSite(admin.AdminSite):
    site_header = "LearnPortal administration"
    site_title = "LearnPortal admin"

    def _refuse(self, request: HttpRequest) -> HttpResponse:
        if request.user.is_authenticated:
            principal = principal_for_user(request.user)
            return forbidden_page(request, principal, Action.MANAGE_ACCOUNTS)
        return redirect_to_login(request.get_full_path(), reverse("portal:login"))

    def admin_view(self, view: _View, cacheable: bool = False) -> _View:
        admitted = super().admin_view(view, cacheable)

        def guard(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
            if not self.has_permission(request):
                return self._refuse(request)
            return admitted(request, *args, **kwargs)

        return cast("_View", update_wrapper(guard, admitted))

    def login(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        # The admin's own login form stays for whoever opens it logged out (and django-axes
        # guards it as it guards the portal's); a person logged in without the role is refused.
        if request.user.is_authenticated and not self.has_permission(request):
            return self._refuse(request)
        return super().login(request, extra_context)
