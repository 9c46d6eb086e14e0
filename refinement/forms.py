"""The reviewers' forms: a note on an approval, a reason for a rejection (the services judge both)."""

from __future__ import annotations

from django import forms


class ApproveForm(forms.Form):
    note = forms.CharField(required=False, max_length=2000)


class RejectForm(forms.Form):
    # Required in the browser; the service refuses an empty reason with its own message.
    reason = forms.CharField(required=False, max_length=2000)
