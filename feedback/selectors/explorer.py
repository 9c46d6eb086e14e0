"""The feedback explorer's reads: the feedback a filter matches, one keyset page of it either
way, and how many rows match (docs/contract.md, "Explorer").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Q, QuerySet

from core.accounts.models import User
from core.projects.selection import project_pk
from feedback.selectors.visibility import counted_feedback, seen_by

if TYPE_CHECKING:
    from core.accounts.principals import Principal
    from feedback.filters import FeedbackFilters, Position
    from feedback.models import Feedback


def feedback_matching(
    filters: FeedbackFilters, *, viewer: Principal | None, project: str | None = None
) -> QuerySet[Feedback]:
    """The counted feedback of a project that these filters match and this viewer may see,
    unordered: of the project the viewer acts in, or of `project` for a viewer of none (a
    command, which sees everything)."""
    if viewer is not None:
        project = viewer.project
    if project is None:
        raise ValueError("feedback_matching needs a viewer or a project")
    rows = counted_feedback(project_pk(project)).filter(seen_by(viewer))
    exact = {
        "source": filters.source,
        "polarity": filters.polarity,
        "dimension": filters.dimension,
        "component_name": filters.component,
        "annotator_id": filters.annotator,
        "correlation_id": filters.correlation_id,
    }
    rows = rows.filter(**{field: value for field, value in exact.items() if value})
    if filters.since is not None:
        rows = rows.filter(ts__gte=filters.since)
    if filters.until is not None:
        rows = rows.filter(ts__lt=filters.until)
    if filters.has_correction is True:
        rows = rows.exclude(correction="")
    elif filters.has_correction is False:
        rows = rows.filter(correction="")
    return rows


def feedback_page_rows(
    filters: FeedbackFilters,
    *,
    viewer: Principal | None,
    after: Position | None,
    project: str | None = None,
) -> QuerySet[Feedback]:
    """The explorer's rows from a position on, newest first: the query a page reads."""
    rows = feedback_matching(filters, viewer=viewer, project=project)
    if after is not None:
        ts, pk = after
        rows = rows.filter(Q(ts__lte=ts), Q(ts__lt=ts) | Q(id__lt=pk))
    return rows.order_by("-ts", "-id")


def feedback_page_newer(
    filters: FeedbackFilters, *, viewer: Principal | None, before: Position, limit: int
) -> tuple[list[Feedback], bool]:
    """The explorer's page just newer than `before`, newest first, and whether newer rows are
    left above it: the same keyset, walked the other way."""
    ts, pk = before
    rows = feedback_matching(filters, viewer=viewer).filter(
        Q(ts__gte=ts), Q(ts__gt=ts) | Q(id__gt=pk)
    )
    page = list(rows.order_by("ts", "id")[: limit + 1])
    return page[:limit][::-1], len(page) > limit


MATCHES_CAP = 10_000


def feedback_match_count(
    filters: FeedbackFilters, *, viewer: Principal | None, cap: int = MATCHES_CAP
) -> tuple[int, bool]:
    """How many feedbacks the explorer's filter matches, counted up to `cap`, and whether there
    are more (the page says "10000+"): a count never walks a whole large table."""
    found = feedback_matching(filters, viewer=viewer).values("id")[: cap + 1].count()
    return min(found, cap), found > cap


def feedback_page(
    filters: FeedbackFilters, *, viewer: Principal | None, after: Position | None, limit: int
) -> tuple[list[Feedback], Position | None]:
    """One page of the explorer, newest first (ts, then id), and where the next one starts.

    Keyset pagination on (ts, id), which the indexes of feedback/migrations/0004_explorer.py
    serve with each filter: the bound `ts <= t` is what lets the database seek to the page
    instead of counting past the rows above it, so a deep page costs what the first does.
    """
    page = list(feedback_page_rows(filters, viewer=viewer, after=after)[: limit + 1])
    if len(page) <= limit:
        return page, None
    last = page[limit - 1]
    return page[:limit], (last.ts, last.id)


def people_names(project: int, limit: int) -> list[str]:
    """Usernames of the project's active members, for an annotator filter's suggestions."""
    return list(
        User.objects.filter(is_active=True, memberships__project=project)
        .order_by("username")
        .values_list("username", flat=True)[:limit]
    )
