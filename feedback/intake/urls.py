"""The intake rules' endpoints, under /api/ (learnportal.urls)."""

from __future__ import annotations

from django.urls import path

from feedback.intake.api import IntakeRulesView, IntakeRuleView

urlpatterns = [
    path("intake-rules/", IntakeRulesView.as_view(), name="intake-rules"),
    path("intake-rules/<int:pk>/", IntakeRuleView.as_view(), name="intake-rule"),
]
