"""The import page's two forms: the file, then which of its columns make a turn. They only read
what the browser sends; feedback.turn_files and feedback.turn_import judge it."""

from __future__ import annotations

from typing import Any

from django import forms

from feedback.turn_import import REQUIRED_TARGETS, TARGETS, ColumnMapping

TARGET_LABELS = {
    "prompt": "Prompt",
    "response": "Response",
    "model": "Model",
    "component": "Component",
    "session": "Session",
    "correlation_id": "Correlation id",
}
TARGET_HELP = {
    "model": "left out: no model",
    "correlation_id": "a turn already queued with the same id is not stored again; left out, "
    "an id is made from the prompt, response, model and session",
}


class ImportUploadForm(forms.Form):
    file = forms.FileField(
        label="File of turns",
        help_text="JSON lines (.jsonl) or CSV with a header row (.csv)",
        error_messages={
            "required": "Choose a .jsonl or .csv file of turns to upload.",
            "empty": "The file is empty: choose a file with at least one turn.",
        },
        widget=forms.ClearableFileInput(attrs={"accept": ".jsonl,.ndjson,.csv"}),
    )


class ColumnMappingForm(forms.Form):
    """One choice of column a target, and the columns kept as the turn's metadata."""

    def __init__(self, *args: Any, columns: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        none = [("", "— none —")]
        offered = [(c, c) for c in columns]
        for target in TARGETS:
            self.fields[target] = forms.ChoiceField(
                label=TARGET_LABELS[target],
                choices=none + offered,
                # Required or not is turn_import's to say, in its words.
                required=False,
                help_text=TARGET_HELP.get(target, "required" if target in REQUIRED_TARGETS else ""),
            )
        self.fields["metadata"] = forms.MultipleChoiceField(
            label="Metadata",
            choices=offered,
            required=False,
            widget=forms.CheckboxSelectMultiple,
            help_text="kept with the turn (its environment), shown beside it when rating",
        )

    def mapping(self) -> ColumnMapping:
        data = self.cleaned_data
        chosen = {target: data.get(target) or "" for target in TARGETS}
        return ColumnMapping(**chosen, metadata=tuple(data.get("metadata") or ()))
