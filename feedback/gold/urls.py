"""The gold items' endpoints, under /api/, and their pages, under / in the `portal` namespace
(learnportal.urls)."""

from __future__ import annotations

from django.urls import URLPattern, path

from feedback.gold import pages
from feedback.gold.api import (
    GoldComparisonView,
    GoldListView,
    GoldMarkView,
    GoldPeopleView,
    GoldResumeView,
)

urlpatterns = [
    path("turns/<int:pk>/gold/", GoldMarkView.as_view(), name="gold-mark"),
    path(
        "comparisons/<int:comparison>/gold/",
        GoldComparisonView.as_view(),
        name="gold-comparison",
    ),
    path("gold/", GoldListView.as_view(), name="gold"),
    path("gold/people/", GoldPeopleView.as_view(), name="gold-people"),
    path("gold/people/<str:username>/resume/", GoldResumeView.as_view(), name="gold-resume"),
]

page_urlpatterns: list[URLPattern] = [
    path("gold/", pages.gold, name="gold"),
    path("turns/<int:pk>/gold/", pages.gold_mark, name="gold_mark"),
]
