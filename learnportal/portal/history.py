"""The refinement history: everything planned, reviewed, applied and rolled back."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse

from learnportal.accounts.principals import Principal
from learnportal.accounts.roles import Action
from learnportal.portal import selectors
from learnportal.portal.access import page, requires, when
from learnportal.portal.diffs import edits_summary

HISTORY_PAGE_SIZE = 25
LIST_PARTIAL = "portal/partials/history_list.html"


@requires(Action.HISTORY)
def history_index(request: HttpRequest, principal: Principal) -> HttpResponse:
    paginator = Paginator(selectors.history_page_entries(), HISTORY_PAGE_SIZE)
    page_obj = paginator.get_page(request.GET.get("page"))
    entries = []
    for record in page_obj:
        entry = record.as_entry()
        entry["when"] = when(entry["ts"])
        entry["changes"] = edits_summary(entry["diff"])
        entries.append(entry)
    context = {"page_obj": page_obj, "entries": entries}
    # `?partial=1` is what history.js fetches when the server pushes an event.
    template = LIST_PARTIAL if request.GET.get("partial") else "portal/history.html"
    return page(request, template, context)
