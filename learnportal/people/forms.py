"""The admins' and everyone's forms for people and tokens.

They only read the fields; `core.accounts.services` judges them, and its refusals are put
next to the field they name (`core.web.show_learn_error`).
"""

from __future__ import annotations

from django import forms

from core.accounts.roles import HUMAN_ROLES, MACHINE_ROLES, Role
from learnportal_protocol.models import USERNAME_LENGTH

HUMAN_CHOICES = [(role.value, role.value) for role in sorted(HUMAN_ROLES)]
MACHINE_CHOICES = [(role.value, role.value) for role in sorted(MACHINE_ROLES)]
LABEL_LENGTH = 100


class PersonAddForm(forms.Form):
    username = forms.CharField(
        label="Username",
        max_length=USERNAME_LENGTH,
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    role = forms.ChoiceField(label="Role", choices=HUMAN_CHOICES, initial=Role.ANNOTATOR.value)
    password = forms.CharField(
        label="Password",
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text="Give it to them in person; they log in with it.",
    )


class RoleForm(forms.Form):
    role = forms.ChoiceField(label="Role", choices=HUMAN_CHOICES)


class ActiveForm(forms.Form):
    active = forms.TypedChoiceField(
        choices=[("1", "active"), ("0", "deactivated")], coerce=lambda v: v == "1"
    )


class MachineTokenForm(forms.Form):
    name = forms.CharField(
        label="Name",
        max_length=USERNAME_LENGTH,
        help_text="Who uses it, e.g. checkout-agent or gym-1.",
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    role = forms.ChoiceField(label="Role", choices=MACHINE_CHOICES)


class PersonalTokenForm(forms.Form):
    label = forms.CharField(
        label="Label",
        max_length=LABEL_LENGTH,
        help_text="Where you use it, e.g. laptop or importer.",
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
