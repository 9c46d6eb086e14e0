from __future__ import annotations

from django import forms

from webhooks.catalogue import EVENTS
from webhooks.services import DESCRIPTION_LENGTH, URL_LENGTH


class EndpointForm(forms.Form):
    url = forms.CharField(
        label="URL",
        max_length=URL_LENGTH,
        help_text="Where to POST each event: an http or https URL.",
        widget=forms.URLInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )
    events = forms.MultipleChoiceField(
        label="Events",
        choices=[(e, e) for e in EVENTS],
        widget=forms.CheckboxSelectMultiple,
        help_text="docs/webhooks.md describes each event's payload.",
    )
    description = forms.CharField(
        label="Description", max_length=DESCRIPTION_LENGTH, required=False
    )
