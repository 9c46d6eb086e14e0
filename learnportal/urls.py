from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from feedback import urls as feedback_urls
from feedback.assignments import urls as assignments_urls
from feedback.gold import urls as gold_urls
from feedback.insight import urls as insight_urls
from feedback.intake import urls as intake_urls
from feedback.judges import urls as judges_urls
from learnportal import pages
from learnportal.api.errors import api_not_found
from learnportal.api.learn import LearnView
from learnportal.api.otlp import OtlpTracesView
from learnportal.people import urls as accounts_urls
from learnportal.people.welcome import WelcomeView
from refinement import urls as refinement_urls
from webhooks import urls as webhooks_urls

# The people's pages, whichever app serves them, in one namespace: `portal:turns`, `portal:plans`.
portal_urlpatterns = [
    path("", pages.home, name="home"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(next_page="portal:login"), name="logout"),
    path("welcome/<uidb64>/<token>/", WelcomeView.as_view(), name="welcome"),
    *feedback_urls.page_urlpatterns,
    *gold_urls.page_urlpatterns,
    *intake_urls.page_urlpatterns,
    *insight_urls.page_urlpatterns,
    *judges_urls.page_urlpatterns,
    *refinement_urls.page_urlpatterns,
    *accounts_urls.page_urlpatterns,
    *webhooks_urls.page_urlpatterns,
]

urlpatterns = [
    path("api/learn/", LearnView.as_view(), name="learn"),
    # OTLP/HTTP's own path: exporters post to /v1/traces, with no slash after it.
    path("v1/traces", OtlpTracesView.as_view(), name="otlp-traces"),
    path("api/", include(feedback_urls.urlpatterns)),
    path("api/", include(gold_urls.urlpatterns)),
    path("api/", include(insight_urls.urlpatterns)),
    path("api/", include(intake_urls.urlpatterns)),
    path("api/", include(assignments_urls.urlpatterns)),
    path("api/", include(judges_urls.urlpatterns)),
    path("api/", include(refinement_urls.urlpatterns)),
    path("api/", include(webhooks_urls.urlpatterns)),
    path("api/", include(accounts_urls.api_urlpatterns)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as a file of its own (?script=), and
    # our template its style: the Content-Security-Policy allows neither inline.
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="api/swagger_ui.html"),
        name="docs",
    ),
    # Last of the api/ routes: any other api/ URL (even one with a newline) is a JSON 404.
    re_path(r"^api/", api_not_found, name="api-not-found"),
    path("admin/", admin.site.urls),
    path("", include((portal_urlpatterns, "portal"))),
]
