from __future__ import annotations

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from learnportal.api.learn import LearnView

urlpatterns = [
    path("api/learn/", LearnView.as_view(), name="learn"),
    path("api/", include("feedback.urls")),
    path("api/", include("refinement.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("admin/", admin.site.urls),
    path("", include("learnportal.portal.urls")),
]
