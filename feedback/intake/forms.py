"""The intake page's form of one rule: the fields of `IntakeRuleRequest`, which alone judges
what is sent (core.web.BodyForm)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms

from core.projects.models import MAX_PRIORITY_WEIGHT
from core.web import BodyForm
from feedback.assignments.rules import MAX_PEOPLE, AssignmentRequest
from feedback.intake.models import RULE_NAME_LENGTH

if TYPE_CHECKING:
    from collections.abc import Sequence

    from feedback.intake.models import IntakeRule
from feedback.intake.rules import IntakeRuleRequest
from learnportal_protocol.models import NAME_LENGTH, USERNAME_LENGTH

ANY = ("", "any")
SOURCES = [ANY, ("human", "people"), ("env", "environments"), ("self", "agents themselves")]
PEOPLE_LENGTH = MAX_PEOPLE * (USERNAME_LENGTH + 2)
POLARITIES = [ANY, *((p, p) for p in ("positive", "negative", "neutral", "corrective"))]


def _text(
    label: str, length: int, help_text: str = "", *, required: bool = False
) -> forms.CharField:
    attrs = {"autocomplete": "off", "maxlength": str(length)}
    return forms.CharField(
        label=label, required=required, help_text=help_text, widget=forms.TextInput(attrs=attrs)
    )


def _number(label: str, help_text: str, **attrs: float | str) -> forms.FloatField:
    return forms.FloatField(
        label=label,
        required=False,
        help_text=help_text,
        widget=forms.NumberInput(attrs={"step": "any", **attrs}),
    )


class IntakeRuleForm(BodyForm):
    body_model = IntakeRuleRequest

    name = _text(
        "Name", RULE_NAME_LENGTH, "What the rule is for, as the list shows it.", required=True
    )
    rate = forms.FloatField(
        label="Share taken",
        help_text="Of what matches, the share it sends to the queue: 0 to 1 (0.1 is a tenth).",
        widget=forms.NumberInput(attrs={"min": 0, "max": 1, "step": "any"}),
    )
    priority = forms.IntegerField(
        label="Priority",
        initial=0,
        help_text=f"How far up the queue the turns it takes go: 0 to {MAX_PRIORITY_WEIGHT}.",
        widget=forms.NumberInput(attrs={"min": 0, "max": MAX_PRIORITY_WEIGHT}),
    )
    component = _text("Component", NAME_LENGTH, "Only turns of this component; empty: any.")
    metadata_key = _text(
        "Metadata key", NAME_LENGTH, "Only turns whose environment holds this key; empty: any."
    )
    source = forms.ChoiceField(
        label="Feedback from", choices=SOURCES, required=False,
        help_text="With any of the feedback's criteria, a turn is taken when a feedback like that arrives on it.",
    )  # fmt: skip
    polarity = forms.ChoiceField(label="Polarity", choices=POLARITIES, required=False)
    score_min = _number("Score at least", "Empty: no bound.")
    score_max = _number("Score at most", "Empty: no bound.")
    confidence_below = _number(
        "Confidence below", "A feedback less sure of itself than this: above 0, at most 1.",
        min=0, max=1,
    )  # fmt: skip
    judge_agreement_below = _number(
        "Judge agreement below",
        "An agent's or environment's feedback whose judge agrees with people less than this "
        "(its weight on the judges page), or is not measured yet: above 0, at most 1.",
        min=0,
        max=1,
    )
    enabled = forms.BooleanField(label="Enabled", required=False, initial=True)


class AssignmentForm(BodyForm):
    """A part of the queue kept for named people: the people as one line, split on commas."""

    body_model = AssignmentRequest

    component = _text("Component", NAME_LENGTH, "Its turns, steps and sessions.")
    rule = forms.TypedChoiceField(
        label="Or the turns a rule let in",
        required=False,
        coerce=int,
        empty_value=None,
        help_text="Neither a component nor a rule: the whole queue.",
    )
    usernames = forms.CharField(
        label="People",
        help_text="Members of the project, by username, separated by commas.",
        widget=forms.TextInput(attrs={"autocomplete": "off", "maxlength": str(PEOPLE_LENGTH)}),
    )

    def __init__(self, *args: Any, rules: Sequence[IntakeRule] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["rule"]
        assert isinstance(field, forms.TypedChoiceField)
        field.choices = [("", "no rule"), *((str(r.pk), r.name) for r in rules)]

    def clean_usernames(self) -> list[str]:
        return [name.strip() for name in self.cleaned_data["usernames"].split(",") if name.strip()]
