"""The judges' endpoints, under /api/, and their page, under / in the `portal` namespace
(learnportal.urls)."""

from __future__ import annotations

from django.urls import URLPattern, path

from feedback.judges.api import JudgesView, MarkedJudgesView, MarkedJudgeView
from feedback.judges.pages import judges

urlpatterns = [
    path("judges/", JudgesView.as_view(), name="judges"),
    path("judges/marked/", MarkedJudgesView.as_view(), name="judges-marked"),
    path("judges/marked/<str:username>/", MarkedJudgeView.as_view(), name="judge-marked"),
]

page_urlpatterns: list[URLPattern] = [path("judges/", judges, name="judges")]
