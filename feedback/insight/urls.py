"""The annotator insight's endpoint, under /api/, and its page, under / in the `portal`
namespace (learnportal.urls)."""

from __future__ import annotations

from django.urls import URLPattern, path

from feedback.insight.api import AnnotatorsView
from feedback.insight.pages import annotators

urlpatterns = [path("annotators/", AnnotatorsView.as_view(), name="annotators")]

page_urlpatterns: list[URLPattern] = [path("annotators/", annotators, name="annotators")]
