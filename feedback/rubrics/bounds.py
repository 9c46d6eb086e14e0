"""The rubric's bounds that a deployment may change (learnportal/settings.py), read when a
rubric or an answer is checked, so that each check sees the settings of the moment."""

from __future__ import annotations

from django.conf import settings


def max_questions() -> int:
    return int(settings.LEARNPORTAL_RUBRIC_MAX_QUESTIONS)


def max_options() -> int:
    """Options of a categorical question, and span labels of a spans question."""
    return int(settings.LEARNPORTAL_RUBRIC_MAX_OPTIONS)


def max_text() -> int:
    """Characters of a text answer."""
    return int(settings.LEARNPORTAL_RUBRIC_MAX_TEXT)


def max_spans() -> int:
    """Spans in one answer to a spans question."""
    return int(settings.LEARNPORTAL_RUBRIC_MAX_SPANS)
