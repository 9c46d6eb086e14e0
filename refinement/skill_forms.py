"""The admins' form for a step's learning settings (docs/learning-store.md).

It reads the fields; `learning_store.step_update` judges them as it judges `PUT /api/steps/<id>/`,
and its refusals are put next to the field they name.
"""

from __future__ import annotations

from django import forms

from refinement.vocabulary import LearningsAccess, choices

TEXT_MAX_LENGTH = 20_000  # StepUpdate's, in refinement.api


class StepSettingsForm(forms.Form):
    learnings_access = forms.ChoiceField(
        label="Learnings access",
        choices=choices(LearningsAccess),
        help_text="read: sees the global skill; read-write: also contributes; none: neither.",
    )
    learning_objective = forms.CharField(
        label="Learning objective",
        required=False,
        strip=False,
        max_length=TEXT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="What the learning agent extracts after this step; a read-write step needs one.",
    )
    lock_learnings = forms.BooleanField(
        label="Lock learnings",
        required=False,
        help_text="Keep reading the skill but take no more writes from this step.",
    )
    review_notes = forms.CharField(
        label="Review notes",
        required=False,
        strip=False,
        max_length=TEXT_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Why the step is locked: required to lock it.",
    )
