"""The forms of the projects' pages: each one REST body (learnportal.people.projects_api),
judged by the same model, then by `core.projects.services`."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings

from core.accounts.roles import PROJECT_ROLES, Role
from core.projects import models
from core.web import BodyForm
from learnportal.people.projects_api import (
    InvitationRequest,
    MemberRequest,
    ProjectChanges,
    ProjectRequest,
)
from learnportal_protocol.models import USERNAME_LENGTH

PROJECT_ROLE_CHOICES = [(role.value, role.value) for role in sorted(PROJECT_ROLES)]


def _text(label: str, length: int, **kwargs: Any) -> forms.CharField:
    attrs = {"autocomplete": "off", "maxlength": str(length)}
    return forms.CharField(label=label, widget=forms.TextInput(attrs=attrs), **kwargs)


def _project_role(label: str) -> forms.ChoiceField:
    return forms.ChoiceField(
        label=label, choices=PROJECT_ROLE_CHOICES, initial=Role.ANNOTATOR.value
    )


def _weight(label: str, help_text: str) -> forms.IntegerField:
    attrs = {"min": 0, "max": models.MAX_PRIORITY_WEIGHT}
    return forms.IntegerField(
        label=label, widget=forms.NumberInput(attrs=attrs), help_text=help_text
    )


class ProjectCreateForm(BodyForm):
    body_model = ProjectRequest

    slug = _text("Slug", 50, help_text=f"In its addresses: {models.SLUG_RULE}.")
    name = _text("Name", models.NAME_LENGTH)


class ProjectSettingsForm(BodyForm):
    body_model = ProjectChanges

    name = _text("Name", models.NAME_LENGTH)
    ratings_per_turn = forms.IntegerField(
        label="Ratings per turn",
        required=False,
        widget=forms.NumberInput(attrs={"min": 1, "max": models.MAX_RATINGS_PER_TURN}),
        help_text=(
            "How many people rate each turn. Empty: the portal's "
            f"{settings.LEARNPORTAL_RATINGS_PER_TURN}."
        ),
    )
    lease_seconds = forms.IntegerField(
        label="Lease seconds",
        required=False,
        widget=forms.NumberInput(attrs={"min": 30, "max": models.MAX_LEASE_SECONDS}),
        help_text=(
            "How long a turn stays with the person who took it. Empty: the portal's "
            f"{settings.LEARNPORTAL_LEASE_SECONDS}."
        ),
    )
    blind = forms.BooleanField(
        label="Blind",
        required=False,
        help_text="Annotators see no other person's rating until they have rated.",
    )
    priority_negative = _weight(
        "Judged badly",
        "Added when its agent or environment judged the turn badly (a negative feedback, or a "
        "score below 0).",
    )
    priority_unsure = _weight(
        "Unsure",
        f"Added when a feedback on the turn is unsure (a confidence below {models.LOW_CONFIDENCE}).",
    )
    guidelines = forms.CharField(
        label="Guidelines",
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 12, "maxlength": str(models.GUIDELINES_LENGTH)}),
        help_text="Markdown, shown to the raters beside the task. Each question's own, and the "
        "versions, are on the guidelines page.",
    )
    guidelines_ack_required = forms.BooleanField(
        label="Acknowledge new guidelines",
        required=False,
        help_text="People acknowledge each new version of the guidelines before they rate again.",
    )
    compare_turns = forms.BooleanField(
        label="Compare turns",
        required=False,
        help_text="From now on, turns of one session that answer one prompt, from two or more "
        "components, become a comparison to judge side by side (each component's first "
        "answer).",
    )
    comparisons_as_evidence = forms.BooleanField(
        label="Comparisons move routing",
        required=False,
        help_text="From now on, each judged comparison counts as routing evidence: the winner's "
        "component a success, the loser's a failure (a tie, or one component on both sides, "
        "counts nothing). Adapts and plans weigh it like any experience.",
    )
    gold_rate = forms.FloatField(
        label="Gold share",
        widget=forms.NumberInput(attrs={"min": 0, "max": models.MAX_GOLD_RATE, "step": "0.01"}),
        help_text="The share of each person's queue that is gold items (turns with known "
        f"answers), mixed in unmarked: 0 to {models.MAX_GOLD_RATE}; 0 mixes in none.",
    )
    gold_min_items = forms.IntegerField(
        label="Gold items before judging",
        widget=forms.NumberInput(attrs={"min": 1, "max": models.MAX_GOLD_MIN_ITEMS}),
        help_text="How many gold items a person rates before their accuracy can pause them.",
    )
    gold_pause_below = forms.FloatField(
        label="Pause below accuracy",
        widget=forms.NumberInput(attrs={"min": 0, "max": 1, "step": "0.01"}),
        help_text="A person's queue pauses, and the managers are told, when their accuracy on "
        "gold items is below this: 0 to 1; 0 never pauses.",
    )
    judges_weighed = forms.BooleanField(
        label="Weigh judges by agreement",
        required=False,
        help_text="From now on, each agent's and environment's feedback counts in the stats as "
        "far as its judge agrees with people (Krippendorff's alpha on the turns both rated, 0 "
        "when it does not agree at all), and counts as routing evidence too: a reward of its "
        "score times that weight. A judge not yet measured counts in full, and a refinement "
        "resting on it is one risk level higher.",
    )


class MemberAddForm(BodyForm):
    body_model = MemberRequest

    username = _text("Username", USERNAME_LENGTH)
    role = _project_role("Role")


class MemberInviteForm(MemberAddForm):
    """Adding a member who has no account yet (its own field ids on the members page)."""

    body_model = InvitationRequest
    prefix = "invite"

    username = _text("Their username", USERNAME_LENGTH)
    role = _project_role("Their role")


class MemberRoleForm(forms.Form):
    role = forms.ChoiceField(label="Role", choices=PROJECT_ROLE_CHOICES)
