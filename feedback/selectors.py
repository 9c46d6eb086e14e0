"""Read-only queries over turns, feedback, experiences and stats: the API's, the pages', and
all that other apps (refinement) read of feedback. What crosses over is plain values, never a
model, so that feedback's tables stay its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from django.db import connection
from django.db.models import BooleanField, ExpressionWrapper, Q, QuerySet

from feedback.models import ComponentStats, Experience, Feedback, Turn
from learnportal.accounts.roles import Role
from learnportal.protocol import FeedbackSource

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

    from learnportal.accounts.principals import Principal


class Queued(TypedDict):
    """What the queue adds to each turn: `rated` when it has all the human ratings it needs."""

    rated: bool


# (component_name, reward, behaviour_prob) of one stored experience.
ExperienceRow = tuple[str, float, float | None]
CORRECTION_FIELDS = ("dimension", "comment", "correction", "annotator_id", "source")


def component_names() -> list[str]:
    """Every component that has been called or rated, by name."""
    return list(
        ComponentStats.objects.order_by("component_name").values_list("component_name", flat=True)
    )


def component_records(component_name: str = "") -> list[dict[str, Any]]:
    """ComponentPerformanceRecords: one indexed row a component, never the calls themselves."""
    stats = ComponentStats.objects.defer("duration_sketch").order_by("component_name")
    if component_name:
        stats = stats.filter(component_name=component_name)
    return [row.as_record() for row in stats]


@dataclass(frozen=True)
class ComponentEvidence:
    """How much a component's record rests on: its calls and its feedbacks."""

    calls: int = 0
    feedbacks: int = 0


def component_evidence(names: set[str]) -> dict[str, ComponentEvidence]:
    """The evidence of each named component that has any, in one query."""
    rows = ComponentStats.objects.filter(component_name__in=names).values_list(
        "component_name", "calls_total", "feedback_count"
    )
    return {name: ComponentEvidence(calls, feedbacks) for name, calls, feedbacks in rows}


def experience_window(limit: int) -> list[ExperienceRow]:
    """The newest `limit` experiences that name a component, oldest first: a replay window.

    Raw SQL and one `fetchall`: adapt reads up to a million of these (bench/adapt.py), and
    building no model instance is what keeps that read fast.
    """
    table = connection.ops.quote_name(Experience._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT component_name, reward, behaviour_prob FROM {table} "
            "WHERE component_name <> '' ORDER BY id DESC LIMIT %s",
            [limit],
        )
        rows: list[ExperienceRow] = cursor.fetchall()
    return rows[::-1]


def corrections(component_name: str, limit: int) -> list[dict[str, str]]:
    """A component's newest corrective feedbacks: what to do instead, and who said so."""
    return list(
        Feedback.objects.filter(component_name=component_name, polarity="corrective")
        .order_by("-ts")
        .values(*CORRECTION_FIELDS)[:limit]
    )


def counted_feedback() -> QuerySet[Feedback]:
    """The feedback that counts: every feedback but those their author retracted (an undo).

    Everything that reads feedback as evidence (lists, exports, agreement, the queue) reads it
    through here; a retracted rating stays stored, beside its Retraction record.
    """
    return Feedback.objects.filter(retraction__isnull=True)


def turn_queue(
    *, component_name: str = "", session_id: str = ""
) -> QuerySet[WithAnnotations[Turn, Queued]]:
    """The annotators' queue, each turn annotated `rated`: unrated first, then newest first.

    A turn is rated when it has the human ratings it needs from distinct people
    (LEARNPORTAL_RATINGS_PER_TURN); an agent's or environment's feedback never rates it. Read
    from the turn's own `ratings_needed` (feedback.queue_state), not counted per row.
    """
    rated = ExpressionWrapper(Q(ratings_needed__lte=0), output_field=BooleanField())
    turns = Turn.objects.annotate(rated=rated)
    if component_name:
        turns = turns.filter(component_name=component_name)
    if session_id:
        turns = turns.filter(session_id=session_id)
    return turns.order_by("rated", "-created", "-id")


def unrated_turn_count() -> int:
    return turn_queue().filter(rated=False).count()


def next_unrated_turn(*, after: Turn) -> Turn | None:
    """The turn to rate next: the queue's first unrated one other than `after`."""
    return turn_queue().filter(rated=False).exclude(pk=after.pk).first()


def queue_filters() -> dict[str, list[str]]:
    def distinct(field: str) -> list[str]:
        return list(
            Turn.objects.exclude(**{field: ""})
            .order_by(field)
            .values_list(field, flat=True)
            .distinct()
        )

    return {"components": distinct("component_name"), "sessions": distinct("session_id")}


def turn_ratings(turn: Turn) -> list[Feedback]:
    return list(
        counted_feedback().filter(correlation_id=turn.correlation_id).order_by("-ts", "-id")
    )


# Blind rating (docs/contract.md, "The people's side"): who sees every rating of a turn at once.
SEES_EVERY_RATING = frozenset({Role.REVIEWER, Role.ADMIN})


def is_own_rating(rating: Feedback, principal: Principal) -> bool:
    return (
        principal.is_human
        and rating.source == FeedbackSource.HUMAN.value
        and rating.annotator_id == principal.name
    )


def undoable_rating(principal: Principal, *, now: float, within: float) -> Feedback | None:
    """This person's last rating, if it still counts and arrived less than `within` seconds
    ago: what the queue page offers to undo (feedback.queue.queue_undo judges it). Once it is
    undone, nothing is: an undo never reaches back to the rating before."""
    last = (
        Feedback.objects.filter(source=FeedbackSource.HUMAN.value, annotator_id=principal.name)
        .exclude(correlation_id="")
        .order_by("-received", "-id")
        .first()
    )
    if last is None or last.received <= now - within:
        return None
    return last if counted_feedback().filter(pk=last.pk).exists() else None


def visible_ratings(ratings: list[Feedback], principal: Principal) -> list[Feedback]:
    """Of the ratings of one turn (`turn_ratings`), those this person may see on the pages
    where they rate it: blind for annotators.

    An annotator sees nobody else's rating (a person's, or an agent's or environment's own
    judgement, which would anchor theirs just as well) until they have rated the turn; from
    then on, all of them. Reviewers and admins always see all.
    """
    if principal.role in SEES_EVERY_RATING:
        return ratings
    if any(is_own_rating(rating, principal) for rating in ratings):
        return ratings
    return []


def feedback_count() -> int:
    return Feedback.objects.count()
