from __future__ import annotations

from django.urls import path

from feedback import pages
from feedback.api import (
    AgreementView,
    ExportView,
    FeedbackView,
    QueueNextView,
    QueueReleaseView,
    QueueSkipView,
    QueueUndoView,
    TurnsView,
)

# Under /api/ (learnportal.urls).
urlpatterns = [
    path("turns/", TurnsView.as_view(), name="turns"),
    path("queue/next/", QueueNextView.as_view(), name="queue-next"),
    path("queue/release/", QueueReleaseView.as_view(), name="queue-release"),
    path("queue/skip/", QueueSkipView.as_view(), name="queue-skip"),
    path("queue/undo/", QueueUndoView.as_view(), name="queue-undo"),
    path("feedback/", FeedbackView.as_view(), name="feedback"),
    path("exports/<str:kind>.jsonl", ExportView.as_view(), name="export"),
    path("agreement/", AgreementView.as_view(), name="agreement"),
]

# The annotators' pages, under / in the `portal` namespace (learnportal.urls).
page_urlpatterns = [
    path("turns/", pages.turn_list, name="turns"),
    path("turns/<int:pk>/", pages.turn_rate, name="rate"),
    path("turns/<int:pk>/rated/", pages.turn_rated, name="rated"),
    path("turns/import/", pages.turn_import, name="turn_import"),
    path("turns/import/<str:token>/", pages.turn_import_file, name="turn_import_file"),
    path("queue/", pages.queue, name="queue"),
    path("explorer/", pages.explorer, name="explorer"),
    path("explorer/turns/<int:pk>/", pages.turn_detail, name="turn_detail"),
    path("agreement/", pages.agreement, name="agreement"),
]
