"""A person's rating of a gold item scored against its known answers, in the rating's
transaction; and their queue paused when, after the project's `gold_min_items` (counted since
a manager last resumed them), their accuracy (known answers matched, of those compared) is
below its `gold_pause_below`.

A known answer matches as the rubric reads answers: a numeric one within a tenth of the
question's range, a list of options as a set, anything else equal. Only whole-turn ratings
are scored: a gold item is a turn.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db.models import Count, Max, Sum

from core.accounts.roles import Action
from core.events import broadcast_on_commit
from core.projects.rules import gold_rules
from feedback.gold.models import GoldItem, GoldResult, QueuePause
from feedback.rubrics.questions import CategoricalQuestion, NumericQuestion
from feedback.services.rubrics import rubric_current

if TYPE_CHECKING:
    from collections.abc import Mapping

    from core.accounts.principals import Principal
    from feedback.rubrics.questions import AnyQuestion

NUMERIC_TOLERANCE = 0.1  # of a numeric question's range


def answer_matches(question: AnyQuestion, given: Any, known: Any) -> bool:
    if given is None:
        return False
    if isinstance(question, NumericQuestion):
        try:
            distance = abs(float(given) - float(known))
        except (TypeError, ValueError):
            return False
        tolerance = (question.max - question.min) * NUMERIC_TOLERANCE
        return distance <= tolerance * (1 + 1e-9)  # 4.4 - 4 is 0.4000000000000004
    if isinstance(question, CategoricalQuestion) and question.multiple:
        return isinstance(given, list) and isinstance(known, list) and set(given) == set(known)
    return bool(given == known)


@dataclass(frozen=True)
class Given:
    """A person's rating of a whole turn, as gold items read it."""

    rating_id: str
    answers: Mapping[str, Any]  # question key to answer


def gold_score(
    principal: Principal,
    project: int,
    ratings: Mapping[str, Given],
    *,
    now: float | None = None,
) -> None:
    """Score this person's ratings of turns (by correlation_id) that are gold items, each
    replacing their earlier result on it; then pause their queue if the project's rule says
    so. One query when none is gold."""
    golds = list(
        GoldItem.objects.filter(project_id=project, turn__correlation_id__in=ratings)
        .select_related("turn")
        .order_by("id")
    )
    if not golds:
        return
    asked = {q.key: q for q in rubric_current(project).rubric.questions if not q.retired}
    now = time.time() if now is None else now
    for gold in golds:
        known = gold.answers if isinstance(gold.answers, dict) else {}
        compared = [key for key in known if key in asked]
        if not compared:
            continue
        given = ratings[gold.turn.correlation_id]
        matched = sum(
            answer_matches(asked[key], given.answers.get(key), known[key]) for key in compared
        )
        GoldResult.objects.update_or_create(
            gold=gold,
            annotator=principal.name,
            defaults={
                "project_id": project,
                "rating_id": given.rating_id,
                "compared": len(compared),
                "matched": matched,
                "ts": now,
            },
        )
    pause_if_due(principal, project, now)


def pause_if_due(principal: Principal, project: int, now: float) -> None:
    """Pause this person's queue if, past the project's `gold_min_items` since their last
    resume, their accuracy is below its `gold_pause_below`; told live and by webhook."""
    rules = gold_rules(project)
    if rules.pause_below <= 0:
        return
    pauses = QueuePause.objects.filter(project_id=project, username=principal.name)
    since = pauses.aggregate(last=Max("resumed"))["last"] or 0.0
    totals = GoldResult.objects.filter(
        project_id=project, annotator=principal.name, ts__gt=since
    ).aggregate(items=Count("id"), compared=Sum("compared"), matched=Sum("matched"))
    items, compared = int(totals["items"]), int(totals["compared"] or 0)
    if items < rules.min_items or not compared:
        return
    accuracy = int(totals["matched"] or 0) / compared
    if accuracy >= rules.pause_below:
        return
    _, paused = QueuePause.objects.get_or_create(
        project_id=project,
        username=principal.name,
        resumed__isnull=True,
        defaults={
            "accuracy": accuracy,
            "items": items,
            "threshold": rules.pause_below,
            "ts": now,
        },
    )
    if paused:
        broadcast_on_commit(
            "annotator.paused",
            {
                "annotator": principal.name,
                "accuracy": round(accuracy, 4),
                "items": items,
                "threshold": rules.pause_below,
            },
            project=principal.project,
            audience=Action.MANAGE_GOLD,
        )
