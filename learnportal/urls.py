from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

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
    path("admin/", admin.site.urls),
    path("", include("learnportal.portal.urls")),
]
