"""Reviewers: how much the annotators agree, and the turns they disagree on most."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.urls import reverse

from core.accounts.roles import Action
from core.web import page, requires
from feedback.selectors.agreement import agreement_read

if TYPE_CHECKING:
    from django.http import HttpRequest, HttpResponse

    from core.accounts.principals import Principal


DISAGREEMENTS_SHOWN = 20


# Krippendorff's guideline (2004, p. 241): rely on data with alpha >= .800; draw tentative
# conclusions only from .667 to .800; below that, the coders do not agree well enough.
ALPHA_READINGS = ((0.8, "reliable"), (0.667, "tentative"), (float("-inf"), "unreliable"))


@requires(Action.READ_AGREEMENT)
def agreement(request: HttpRequest, principal: Principal) -> HttpResponse:
    report = agreement_read(principal.project, disagreements=DISAGREEMENTS_SHOWN)
    rows = [{"row": row, "reading": _reading(row.alpha)} for row in report.agreement.dimensions]
    disagreements = [
        {
            "turn": d,
            "url": reverse("portal:turn_detail", args=[d.turn_id]) if d.turn_id is not None else "",
        }
        for d in report.disagreements
    ]
    context = {"rows": rows, "disagreements": disagreements, "shown": DISAGREEMENTS_SHOWN}
    return page(request, "feedback/agreement.html", context)


def _reading(alpha: float | None) -> str:
    if alpha is None:
        return "not enough data"
    return next(label for floor, label in ALPHA_READINGS if alpha >= floor)
