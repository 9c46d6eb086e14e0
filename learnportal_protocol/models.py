"""The data models of the learning capability spec (docs/learning-capability-spec.txt), with the host's documented
additions (docs/extensions.md)."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    Strict,
    StrictInt,
    StringConstraints,
    model_validator,
)

from learnportal_protocol.fielderror import FieldError
from learnportal_protocol.freejson import storable_json
from learnportal_protocol.ids import new_experience_id, new_feedback_id, now

INT64 = 2**63 - 1
# Every text the host stores is refused the NUL character (PostgreSQL cannot store it, and
# SQLite must not keep what PostgreSQL refuses); names and ids also refuse control characters,
# since they become component names, paths and log lines. The messages are in wire.PATTERNS.
NO_NUL = r"^[^\x00]*$"
NO_CONTROL = r"^[^\x00-\x1f\x7f]*$"
NOT_BLANK = r"^[^\x00]*[^\x00\s][^\x00]*$"  # a text that must say something, NUL refused too
NAME_LENGTH = 200  # the columns that hold ids, names and component names

Text = Annotated[str, StringConstraints(pattern=NO_NUL)]
RequiredText = Annotated[str, StringConstraints(pattern=NOT_BLANK)]
Name = Annotated[str, StringConstraints(max_length=NAME_LENGTH, pattern=NO_CONTROL)]
RequiredName = Annotated[
    str, StringConstraints(min_length=1, max_length=NAME_LENGTH, pattern=NO_CONTROL)
]
# Free JSON (state, next_state, action.input, environment): any JSON the database can keep
# exactly, so no NUL, no integer wider than 64 bits, no overflowing number.
FreeJson = Annotated[Any, AfterValidator(storable_json)]
FreeJsonObject = Annotated[dict[str, Any], AfterValidator(storable_json)]
SHORT_LENGTH = 64  # the host's own ids (plan, proposal, refinement) and words (scope, strategy)
ShortName = Annotated[str, StringConstraints(max_length=SHORT_LENGTH, pattern=NO_CONTROL)]
RequiredShortName = Annotated[
    str, StringConstraints(min_length=1, max_length=SHORT_LENGTH, pattern=NO_CONTROL)
]
USERNAME_LENGTH = 150  # Django's username and token name columns
Username = Annotated[str, StringConstraints(max_length=USERNAME_LENGTH, pattern=NO_CONTROL)]


class StrictModel(BaseModel):
    """Strict JSON: numbers are numbers, no NaN or Infinity, no unknown fields."""

    model_config = ConfigDict(
        strict=True, extra="forbid", allow_inf_nan=False, validate_default=False
    )


class Answer(BaseModel):
    """What the host answers beside the envelopes (the REST answers): the host builds it from
    its own stored values, so it reads them laxly (a stored "low" is a RiskLevel), and it has
    no field beyond its model's, as its schema says."""

    model_config = ConfigDict(extra="forbid")


class RiskLevel(StrEnum):
    """How much a change could hurt, in this order: a review's risk (low, medium, high), and the
    most a machine may apply by itself (`none`: nothing). Compared by that order."""

    NONE = "none"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"

    @property
    def rank(self) -> int:
        return list(RiskLevel).index(self)

    def __lt__(self, other: str) -> bool:
        return self.rank < RiskLevel(other).rank

    def __le__(self, other: str) -> bool:
        return self.rank <= RiskLevel(other).rank

    def __gt__(self, other: str) -> bool:
        return self.rank > RiskLevel(other).rank

    def __ge__(self, other: str) -> bool:
        return self.rank >= RiskLevel(other).rank


class FeedbackPolarity(StrEnum):
    POSITIVE = "positive"
    NEGATIVE = "negative"
    NEUTRAL = "neutral"
    CORRECTIVE = "corrective"


class FeedbackDimension(StrEnum):
    CORRECTNESS = "correctness"
    HELPFULNESS = "helpfulness"
    SAFETY = "safety"
    TONE = "tone"
    PLAN_QUALITY = "plan_quality"


class FeedbackSource(StrEnum):
    HUMAN = "human"
    ENV = "env"
    SELF = "self"


# Requests are read from JSON once, by protocol.wire, and validated as the Python values that
# read gives. Strict mode takes an enum's value or a tuple as a JSON string or array, but from
# Python only as a member or a tuple: these fields take the JSON forms, and nothing else (the
# value must still be one of the enum's; the span's items stay strict integers).
Polarity = Annotated[FeedbackPolarity, Strict(False)]
Dimension = Annotated[FeedbackDimension, Strict(False)]
Source = Annotated[FeedbackSource, Strict(False)]
Span = Annotated[tuple[StrictInt, StrictInt], Strict(False)]

