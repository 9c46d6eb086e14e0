"""The reviewers' forms: a note on an approval, a reason for a rejection.

Each validates with the REST body of the same decision (`refinement.decisions`), so a note
REST refuses is refused here with REST's message; the services judge the rest.
"""

from __future__ import annotations

from typing import Any

from django import forms

from core.web import BodyForm
from refinement.decisions import NOTE_MAX_LENGTH, Approve, Reject


class DecisionForm(BodyForm):
    """A plan's page holds one of these per proposal: no element ids, which would repeat."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **{"auto_id": False, **kwargs})


class ApproveForm(DecisionForm):
    body_model = Approve

    note = forms.CharField(
        required=False,
        strip=False,
        widget=forms.TextInput(
            attrs={
                "placeholder": "Note (optional)",
                "aria-label": "Approval note",
                "maxlength": NOTE_MAX_LENGTH,
            }
        ),
    )


class RejectForm(DecisionForm):
    body_model = Reject

    # Required in the browser; Reject's pattern refuses a blank reason with the protocol's message.
    reason = forms.CharField(
        required=False,
        strip=False,
        widget=forms.TextInput(
            attrs={
                "placeholder": "Reason (required)",
                "aria-label": "Rejection reason",
                "maxlength": NOTE_MAX_LENGTH,
                "required": True,
            }
        ),
    )


class ApplyForm(forms.Form):
    """An apply sends nothing but the proposal in its URL."""


DECISION_FORMS: dict[str, type[forms.Form]] = {
    "approve": ApproveForm,
    "reject": RejectForm,
    "apply": ApplyForm,
}
