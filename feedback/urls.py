from __future__ import annotations

from django.urls import path

from feedback import pages
from feedback.api import AgreementView, TurnsView

# Under /api/ (learnportal.urls).
urlpatterns = [
    path("turns/", TurnsView.as_view(), name="turns"),
    path("agreement/", AgreementView.as_view(), name="agreement"),
]

# The annotators' pages, under / in the `portal` namespace (learnportal.urls).
page_urlpatterns = [
    path("turns/", pages.turn_list, name="turns"),
    path("turns/<int:pk>/", pages.turn_rate, name="rate"),
    path("agreement/", pages.agreement, name="agreement"),
]
