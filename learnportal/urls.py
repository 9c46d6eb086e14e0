from __future__ import annotations

from django.contrib import admin
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from learnportal.api.errors import api_not_found
from learnportal.api.learn import LearnView

urlpatterns = [
    path("api/learn/", LearnView.as_view(), name="learn"),
    path("api/", include("feedback.urls")),
    path("api/", include("refinement.urls")),
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
    path("", include("learnportal.portal.urls")),
]
