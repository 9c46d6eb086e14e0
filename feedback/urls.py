from __future__ import annotations

from django.urls import path

from feedback import pages
from feedback.api import ExportView, FeedbackView, TurnsView

# Under /api/ (learnportal.urls).
urlpatterns = [
    path("turns/", TurnsView.as_view(), name="turns"),
    path("feedback/", FeedbackView.as_view(), name="feedback"),
    path("exports/<str:kind>.jsonl", ExportView.as_view(), name="export"),
]

# The annotators' pages, under / in the `portal` namespace (learnportal.urls).
page_urlpatterns = [
    path("turns/", pages.turn_list, name="turns"),
    path("turns/<int:pk>/", pages.turn_rate, name="rate"),
    path("explorer/", pages.explorer, name="explorer"),
    path("explorer/turns/<int:pk>/", pages.turn_detail, name="turn_detail"),
]
