"""What feedback answers over REST, each answer one pydantic model: built by the services and
the views' pagination, returned as `model_dump(mode="json")`, and the OpenAPI document's schema."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Self

from pydantic import ConfigDict, Field, RootModel

from feedback.comparisons.answers import QueueLeasedComparison
from feedback.rubrics.questions import Question
from feedback.traces.steps import SESSION_STEP
from learnportal_protocol import Feedback as FeedbackItem
from learnportal_protocol import RatedTurn
from learnportal_protocol.models import Answer, FeedbackDimension

if TYPE_CHECKING:
    from feedback.models import Turn as TurnRow
    from feedback.models import TurnStep
    from feedback.services.rubrics import StoredRubric


class TurnsCreated(Answer):
    received: int = Field(description="turns in the request")
    created: int = Field(description="turns new to the queue (a known correlation_id is skipped)")


class Turn(Answer):
    """A queued agent turn, as the queue lists it."""

    model_config = ConfigDict(from_attributes=True)

    id: int
    correlation_id: str
    session_id: str
    component_name: str
    prompt: str
    response: str
    model: str
    version: str | None
    created: float


class StepAnswer(Answer):
    """One step of a turn's run, as it was sent (feedback.traces.steps.Step)."""

    step_id: str
    parent_id: str
    name: str
    kind: str
    input: str
    output: str
    start: float | None
    end: float | None
    status: str
    error: str
    tokens_in: int | None
    tokens_out: int | None
    cost: float | None
    attributes: dict[str, Any]

    @classmethod
    def of(cls, step: TurnStep) -> Self:
        fields = {name: getattr(step, name) for name in cls.model_fields if name != "attributes"}
        return cls(**fields, attributes=step.attributes_value())


class TurnDetail(Turn):
    """A turn with its run: its steps, the earliest first."""

    steps: list[StepAnswer]

    @classmethod
    def of(cls, turn: TurnRow, steps: list[TurnStep]) -> Self:
        shown = Turn.model_validate(turn).model_dump()
        return cls(**shown, steps=[StepAnswer.of(step) for step in steps])


class TurnPage(Answer):
    next: str | None = Field(description="the next page, or null")
    previous: str | None = Field(description="the page before, or null")
    results: list[Turn]


class QueueRatedTurn(Answer):
    """The turn to rate, as the protocol's RatedTurn."""

    prompt: str
    response: str
    model: str
    environment: Any = Field(default=None, description="free JSON, as the agent sent it")
    version: str | None = None


class QueueTurn(Answer):
    id: int
    correlation_id: str
    session_id: str
    component_name: str
    rated_turn: QueueRatedTurn

    @classmethod
    def of(cls, turn: TurnRow) -> QueueTurn:
        environment = turn.environment_value()
        return cls(
            id=turn.pk,
            correlation_id=turn.correlation_id,
            session_id=turn.session_id,
            component_name=turn.component_name,
            rated_turn=QueueRatedTurn(
                prompt=turn.prompt,
                response=turn.response,
                model=turn.model,
                environment=environment,
                version=turn.version,
            ),
        )


class QueueLeased(Answer):
    """A turn leased to the caller, theirs alone to rate until `lease_expires`."""

    turn: QueueTurn
    lease_expires: float = Field(description="epoch seconds; after it the turn may go to another")

    @classmethod
    def of(cls, turn: TurnRow, expires: float) -> QueueLeased:
        return cls(turn=QueueTurn.of(turn), lease_expires=expires)


class QueueLeasedStep(QueueLeased):
    """One step of a turn leased to the caller (asked for with `?steps=`), to rate as its
    `step_id`."""

    step: StepAnswer

    @classmethod
    def of_step(cls, turn: TurnRow, expires: float, step: TurnStep) -> QueueLeasedStep:
        return cls(turn=QueueTurn.of(turn), lease_expires=expires, step=StepAnswer.of(step))


