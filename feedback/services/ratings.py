"""A person's rating of a turn on its project's rubric (POST /api/ratings/), all or nothing.

The rating keeps every answer under the rubric version it was given under. Its scored answers
(feedback.rubrics.scores) are stored as the person's feedback on the turn as well, through the
one feedback service, so that the rating counts toward the queue, ends the person's lease and
meets the raters' rule exactly as a rating from the page does: one feedback for each answer whose
key is one of the protocol's dimensions, or, when none is, one for the first scored answer, the
rating's score. The comment and the correction go with the first of them only, so that an export
of preference pairs holds each correction once.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db import transaction
from pydantic import ValidationError

from core.accounts.roles import Action
from core.projects.guidelines import guidelines_read_check
from core.projects.selection import project_pk
from feedback.gold.scoring import Given, gold_score
from feedback.models import FEEDBACK_ID_SEPARATOR, Rating
from feedback.question_sums import question_sums_recount
from feedback.rubrics.answers import answers_clean
from feedback.rubrics.scores import DIMENSIONS, feedback_keys, scores_of
from feedback.selectors.turns import turn_named, turn_step
from feedback.services.feedbacks import feedback_store
from feedback.services.rubrics import rubric_current
from feedback.sessions import opens_session
from feedback.traces.steps import SESSION_STEP, StepKind, step_component
from feedback.traces.store import SESSION_UNCORRECTED
from learnportal_protocol import Feedback, FeedbackPolarity, RatedTurn
from learnportal_protocol.errors import conflict, detail, invalid
from learnportal_protocol.wire import invalid_from

if TYPE_CHECKING:
    from core.accounts.principals import Principal
    from feedback.models import Turn, TurnStep

NO_SCORE = (
    "a rating answers at least one question with a score: numeric, boolean, "
    "or categorical with ordered options and one choice"
)


@dataclass(frozen=True)
class RatingOutcome:
    rating_id: str
    rubric_version: int


@dataclass(frozen=True)
class Remarks:
    """What a person adds to their answers: a comment, a correction and the span it replaces."""

    comment: str = ""
    correction: str = ""
    correction_span: tuple[int, int] | None = None


def rating_record(
    *,
    principal: Principal,
    turn: str,
    answers: dict[str, Any],
    remarks: Remarks,
    rubric_version: int | None = None,
    step_id: str = "",
) -> RatingOutcome:
    """Store a person's answers to the rubric of their project on its turn `turn` (an id or a
    correlation_id: feedback.selectors.turns.turn_named), or refuse them all: `invalid` with details
    `["answers", key]` for each bad answer, and as the feedback service refuses the rest.
    `rubric_version`, the version the person answered (the form's): `conflict` if it is no
    longer the current one, as the answers were given to other questions. `step_id`: the step
    of the turn it rates, whose output a correction and spans are within, rather than the whole
    turn; it answers the questions asked of its kind."""
    principal.require(Action.QUEUE)
    guidelines_read_check(principal)  # once, before the answers are judged: it is said first
    turn_row = turn_named(turn, principal.project)
    project_id = project_pk(principal.project)
    stored = rubric_current(project_id)
    if rubric_version is not None and rubric_version != stored.version:
        said = (
            f"the rubric is at version {stored.version} now; these answers were given on "
            f"version {rubric_version}: read it again and rate"
        )
        raise conflict(f"rubric_version: {said}", [detail(["rubric_version"], said)])
    session = step_id == SESSION_STEP
    if session:
        _session_check(turn_row, remarks)
    step = turn_step(turn_row, step_id) if step_id and not session else None
    kind = StepKind(step.kind) if step is not None else None
    if kind is not None and not any(
        q.asked_of(kind) and not q.retired for q in stored.rubric.questions
    ):
        said = f"the rubric asks nothing of {kind.value} steps"
        raise invalid(f"step_id: {said}", [detail(["step_id"], said)])
    rated = None if session else rated_of(turn_row, step)
    clean = answers_clean(
        stored.rubric, answers, response=None if rated is None else rated.response, step_kind=kind
    )
    scores = scores_of(stored.rubric, clean)
    if not scores:
        raise invalid(f"answers: {NO_SCORE}", [detail(["answers"], NO_SCORE)])
    rating_id = uuid.uuid4().hex
    feedbacks = rating_feedbacks(turn_row, rating_id, scores, remarks, step=step, session=session)
    with transaction.atomic():
        feedback_store(principal=principal, feedbacks=feedbacks)
        span = remarks.correction_span or (None, None)
        Rating.objects.create(
            rating_id=rating_id,
            project_id=project_id,
            turn=turn_row,
            step_id=step_id,
            annotator=principal.name,
            rubric_version=stored.version,
            answers=clean,
            comment=remarks.comment,
            correction=remarks.correction,
            span_start=span[0],
            span_end=span[1],
            ts=time.time(),
        )
        question_sums_recount(project_id, [turn_row.pk])
        if not step_id:
            gold_score(principal, project_id, {turn_row.correlation_id: Given(rating_id, clean)})
    return RatingOutcome(rating_id=rating_id, rubric_version=stored.version)


def _session_check(turn: Turn, remarks: Remarks) -> None:
    """`invalid` unless `turn` begins its session and the remarks correct nothing."""
    if not opens_session([turn.pk]):
        said = f"{SESSION_STEP!r} rates a session through its first turn; this turn is not one"
        raise invalid(f"step_id: {said}", [detail(["step_id"], said)])
    if remarks.correction or remarks.correction_span is not None:
        raise invalid(
            f"correction: {SESSION_UNCORRECTED}", [detail(["correction"], SESSION_UNCORRECTED)]
        )


def rated_of(turn: Turn, step: TurnStep | None) -> RatedTurn:
    """What a rating of the turn, or of one of its steps, rates as training data sees it: the
    turn's prompt and response, or the step's input and output (so that a correction of a
    step's output makes a pair of the step's own, in every export)."""
    return RatedTurn(
        prompt=turn.prompt if step is None else step.input,
        response=turn.response if step is None else step.output,
        model=turn.model,
        environment=turn.environment_value(),
        version=turn.version,
    )


def rating_feedbacks(
    turn: Turn,
    rating_id: str,
    scores: dict[str, float],
    remarks: Remarks,
    *,
    step: TurnStep | None = None,
    session: bool = False,
) -> list[Feedback]:
    """The feedback items a rating with these `scores` (in the rubric's order, one at least) is
    stored as: one for each score whose key is a dimension, else one for the first; the
    remarks with the first only (the module's docstring says why). A rating of a tool step
    rates the tool: its component is the step's (feedback.traces.steps.step_component). A
    rating of the session `turn` begins (`session`) rates no one response: no rated turn."""
    scored = {key: scores[key] for key in feedback_keys(scores)}
    if session:
        rated = Rated(
            turn=turn, rated_turn=None, component=turn.component_name, step_id=SESSION_STEP
        )
    else:
        rated = Rated(
            turn=turn,
            rated_turn=rated_of(turn, step),
            component=turn.component_name if step is None else step_component(step, turn),
            step_id="" if step is None else step.step_id,
        )
    return [
        _feedback(
            rated,
            f"{rating_id}{FEEDBACK_ID_SEPARATOR}{key}",
            key,
            score,
            remarks if i == 0 else None,
        )
        for i, (key, score) in enumerate(scored.items())
    ]


@dataclass(frozen=True)
class Rated:
    """What a rating's feedback is about: its turn, one step of it, or the session it begins
    (no rated turn)."""

    turn: Turn
    rated_turn: RatedTurn | None
    component: str
    step_id: str


def _feedback(
    rated: Rated,
    feedback_id: str,
    key: str,
    score: float,
    remarks: Remarks | None,
) -> Feedback:
    remarks = remarks or Remarks()
    if remarks.correction:
        polarity = FeedbackPolarity.CORRECTIVE
    elif score > 0:
        polarity = FeedbackPolarity.POSITIVE
    elif score < 0:
        polarity = FeedbackPolarity.NEGATIVE
    else:
        polarity = FeedbackPolarity.NEUTRAL
    fields: dict[str, Any] = {
        "feedback_id": feedback_id,
        "correlation_id": rated.turn.correlation_id,
        "session_id": rated.turn.session_id,
        "component_name": rated.component,
        "step_id": rated.step_id,
        "rated_turn": rated.rated_turn,
        "polarity": polarity,
        "score": score,
        "comment": remarks.comment,
        "correction": remarks.correction,
        "correction_span": remarks.correction_span,
    }
    if key in DIMENSIONS:
        fields["dimension"] = key
    try:
        return Feedback.model_validate(fields)
    except ValidationError as exc:  # a correction_span outside the response
        raise invalid_from(exc) from None
