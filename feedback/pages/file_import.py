"""Reviewers: turns imported from a file (feedback.turn_import): the upload, its preview and
column mapping, and the import, at once or one batch a request.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.shortcuts import redirect, render

from core.accounts.roles import Action
from core.web import page, requires, show_learn_error
from feedback.import_forms import ColumnMappingForm, ImportUploadForm
from feedback.import_staging import Staged, staged_file, staged_import_next, staged_upload
from feedback.turn_import import guessed_mapping, mapping_checked
from learnportal_protocol.errors import HTTP_STATUS, LearnError

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal


REFUSED_SHOWN = 200  # rows of the refusals table; the count says how many more


def _import_limits() -> dict[str, int]:
    return {
        "max_bytes": settings.LEARNPORTAL_IMPORT_MAX_BYTES,
        "max_rows": settings.LEARNPORTAL_IMPORT_MAX_ROWS,
        "batch": settings.LEARNPORTAL_MAX_BATCH,
    }


@requires(Action.IMPORT_TURNS)
def turn_import(request: HttpRequest, principal: Principal) -> HttpResponse:
    """Upload a file of turns; its preview and column mapping are `turn_import_file`'s."""
    posted = request.method == "POST"
    form = ImportUploadForm(request.POST, request.FILES) if posted else ImportUploadForm()
    status = 200
    if posted:
        status = 400
        if form.is_valid():
            try:
                staged = staged_upload(form.cleaned_data["file"], owner=principal.user_id or 0)
            except LearnError as error:
                show_learn_error(form, error)
                status = HTTP_STATUS[error.code]
            else:
                return redirect("portal:turn_import_file", token=staged.token)
    context = {"form": form, **_import_limits()}
    return page(request, "feedback/import.html", context, status=status)


@requires(Action.IMPORT_TURNS)
def turn_import_file(request: HttpRequest, principal: Principal, token: str) -> HttpResponse:
    """An uploaded file's first rows and the mapping of its columns; posting the mapping imports
    it, all at once, or (`step`, the progress bar's script) one batch a request."""
    staged = staged_file(token, owner=principal.user_id or 0)
    form = ColumnMappingForm(
        request.POST if request.method == "POST" else None,
        columns=staged.columns,
        initial=guessed_mapping(staged.columns),
    )
    status = 200
    if request.method == "POST" and not staged.finished:
        status = 400
        if form.is_valid():
            try:
                mapping = mapping_checked(form.mapping(), staged.columns)
            except LearnError as error:
                show_learn_error(form, error)
            else:
                if request.POST.get("step"):
                    staged_import_next(staged, principal=principal, mapping=mapping)
                    return render(
                        request, "feedback/partials/import_progress.html", _import_context(staged)
                    )
                while not staged.finished:
                    staged_import_next(staged, principal=principal, mapping=mapping)
                return redirect("portal:turn_import_file", token=staged.token)
    context = {"form": form, **_import_context(staged), **_import_limits()}
    return page(request, "feedback/import_file.html", context, status=status)


def _import_context(staged: Staged) -> dict[str, Any]:
    refused = staged.report.refused
    return {
        "staged": staged,
        "preview": [[_cell(row.get(c)) for c in staged.columns] for row in staged.preview],
        "refused": refused[:REFUSED_SHOWN],
        "refused_more": max(0, len(refused) - REFUSED_SHOWN),
        "refused_rows": len({r.row for r in refused}),
        "percent": 100 if staged.rows == 0 else round(100 * staged.done / staged.rows),
    }


def _cell(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value)
