"""The queue assignments' endpoints, under /api/ (learnportal.urls)."""

from __future__ import annotations

from django.urls import path

from feedback.assignments.api import AssignmentsView, AssignmentView

urlpatterns = [
    path("queue-assignments/", AssignmentsView.as_view(), name="queue-assignments"),
    path("queue-assignments/<int:pk>/", AssignmentView.as_view(), name="queue-assignment"),
]
