"""The intake rules' endpoints, under /api/, and their page, under / in the `portal` namespace
(learnportal.urls)."""

from __future__ import annotations

from django.urls import URLPattern, path

from feedback.intake import pages
from feedback.intake.api import IntakeRulesView, IntakeRuleView

urlpatterns = [
    path("intake-rules/", IntakeRulesView.as_view(), name="intake-rules"),
    path("intake-rules/<int:pk>/", IntakeRuleView.as_view(), name="intake-rule"),
]

page_urlpatterns: list[URLPattern] = [path("intake/", pages.intake, name="intake")]
