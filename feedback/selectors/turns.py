"""The annotators' turns: the queue, the list a person browses, which of them a viewer sees
as rated, a turn's ratings, and the rating a person may still undo.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, TypedDict

from django.db.models import (
    BooleanField,
    Count,
    Exists,
    ExpressionWrapper,
    F,
    OuterRef,
    Q,
    QuerySet,
)

from core.projects.rules import is_blind
from core.projects.selection import project_pk
from feedback.models import Feedback, Turn, TurnStep, project_of
from feedback.selectors.visibility import counted_feedback, own_human, seen_by, sees_all_ratings
from learnportal_protocol import FeedbackSource
from learnportal_protocol.errors import cut, detail, invalid, not_found

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

    from core.accounts.principals import Principal


# A turn's id as text: a whole number that fits in 64 bits.
ID_TEXT = re.compile(r"[1-9][0-9]{0,17}")


class Queued(TypedDict):
    """What the queue adds to each turn: `rated` when it has all the human ratings it needs."""

    rated: bool


UNRATED_CAP = 10_000


def turn_queue(
    *, component_name: str = "", session_id: str = "", viewer: Principal | None = None
) -> QuerySet[WithAnnotations[Turn, Queued]]:
    """The annotators' queue, each turn annotated `rated`: unrated first, then newest queued
    first (by id, which the turn's arrival assigns).

    A turn is rated when it has the human ratings it needs from distinct people
    (LEARNPORTAL_RATINGS_PER_TURN); an agent's or environment's feedback never rates it. Read
    from the turn's own `ratings_needed` (feedback.queue_state), not counted per row.

    Blind: to an annotator `rated` means rated by them, so that the queue tells them nothing
    of other people's ratings.
    """
    if sees_all_ratings(viewer):
        rated = ExpressionWrapper(Q(ratings_needed__lte=0), output_field=BooleanField())
        turns = Turn.objects.annotate(rated=rated)
    else:
        assert viewer is not None
        own = counted_feedback(project_pk(viewer.project)).filter(
            own_human(viewer), correlation_id=OuterRef("correlation_id")
        )
        turns = Turn.objects.annotate(rated=Exists(own))
    if viewer is not None:
        turns = turns.filter(project_id=project_pk(viewer.project))
    if component_name:
        turns = turns.filter(component_name=component_name)
    if session_id:
        turns = turns.filter(session_id=session_id)
    return turns.order_by("rated", "-id")


def unrated_turn_count(project: int, cap: int = UNRATED_CAP) -> tuple[int, bool]:
    """The project's turns that still need human ratings, counted over the queue's partial
    index (which leads with the project) up to `cap`, and whether there are more (the overview
    says "10000+")."""
    open_turns = Turn.objects.filter(project_id=project, ratings_needed__gt=0, admitted=True)
    found = open_turns.values("id")[: cap + 1].count()
    return min(found, cap), found > cap


def turn_list(
    *, project: str, component_name: str = "", session_id: str = "", open_only: bool = False
) -> QuerySet[Turn]:
    """Every turn of `project`, newest queued first (by id, which the turn's arrival assigns):
    the list a person browses. What to rate next is the queue's to say (feedback.queue);
    `open_only` keeps the turns that still need human ratings."""
    turns = Turn.objects.filter(project_id=project_pk(project))
    if component_name:
        turns = turns.filter(component_name=component_name)
    if session_id:
        turns = turns.filter(session_id=session_id)
    if open_only:
        turns = turns.filter(ratings_needed__gt=0)
    return turns.order_by("-id")


def turn_page(
    *,
    project: str,
    component_name: str = "",
    session_id: str = "",
    open_only: bool = False,
    after: int | None = None,
    limit: int,
) -> tuple[list[Turn], int | None]:
    """One page of `turn_list` below the turn id `after`, and the id the next page starts
    below: keyset pagination on the id, each filter served by an index (Turn.Meta), so that a
    deep page costs what the first does (no OFFSET, no count), and a turn queued meanwhile
    neither repeats nor hides a turn on the next page."""
    turns = turn_list(
        project=project, component_name=component_name, session_id=session_id, open_only=open_only
    )
    if after is not None:
        turns = turns.filter(id__lt=after)
    page = list(turns[: limit + 1])
    if len(page) <= limit:
        return page, None
    return page[:limit], page[limit - 1].id


def rated_for(turns: list[Turn], viewer: Principal) -> set[int]:
    """Of these turns (one page of `turn_list`), those this viewer sees as rated: with all the
    human ratings they need, or, to a blind annotator, rated by them (one query a page)."""
    if sees_all_ratings(viewer):
        return {turn.pk for turn in turns if turn.ratings_needed <= 0}
    mine = set(
        counted_feedback(project_pk(viewer.project))
        .filter(own_human(viewer), correlation_id__in=[turn.correlation_id for turn in turns])
        .filter(step_id="")  # of the whole turn: a step's or its session's rating is not its
        .values_list("correlation_id", flat=True)
    )
    return {turn.pk for turn in turns if turn.correlation_id in mine}


def turn_ratings(turn: Turn, *, viewer: Principal | None) -> list[Feedback]:
    """A turn's ratings (of it, its steps and the session it begins) that this viewer may see,
    newest first (docs/contract.md, "Blind"): to an annotator, what `seen_by` shows, and of
    each unit they rated themselves (the turn, a step: feedback.raters), everyone's; when the
    project is not blind, everyone's."""
    ratings = counted_feedback(project_of(turn)).filter(correlation_id=turn.correlation_id)
    if not sees_all_ratings(viewer):
        assert viewer is not None
        if not viewer.is_human:
            ratings = ratings.filter(seen_by(viewer))
        elif is_blind(viewer.project):
            rated = set(ratings.filter(own_human(viewer)).values_list("step_id", flat=True))
            ratings = ratings.filter(seen_by(viewer) | Q(step_id__in=sorted(rated)))
    return list(ratings.order_by("-ts", "-id"))


def turn_in_project(pk: int, project: str) -> Turn | None:
    """The turn `pk` if it is one of `project`'s: another project's is none, as a missing one."""
    return Turn.objects.filter(pk=pk, project_id=project_pk(project)).first()


def turn_named(ref: str, project: str) -> Turn:
    """The project's turn `ref`: its correlation_id, or else, for a whole number, its id;
    `not_found` naming `turn` otherwise, whether the turn is missing or another project's."""
    turns = Turn.objects.filter(project_id=project_pk(project))
    turn = turns.filter(correlation_id=ref).first()
    if turn is None and ID_TEXT.fullmatch(ref):
        turn = turns.filter(pk=int(ref)).first()
    if turn is None:
        raise not_found("No such turn in this project.", [detail(["turn"], "no such turn")])
    return turn


def turn_ids(project: int, correlation_ids: set[str]) -> dict[str, int]:
    """The project's queued turn of each correlation_id that has one, in one query."""
    turns = Turn.objects.filter(project_id=project, correlation_id__in=correlation_ids)
    return dict(turns.values_list("correlation_id", "id"))


def undoable_rating(principal: Principal, *, now: float, within: float) -> Feedback | None:
    """This person's last rating, if it still counts and arrived less than `within` seconds
    ago: what the queue page offers to undo (feedback.queue.queue_undo judges it). Once it is
    undone, nothing is: an undo never reaches back to the rating before."""
    project = project_pk(principal.project)
    last = (
        Feedback.objects.filter(
            project_id=project, source=FeedbackSource.HUMAN.value, annotator_id=principal.name
        )
        .exclude(correlation_id="")
        .order_by("-received", "-id")
        .first()
    )
    if last is None or last.received <= now - within:
        return None
    return last if counted_feedback(project).filter(pk=last.pk).exists() else None


def turn_steps(turn: Turn) -> list[TurnStep]:
    """A turn's steps, the earliest begun first (those with no start last), then as stored."""
    steps = TurnStep.objects.filter(turn=turn)
    return list(steps.order_by(F("start").asc(nulls_last=True), "id"))


def turn_step(turn: Turn, step_id: str) -> TurnStep:
    """The turn's step `step_id`, or `invalid` naming `step_id` (the contract's word for a step
    the turn does not have, whoever asks)."""
    step = TurnStep.objects.filter(turn=turn, step_id=step_id).first()
    if step is None:
        said = f"{cut(step_id, 80)!r} is not a step of this turn"
        raise invalid(f"step_id: {said}", [detail(["step_id"], said)])
    return step


def session_turns(project: str, session_id: str, limit: int) -> tuple[list[Turn], bool]:
    """The turns of one session (a conversation) of the project, first queued first, each
    with its number of steps (`step_count`), at most `limit` of them; and whether there are
    more."""
    turns = (
        Turn.objects.filter(project_id=project_pk(project), session_id=session_id)
        .annotate(step_count=Count("steps"))
        .order_by("created", "id")
    )
    found: list[Turn] = list(turns[: limit + 1])
    return found[:limit], len(found) > limit
