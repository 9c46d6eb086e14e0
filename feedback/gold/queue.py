"""Gold items in the queue: due for a person while their gold items rated fall short of the
project's `gold_rate` of all they rated (one before their first rating, at a rate above 0), the
next one they have neither rated, skipped nor had overruled, leased as any turn is; and a
person's paused queue."""

from __future__ import annotations

from django.db.models import Exists, OuterRef

from core.projects.rules import gold_rules
from feedback.gold.models import GoldItem, GoldResult, QueuePause
from feedback.models import Skip, Turn
from feedback.reviews.reads import overruled
from feedback.selectors.visibility import counted_feedback
from learnportal_protocol import FeedbackSource
from learnportal_protocol.errors import conflict, detail

PAUSED = (
    "your queue in this project is paused: your answers on items whose answers are known fell "
    "below the project's threshold; a manager resumes it"
)


def gold_due(who: str, project: int) -> Turn | None:
    """The gold turn to lease to `who` now, or None (none due, or none left for them)."""
    rate = gold_rules(project).rate
    if rate <= 0:
        return None
    theirs = counted_feedback(project).filter(
        source=FeedbackSource.HUMAN.value, annotator_id=who, step_id=""
    )
    rated = theirs.values("correlation_id").distinct().count()
    answered = GoldResult.objects.filter(
        project_id=project, annotator=who, gold__isnull=False
    ).count()
    if answered >= rate * (rated + 1):
        return None
    turns = Turn.objects.filter(
        Exists(GoldItem.objects.filter(turn=OuterRef("pk"))), project_id=project
    )
    return (
        turns.exclude(Exists(theirs.filter(correlation_id=OuterRef("correlation_id"))))
        .exclude(Exists(Skip.objects.filter(turn=OuterRef("pk"), step_id="", username=who)))
        .exclude(Exists(overruled(who, project, key=OuterRef("correlation_id"), step_id="")))
        .order_by("id")
        .first()
    )


def is_paused(who: str, project: int) -> bool:
    return QueuePause.objects.filter(
        project_id=project, username=who, resumed__isnull=True
    ).exists()


def pause_check(who: str, project: int) -> None:
    """`conflict` naming `queue` when this person's queue in the project is paused."""
    if is_paused(who, project):
        raise conflict(f"Your queue is paused: {PAUSED}.", [detail(["queue"], PAUSED)])
