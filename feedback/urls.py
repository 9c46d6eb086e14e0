from __future__ import annotations

from django.urls import path

from feedback.api import (
    AgreementView,
    ExportView,
    FeedbackView,
    QueueNextView,
    QueueReleaseView,
    QueueSkipView,
    QueueUndoView,
    RatingsView,
    TurnsView,
    TurnView,
)
from feedback.comparisons.api import ComparisonsView, JudgmentsView, LeaderboardView
from feedback.pages import agreement, explorer, file_import, leaderboard, queue, sessions, turns
from feedback.pages.comparisons import compare
from feedback.pages.review_list import review_list
from feedback.pages.reviews import review
from feedback.reviews.api import ReviewNextView, ReviewReleaseView, ReviewsView

# Under /api/ (learnportal.urls).
urlpatterns = [
    path("turns/", TurnsView.as_view(), name="turns"),
    path("turns/<int:pk>/", TurnView.as_view(), name="turn"),
    path("queue/next/", QueueNextView.as_view(), name="queue-next"),
    path("queue/release/", QueueReleaseView.as_view(), name="queue-release"),
    path("queue/skip/", QueueSkipView.as_view(), name="queue-skip"),
    path("queue/undo/", QueueUndoView.as_view(), name="queue-undo"),
    path("ratings/", RatingsView.as_view(), name="ratings"),
    path("feedback/", FeedbackView.as_view(), name="feedback"),
    path("exports/<str:kind>.jsonl", ExportView.as_view(), name="export"),
    path("agreement/", AgreementView.as_view(), name="agreement"),
    path("comparisons/", ComparisonsView.as_view(), name="comparisons"),
    path("comparisons/<int:comparison>/judgments/", JudgmentsView.as_view(), name="judgments"),
    path("leaderboard/", LeaderboardView.as_view(), name="leaderboard"),
    path("reviews/", ReviewsView.as_view(), name="reviews"),
    path("reviews/next/", ReviewNextView.as_view(), name="review-next"),
    path("reviews/release/", ReviewReleaseView.as_view(), name="review-release"),
]

# The annotators' pages, under / in the `portal` namespace (learnportal.urls).
page_urlpatterns = [
    path("turns/", turns.turn_list, name="turns"),
    path("sessions/", sessions.session_detail, name="session"),
    path("turns/<int:pk>/", turns.turn_rate, name="rate"),
    path("turns/<int:pk>/rated/", turns.turn_rated, name="rated"),
    path("turns/import/", file_import.turn_import, name="turn_import"),
    path("turns/import/<str:token>/", file_import.turn_import_file, name="turn_import_file"),
    path("queue/", queue.queue, name="queue"),
    path("compare/", compare, name="compare"),
    path("review/", review, name="review"),
    path("reviews/", review_list, name="reviews"),
    path("explorer/", explorer.explorer, name="explorer"),
    path("explorer/turns/<int:pk>/", explorer.turn_detail, name="turn_detail"),
    path("agreement/", agreement.agreement, name="agreement"),
    path("leaderboard/", leaderboard.leaderboard, name="leaderboard"),
]
