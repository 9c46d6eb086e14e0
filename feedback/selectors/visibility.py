"""Which feedback counts and who may see it: the one rule of blind rating, read by every
list, page and export that shows feedback (docs/contract.md, "Blind").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.db.models import Exists, OuterRef, Q, QuerySet

from core.accounts.roles import Action
from core.projects.rules import is_blind
from core.projects.selection import project_pk
from feedback.models import Feedback, Retraction, Turn
from learnportal_protocol import FeedbackSource

if TYPE_CHECKING:
    from core.accounts.principals import Principal


def counted_feedback(project: int) -> QuerySet[Feedback]:
    """The feedback of the project (by id) that counts: every feedback but those their author
    retracted (an undo).

    Everything that reads feedback as evidence (lists, exports, agreement, the queue) reads it
    through here, one project's at a time; a retracted rating stays stored, beside its
    Retraction record.

    NOT EXISTS rather than `retraction__isnull=True`: Django writes that as a LEFT JOIN with
    `retraction.id IS NULL`, which PostgreSQL cannot prove to be an anti-join (the id is not
    the join column), so it estimates a handful of survivors and sorts every matching row
    instead of walking a (field, ts, id) index for the newest few: a page of 15 read all of a
    component's feedback. An anti-join stops after the page.
    """
    return Feedback.objects.filter(project_id=project).filter(
        ~Exists(Retraction.objects.filter(feedback=OuterRef("pk")))
    )


MACHINE_SOURCES = (FeedbackSource.SELF.value, FeedbackSource.ENV.value)


def sees_all_ratings(viewer: Principal | None) -> bool:
    """Reviewers, admins and operators (no viewer: a command) see every person's ratings."""
    return viewer is None or viewer.may(Action.SEE_ALL_RATINGS)


def own_human(viewer: Principal) -> Q:
    return Q(source=FeedbackSource.HUMAN.value, annotator_id=viewer.name)


def seen_by(viewer: Principal | None) -> Q:
    """The one rule of what feedback a viewer may see, on every page and endpoint that shows
    feedback (docs/contract.md, "Blind" and "Explorer"): reviewers and admins see all; an
    annotator sees their own human feedback, and the agents' and environments' (`self`,
    `env`) but for those on a queued turn they have not rated yet (a judgement seen before
    rating anchors one's own, whoever made it). Another person's rating they see only on the
    page of a turn they rated (`turn_ratings`), never in a list. An agent or an environment
    sees only the feedback it sent itself.
    """
    if sees_all_ratings(viewer):
        return Q()
    assert viewer is not None
    if not viewer.is_human:
        return Q(submitted_by=viewer.key)
    if not is_blind(viewer.project):
        return own_human(viewer) | Q(source__in=MACHINE_SOURCES)
    return own_human(viewer) | (Q(source__in=MACHINE_SOURCES) & ~_blind_turn(viewer))


def _blind_turn(viewer: Principal) -> Q:
    """Feedback on a queued turn this viewer has not rated, or on a unit of it (a step, its
    session: feedback.raters) they have not rated. A feedback's turn is the one of its project
    with its correlation_id, or, without one, its feedback_id (a rated turn carried without a
    correlation_id is queued under the feedback's id: feedback.services.feedbacks)."""
    conditions = Q()
    project = project_pk(viewer.project)
    for has_key, key in (
        (~Q(correlation_id=""), "correlation_id"),
        (Q(correlation_id=""), "feedback_id"),
    ):
        queued = Exists(Turn.objects.filter(project_id=project, correlation_id=OuterRef(key)))
        rated = Exists(
            counted_feedback(project).filter(
                own_human(viewer), correlation_id=OuterRef(key), step_id=OuterRef("step_id")
            )
        )
        conditions |= has_key & queued & ~rated
    return conditions


def is_own_rating(rating: Feedback, principal: Principal) -> bool:
    return (
        principal.is_human
        and rating.source == FeedbackSource.HUMAN.value
        and rating.annotator_id == principal.name
    )


def still_blind(ratings: list[Feedback], viewer: Principal) -> bool:
    """Whether, of a turn's ratings (`turn_ratings`), this viewer is still kept from other
    people's: an annotator of a blind project (core.projects.rules) who has not rated the turn
    themselves."""
    return (
        not sees_all_ratings(viewer)
        and not any(is_own_rating(rating, viewer) for rating in ratings)
        and is_blind(viewer.project)
    )
