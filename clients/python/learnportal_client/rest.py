"""What the REST side that agents use answers (`/api/routing/`, `/api/turns/`, step runs, and
`/api/feedback/`, where an agent reads the feedback it sent), and what a team's side answers
(`/api/projects/`, their members and rubrics, and `/api/ratings/`).

These are the host's REST answers (`refinement.answers`, `feedback.answers`, which live in the
server's Django apps) read leniently: a field the host adds later is ignored, so an older
client keeps working. The learn/* models are not copied here: they are `learnportal_protocol`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from learnportal_protocol.models import (
    FeedbackDimension,
    FeedbackPolarity,
    FeedbackSource,
    Name,
    RatedTurn,
    RequiredName,
    StrictModel,
)


class Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class StoredComparison(Lenient):
    id: int
    comparison_id: str
    candidates: list[str]


class ComparisonsCreated(Lenient):
    """`POST /api/comparisons/`: each comparison sent, with its candidates' ids."""

    received: int
    created: int
    comparisons: list[StoredComparison]


class LeaderboardEntry(Lenient):
    name: str
    strength: float
    interval: tuple[float, float]
    wins: int
    losses: int
    ties: int
    judgments: int


class Leaderboard(Lenient):
    """`GET /api/leaderboard/`: Bradley-Terry strengths from judged comparisons."""

    by: str
    entries: list[LeaderboardEntry]
    position_bias: float | None
    pairs: int


class Routing(Lenient):
    """`GET /api/routing/`: each component's weight relative to the most favoured (1.0)."""

    weights: dict[str, float]
    updated: float


class TurnsCreated(Lenient):
    received: int
    created: int


class Turn(Lenient):
    id: int
    correlation_id: str
    session_id: str
    component_name: str
    prompt: str
    response: str
    model: str
    version: str | None = None
    created: float


class ShownStep(Lenient):
    """One step of a turn's run as the host answers it (`Step`, every field filled in)."""

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


class TurnDetail(Turn):
    """`GET /api/turns/<id>/`: a turn with its steps, the earliest begun first."""

    steps: list[ShownStep]


class TurnPage(Lenient):
    next: str | None = None
    previous: str | None = None
    results: list[Turn]


class RunOutcome(Lenient):
    """A reported step run: the step after it, and the plan its edits were filed as, or why not."""

    step: dict[str, Any]
    plan_id: str = ""
    proposals: list[dict[str, Any]] = Field(default_factory=list)
    reason: str = ""


class ListedFeedback(Lenient):
    """A stored feedback as `GET /api/feedback/` lists it, with the component it rates."""

    feedback_id: str
    correlation_id: str = ""
    session_id: str = ""
    component_name: str = ""
    rated_turn: dict[str, Any] | None = None
    polarity: FeedbackPolarity
    score: float
    dimension: FeedbackDimension
    confidence: float
    comment: str = ""
    correction: str = ""
    correction_span: tuple[int, int] | None = None
    source: FeedbackSource
    annotator_id: str = ""
    ts: float


class RatingUnderReview(Lenient):
    """A person's rating held for review: its name (the first row's feedback_id), its rows and,
    for a rubric's rating, every answer."""

    feedback_id: str
    annotator: str
    feedbacks: list[ListedFeedback]
    answers: dict[str, Any] | None = None


class ReviewLeased(Lenient):
    """`POST /api/reviews/next/`: the rating the reviewer holds until `lease_expires`."""

    rating: RatingUnderReview
    lease_expires: float


class ReviewCreated(Lenient):
    """`POST /api/reviews/`: the decision, the rating's rows, and for an amendment the
    reviewer's rating in its place."""

    review_id: str
    decision: Literal["accepted", "rejected", "amended"]
    feedback_ids: list[str]
    amendment: str | None = None


class StoredReview(Lenient):
    review_id: str
    feedback_id: str
    annotator: str
    reviewer: str
    decision: Literal["accepted", "rejected", "amended"]
    reason: str = ""
    ts: float
    amendment: str | None = None


class ReviewPage(Lenient):
    """A page of `GET /api/reviews/`, newest first; `next` is the following page's cursor."""

    results: list[StoredReview]
    next: str | None = None


class FeedbackPage(Lenient):
    """A page of `GET /api/feedback/`, newest first; `next` is the following page's URL."""

    results: list[ListedFeedback]
    next: str | None = None


class Step(StrictModel):
    """One step of a turn's run (a span of its trace), sent with the turn: the host keeps each
    step id once a turn and checks the tree's bounds (docs/contract.md, "Traces")."""

    step_id: RequiredName
    parent_id: Name = ""
    name: RequiredName
    kind: Literal["llm", "tool", "retrieval", "agent", "chain", "other"] = "other"
    input: str = ""
    output: str = ""
    start: float | None = None
    end: float | None = None
    status: Literal["ok", "error"] = "ok"
    error: str = ""
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost: float | None = None
    attributes: dict[str, Any] = Field(default_factory=dict)