Score = Annotated[float, Field(ge=-1.0, le=1.0)]
Unit = Annotated[float, Field(ge=0.0, le=1.0)]
# Epoch seconds the host takes, wherever a time is given (a feedback's or experience's `ts`, an
# envelope's, a filter's since and until): 1970 to the last second of year 9999, what Python's
# datetime holds, so that every page can show any time stored (both databases hold more).
TIMESTAMP_MIN, TIMESTAMP_MAX = 0.0, 253_402_300_799.0
Timestamp = Annotated[float, Field(ge=TIMESTAMP_MIN, le=TIMESTAMP_MAX)]


class RatedTurn(StrictModel):
    prompt: Text
    response: Text
    model: Name  # a component name when the feedback names none
    environment: FreeJson = None
    version: Name | None = None


class Feedback(StrictModel):
    feedback_id: RequiredName = Field(default_factory=new_feedback_id)
    correlation_id: Name = ""
    session_id: Name = ""
    rated_turn: RatedTurn | None = None
    polarity: Polarity
    score: Score = 0.0
    dimension: Dimension = FeedbackDimension.HELPFULNESS
    confidence: Unit = 1.0
    comment: Text = ""
    correction: Text = ""
    correction_span: Span | None = None
    source: Source = FeedbackSource.HUMAN
    annotator_id: Username = ""
    ts: Timestamp = Field(default_factory=now)
    # Host additions (docs/contract.md): the component this feedback rates, and the step of
    # the turn (its span id) when it rates one step rather than the whole turn.
    component_name: Name = ""
    step_id: Name = ""

    @model_validator(mode="after")
    def _check_correction(self) -> Feedback:
        if self.polarity is FeedbackPolarity.CORRECTIVE and not self.correction.strip():
            raise FieldError("correction", "corrective feedback must include a correction")
        if self.step_id and not self.correlation_id:
            raise FieldError("step_id", "step_id needs the correlation_id of the step's turn")
        if self.correction_span is not None:
            start, end = self.correction_span
            if start < 0 or end < start:
                raise FieldError(
                    "correction_span", "correction_span must be [start, end] with 0 <= start <= end"
                )
            if self.rated_turn is None:
                raise FieldError(
                    "correction_span",
                    "correction_span needs the rated_turn whose response it spans",
                )
            if end > len(self.rated_turn.response):
                raise FieldError(
                    "correction_span",
                    f"correction_span [{start}, {end}] is outside the response "
                    f"({len(self.rated_turn.response)} characters)",
                )
        return self

    def to_preference_pair(self) -> dict[str, Any] | None:
        if (
            self.polarity is not FeedbackPolarity.CORRECTIVE
            or self.rated_turn is None
            or not self.correction
        ):
            return None
        return {
            "prompt": self.rated_turn.prompt,
            "chosen": self.correction,
            "rejected": self.rated_turn.response,
            "dimension": self.dimension.value,
            "model_version": self.rated_turn.version,
            "confidence": self.confidence,
        }

    def to_reward_sample(self) -> dict[str, Any] | None:
        if self.rated_turn is None:
            return None
        return {
            "prompt": self.rated_turn.prompt,
            "response": self.rated_turn.response,
            "score": self.score,
            "dimension": self.dimension.value,
            "weight": self.confidence,
            "source": self.source.value,
        }


class Action(StrictModel):
    """`{component_name, input}` plus the host's `duration_ms`, `success` and `action_prob`.

    A runtime's own keys go in `input`, which is free JSON.
    """

    component_name: Name = ""
    input: FreeJson = None
    duration_ms: Annotated[float, Field(ge=0.0)] | None = None
    success: bool | None = None
    action_prob: Annotated[float, Field(gt=0.0, le=1.0)] | None = None


class Experience(StrictModel):
    experience_id: RequiredName = Field(default_factory=new_experience_id)
    state: FreeJsonObject = Field(default_factory=dict)
    action: Action = Field(default_factory=Action)
    reward: float = 0.0
    next_state: FreeJsonObject = Field(default_factory=dict)
    done: bool = False
    episode_id: Name = ""
    step: Annotated[int, Field(ge=-INT64, le=INT64)] = 0
    ts: Timestamp = Field(default_factory=now)


class ComponentPerformanceRecord(StrictModel):
    component_name: str
    calls_total: int = 0
    calls_success: int = 0
    calls_failed: int = 0
    avg_duration_ms: float = 0.0
    avg_score: float = 0.0
    last_called: float = 0.0
    p95_duration_ms: float = 0.0
