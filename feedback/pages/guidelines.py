"""A project's guidelines as the pages show them (core.projects.guidelines): rendered beside the
task on the queue and the rate page, each question's under it in the rubric's form, and, where
the project asks for it, the new version a person must acknowledge before they rate again, with
what changed since the one they read last. The managers' page shows them the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.urls import reverse

from core.markdown import markdown_html
from core.projects.guidelines import (
    Guidelines,
    guidelines_at,
    guidelines_changes,
    guidelines_current,
    guidelines_due,
    guidelines_last_read,
)
from core.projects.selection import project_pk
from core.web import when
from feedback.rubrics.questions import GUIDELINES_KEY
from feedback.services.rubrics import rubric_current

if TYPE_CHECKING:
    from datetime import datetime

    from django.utils.safestring import SafeString

    from core.accounts.principals import Principal
    from core.line_diffs import DiffLine
    from feedback.pages.rubric_form import RubricForm

PROJECT_TITLE = "The project's guidelines"


@dataclass(frozen=True)
class ShownQuestion:
    key: str
    label: str
    html: SafeString


@dataclass(frozen=True)
class ShownGuidelines:
    version: int
    html: SafeString | None
    questions: list[ShownQuestion]
    by: str
    when: datetime | None

    @property
    def empty(self) -> bool:
        return self.html is None and not self.questions


@dataclass(frozen=True)
class ShownChange:
    title: str
    lines: list[DiffLine]


def question_labels(project_id: int) -> dict[str, str]:
    """Each question's label by key, the rubric's order: those that take answers first."""
    questions = rubric_current(project_id).rubric.questions
    ordered = [q for q in questions if not q.retired] + [q for q in questions if q.retired]
    return {question.key: question.label for question in ordered}


def guidelines_shown(
    guidelines: Guidelines, labels: dict[str, str], *, base: str
) -> ShownGuidelines:
    """The version rendered (markdown-it-py, then nh3: core.markdown), its questions' in the
    rubric's order, then any of a question the rubric no longer asks, by key."""
    keys = [key for key in labels if key in guidelines.questions]
    keys += sorted(guidelines.questions.keys() - labels.keys())
    return ShownGuidelines(
        version=guidelines.version,
        html=markdown_html(guidelines.text, base=base) if guidelines.text.strip() else None,
        questions=[
            ShownQuestion(
                key, labels.get(key, key), markdown_html(guidelines.questions[key], base=base)
            )
            for key in keys
        ],
        by=guidelines.by,
        when=when(guidelines.created),
    )


def changes_shown(old: Guidelines, new: Guidelines, labels: dict[str, str]) -> list[ShownChange]:
    return [
        ShownChange(
            labels.get(change.key, change.key) if change.key else PROJECT_TITLE, change.lines
        )
        for change in guidelines_changes(old, new)
    ]


def guidelines_context(principal: Principal, rubric: RubricForm | None) -> dict[str, Any]:
    """What the rating pages' guidelines panel needs (partials/guidelines_panel.html), and each
    of the rubric form's questions its own guidelines."""
    project_id = project_pk(principal.project)
    current = guidelines_current(project_id)
    labels = question_labels(project_id)
    base = reverse("portal:project-guidelines", args=[principal.project])
    shown = guidelines_shown(current, labels, base=base)
    if rubric is not None:
        by_key = {question.key: question.html for question in shown.questions}
        for each in rubric.fields:
            each.guidelines = by_key.get(each.question.key, "")
    due = guidelines_due(principal)
    changes = []
    last = 0
    if due is not None:
        last = guidelines_last_read(principal)
        changes = changes_shown(guidelines_at(project_id, last), current, labels)
    return {
        "guidelines": shown,
        "guidelines_key": GUIDELINES_KEY,
        "guidelines_url": base,
        "guidelines_ack_url": reverse(
            "portal:project-guidelines-acknowledge", args=[principal.project]
        ),
        "guidelines_due": due,
        "guidelines_last_read": last,
        "guidelines_changes": changes,
    }
