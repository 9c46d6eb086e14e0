"""The judges' endpoints, under /api/ (learnportal.urls)."""

from __future__ import annotations

from django.urls import path

from feedback.judges.api import JudgesView

urlpatterns = [path("judges/", JudgesView.as_view(), name="judges")]
