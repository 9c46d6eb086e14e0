"""`/welcome/<uid>/<token>/`: an invited person chooses their password and is signed in.

Django's own password-reset confirmation does the work: it moves the token out of the URL into
the session before showing the form (so no Referer carries it), checks it again on the POST,
and the token dies with the password it set (core.projects.invitations makes it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib.auth import views as auth_views
from django.urls import reverse, reverse_lazy

from core.projects.invitations import invitation_days, waiting

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.accounts.models import User
    from core.projects.invitations import Invitation


def welcome_url(request: HttpRequest, invitation: Invitation) -> str:
    """The invitation's link, absolute, to give the person."""
    path = reverse("portal:welcome", args=[invitation.uid, invitation.token])
    return request.build_absolute_uri(path)


class WelcomeView(auth_views.PasswordResetConfirmView):
    template_name = "registration/welcome.html"
    reset_url_token = "choose-password"
    post_reset_login = True
    post_reset_login_backend = "django.contrib.auth.backends.ModelBackend"
    success_url = reverse_lazy("portal:home")

    def get_user(self, uidb64: str) -> User | None:
        person: User | None = super().get_user(uidb64)
        # Only an invitation's link: never a way into an account someone already uses.
        if person is None or not person.is_active or not waiting(person):
            return None
        return person

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(**kwargs) | {"days": invitation_days()}

    def render_to_response(self, context: dict[str, Any], **kwargs: Any) -> HttpResponse:
        if not context.get("validlink"):
            kwargs["status"] = 410  # spent, replaced, expired or mangled: all alike, by design
        elif context["form"].is_bound and context["form"].errors:
            kwargs["status"] = 400
        return super().render_to_response(context, **kwargs)