class QueuedTurn(StrictModel):
    """One turn for the annotators' queue (`POST /api/turns/`), deduplicated by correlation_id."""

    correlation_id: RequiredName
    session_id: Name = ""
    component_name: Name = ""
    rated_turn: RatedTurn
    steps: list[Step] = Field(default_factory=list)


class Project(Lenient):
    """A project's settings; empty `ratings_per_turn`/`lease_seconds`: the portal's."""

    slug: str
    name: str
    ratings_per_turn: int | None = None
    lease_seconds: int | None = None
    blind: bool = True
    priority_negative: int = 2
    priority_unsure: int = 1
    guidelines: str = ""
    guidelines_ack_required: bool = False
    comparisons_as_evidence: bool = False
    compare_turns: bool = False
    gold_rate: float = 0.0
    gold_min_items: int = 10
    gold_pause_below: float = 0.0
    judges_weighed: bool = False


class ProjectList(Lenient):
    results: list[Project]


class Member(Lenient):
    username: str
    role: str
    invited: bool = False  # invited and not yet signed in


class Invitation(Member):
    """A new person's account and the one-time link where they choose a password (`url`,
    good until `expires`, epoch seconds): give it to them; it is not shown again."""

    url: str
    expires: float


class MemberList(Lenient):
    results: list[Member]


class Rubric(Lenient):
    """A project's rubric: its questions as the host answers them (a kind's own fields
    included), and the key of its preference question (empty: none)."""

    version: int
    questions: list[dict[str, Any]]
    preference: str = ""


class RatingCreated(Lenient):
    rating_id: str
    rubric_version: int


class StoredGoldComparison(Lenient):
    """A gold comparison: its known best candidate."""

    comparison: int
    comparison_id: str
    best: str
    by: str
    ts: float


class StoredGold(Lenient):
    """A gold item: a turn with known answers to some of the rubric's questions."""

    turn: int
    correlation_id: str
    answers: dict[str, Any]
    rubric_version: int
    by: str
    ts: float
    rated: int = 0


class GoldPage(Lenient):
    results: list[StoredGold]
    next: str | None = None


class GoldPause(Lenient):
    accuracy: float
    items: int
    threshold: float
    ts: float


class PersonGold(Lenient):
    """A person's accuracy on gold items (with its 95% interval), and their queue's pause."""

    annotator: str
    items: int
    compared: int
    matched: int
    accuracy: float | None = None
    interval: tuple[float, float] | None = None
    paused: GoldPause | None = None


class GoldPeople(Lenient):
    results: list[PersonGold]


class IntakeRule(Lenient):
    """A rule of which turns the project's queue takes, with the turns it let in."""

    id: int
    name: str
    enabled: bool = True
    component: str = ""
    source: str = ""
    polarity: str = ""
    score_min: float | None = None
    score_max: float | None = None
    confidence_below: float | None = None
    judge_agreement_below: float | None = None
    metadata_key: str = ""
    rate: float
    priority: int = 0
    sent: int = 0
    sent_last_day: int = 0


class IntakeRules(Lenient):
    results: list[IntakeRule]


class QueueAssignment(Lenient):
    """A part of the project's queue (a component's turns; "" the whole queue) kept for named
    people."""

    id: int
    component: str = ""
    rule: int | None = None
    usernames: list[str] = Field(default_factory=list)
    by: str = ""
    created: float = 0.0


class QueueAssignments(Lenient):
    results: list[QueueAssignment]


class Figure(Lenient):
    value: float | None = None
    interval: tuple[float, float] | None = None


class JudgeFigures(Lenient):
    """A machine judge against people on one question, over the items both rated."""

    judge: str
    question: str
    items: int
    alpha: float | None = None
    kappa: Figure
    mae: Figure
    spearman: Figure
    confusion: dict[str, dict[str, int]] = Field(default_factory=dict)
    weight: float | None = None


class Judges(Lenient):
    results: list[JudgeFigures]


class MarkedJudge(Lenient):
    """A person of the project marked as a judge."""

    username: str
    judge: str = ""
    by: str = ""
    ts: float = 0.0


class MarkedJudges(Lenient):
    results: list[MarkedJudge]


class PersonGoldFigures(Lenient):
    items: int = 0
    compared: int = 0
    matched: int = 0
    accuracy: float | None = None
    interval: tuple[float, float] | None = None


class PersonReviews(Lenient):
    accepted: int = 0
    rejected: int = 0
    amended: int = 0


class PersonInsight(Lenient):
    """One person's work over a period: items rated, seconds an item (median, 90th
    percentile), skips, gold accuracy, reviewers' decisions, and the people's alpha without
    them beside everyone's."""

    username: str
    items: int
    timed: int = 0
    seconds_median: float | None = None
    seconds_p90: float | None = None
    skips: int = 0
    gold: PersonGoldFigures = Field(default_factory=PersonGoldFigures)
    reviews: PersonReviews = Field(default_factory=PersonReviews)
    acceptance: float | None = None
    alpha_without: float | None = None
    alpha_all: float | None = None


class Annotators(Lenient):
    """`GET /api/annotators/`: everyone's rows for reviewers and managers, an annotator's own."""

    since: float
    until: float
    results: list[PersonInsight]