class QueueSession(Answer):
    """A session leased whole: rated as `step_id` of the turn that begins it (`turn`)."""

    session_id: str
    step_id: str = Field(description="what a rating of the session names: always `@session`")
    turns: int = Field(description="how many turns it has")


class QueueLeasedSession(QueueLeased):
    """A session leased to the caller (asked for with `?sessions=true`), through the turn that
    begins it, to rate whole as its `step_id`."""

    session: QueueSession

    @classmethod
    def of_session(cls, turn: TurnRow, expires: float, turns: int) -> QueueLeasedSession:
        session = QueueSession(session_id=turn.session_id, step_id=SESSION_STEP, turns=turns)
        return cls(turn=QueueTurn.of(turn), lease_expires=expires, session=session)


class QueueLease(
    RootModel[QueueLeased | QueueLeasedStep | QueueLeasedSession | QueueLeasedComparison]
):
    """A turn's lease, a step's, a session's, or a comparison's (`?kind=comparison`)."""


class QueueUndone(Answer):
    """A rating undone: the turn it rated, leased back to the caller to rate again."""

    turn: QueueTurn
    lease_expires: float | None = Field(
        description="epoch seconds; null when the caller still has another rating of this turn "
        "that counts, so it is not leased back"
    )


class StoredRatedTurn(RatedTurn):
    """The spec's RatedTurn as the host answers it (its schema: every field present)."""


class StoredFeedback(FeedbackItem):
    """The spec's Feedback as stored, with the host's `component_name` (docs/contract.md):
    what the explorer lists, built from a row by feedback.exports.as_items."""

    rated_turn: StoredRatedTurn | None = None


class FeedbackPage(Answer):
    """A page of the explorer, newest first (docs/contract.md, "Explorer")."""

    results: list[StoredFeedback]
    next: str | None = Field(description="the next page (same filters and limit), or null")


class Choices(Answer):
    """Values a filter may take that start with what was typed: a typeahead's suggestions."""

    values: list[str]


class DimensionAgreement(Answer):
    dimension: FeedbackDimension
    alpha: float | None = Field(
        description="Krippendorff's alpha, interval metric, over the human scores of the turns "
        "below; null with fewer than two such turns (or no variation at all among their scores)"
    )
    turns: int = Field(description="turns with human scores from at least two people")
    ratings: int = Field(description="the human scores on those turns, one per person")


class QuestionAgreement(Answer):
    key: str
    kind: str
    level: Literal["nominal", "ordinal", "interval"] = Field(
        description="the level of measurement alpha is computed at"
    )
    alpha: float | None = Field(
        description="Krippendorff's alpha over the answers of the turns below; null with fewer "
        "than two such turns (or no variation at all among their answers)"
    )
    units: int = Field(description="turns this question was answered on by at least two people")
    ratings: int = Field(description="the answers on those turns, one per person")


class Agreement(Answer):
    """How much annotators agree, per dimension (every dimension, in the protocol's order),
    and per question of the project's rubric but text questions (in the rubric's order)."""

    dimensions: list[DimensionAgreement]
    questions: list[QuestionAgreement] = Field(
        default_factory=list, description="over the ratings given through /api/ratings/"
    )
    comparisons: list[QuestionAgreement] = Field(
        default_factory=list,
        description="over the judgments of comparisons: `preference` (ordinal, of two, in the "
        "order sent) and `winner` (nominal)",
    )


class RubricAnswer(Answer):
    """A project's rubric as it rates now (docs/contract.md, "Rubric")."""

    version: int = Field(description="1 for the default rubric; each PUT makes the next")
    questions: list[Question]
    preference: str = Field(
        description="the key of the question the exports that take one line a rating label it "
        "by (kto); empty: the feedback's score"
    )

    @classmethod
    def of(cls, stored: StoredRubric) -> RubricAnswer:
        rubric = stored.rubric
        return cls(version=stored.version, questions=rubric.questions, preference=rubric.preference)


class RatingCreated(Answer):
    rating_id: str
    rubric_version: int = Field(description="the version of the rubric the answers were given on")
