"""One turn and its rating form, as the rate page and the queue show them: the turn, the
ratings this person may see, the lease's countdown, and the form read as the API reads a body.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from core.web import show_learn_error, when
from feedback.forms import POLARITY_HELP, RATING_LOCS, RatingForm
from feedback.lease_notes import LEASE_WARNING_SECONDS, not_needed
from feedback.pages.guidelines import guidelines_context
from feedback.pages.sessions import session_transcript
from feedback.pages.steps import step_rows
from feedback.selectors.turns import turn_ratings
from feedback.selectors.visibility import still_blind
from feedback.sessions import SESSION_STEP
from learnportal_protocol import Feedback
from learnportal_protocol.wire import invalid_from

if TYPE_CHECKING:
    from core.accounts.principals import Principal
    from feedback import models
    from feedback.models import Turn
    from feedback.pages.rubric_form import RubricForm
    from learnportal_protocol.errors import LearnError


def show_refusal(form: RatingForm, error: LearnError, turn: Turn) -> None:
    """A refusal next to the fields it names; the rule that the turn needs no rating from this
    person (feedback.raters) in a sentence of its own."""
    said = not_needed(error, turn.correlation_id)
    if said is None:
        show_learn_error(form, error, RATING_LOCS)
    else:
        form.add_error(None, said)


def feedback_of_form(turn: Turn, form: RatingForm, *, session: bool = False) -> Feedback:
    """The protocol's Feedback for this form, read as the API reads a body (JSON): its own
    rules, and only they, refuse it as `invalid`. A field left empty is left out. `session`:
    it rates the session `turn` begins (feedback.sessions), which has no rated turn."""
    data = form.cleaned_data
    rated = {
        "prompt": turn.prompt,
        "response": turn.response,
        "model": turn.model,
        "environment": turn.environment_value(),
        "version": turn.version,
    }
    sent: dict[str, Any] = {
        "feedback_id": data["feedback_id"],
        "correlation_id": turn.correlation_id,
        "session_id": turn.session_id,
        "component_name": turn.component_name,
        "step_id": SESSION_STEP if session else None,
        "rated_turn": None if session else rated,
        "polarity": data["polarity"] or None,
        "score": data["score"],
        "dimension": data["dimension"],
        "confidence": data["confidence"],
        "comment": data["comment"],
        "correction": data["correction"],
        "correction_span": form.span(),
    }
    try:
        return Feedback.model_validate_json(
            json.dumps({key: value for key, value in sent.items() if value is not None})
        )
    except ValidationError as exc:
        raise invalid_from(exc) from None


def excerpt(turn: Turn, rating: models.Feedback) -> str:
    """The part of the response a rating's correction is tied to, if it names a span."""
    if rating.span_start is None or rating.span_end is None:
        return ""
    return turn.response[rating.span_start : rating.span_end]


def environment_text(turn: Turn) -> str:
    """The turn's context, indented for reading ("" when it has none)."""
    value = turn.environment_value()
    return "" if value is None else json.dumps(value, indent=2, ensure_ascii=False)


def turn_context(
    turn: Turn,
    principal: Principal,
    form: RatingForm,
    rubric: RubricForm | None = None,
    *,
    session: bool = False,
) -> dict[str, Any]:
    """What the partials of one turn and its rating form need (templates/feedback/partials/):
    the form of the project's own rubric when it has one (for the whole turn, one of its
    steps or, `session`, the session it begins), else the five-dimension form, the turn's
    steps (or its session's turns), and the project's guidelines beside them."""
    ratings = turn_ratings(turn, viewer=principal)
    if session:
        ratings = [rating for rating in ratings if rating.step_id == SESSION_STEP]
    return {
        **(session_transcript(principal, turn.session_id) if session else {}),
        "rated_session": session,
        "turn": turn,
        "steps": step_rows(turn, rubric.step_kinds if rubric is not None else frozenset()),
        "rated_step": rubric.step if rubric is not None else None,
        "environment": environment_text(turn),
        "form": form,
        "rubric": rubric,
        "ratings": [(rating, excerpt(turn, rating)) for rating in ratings],
        "blind": still_blind(ratings, principal),
        "polarity_help": {p.value: text for p, text in POLARITY_HELP.items()},
        **guidelines_context(principal, rubric),
    }


def lease_clock(expires: float | None, now: float) -> dict[str, Any]:
    """The countdown of this person's lease on the turn they rate (rate.js), if they hold one."""
    if expires is None:
        return {"lease_remaining": None}
    return {
        "lease_remaining": max(0.0, expires - now),
        "lease_expires": when(expires),
        "lease_warning": LEASE_WARNING_SECONDS,
    }
