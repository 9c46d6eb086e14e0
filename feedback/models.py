"""What agents and people send: turns to rate, feedback on them, and experience tuples.

Times are epoch seconds (floats), as on the wire. JSON payloads that nothing queries are kept
as text, written straight by the bulk insert path.
"""

from __future__ import annotations

from typing import Any

import orjson
from django.conf import settings
from django.db import models

from core.projects.selection import default_project_pk
from feedback.traces.steps import rated_part


def ratings_per_turn() -> int:
    """A new turn's ratings still needed: all of them."""
    return int(settings.LEARNPORTAL_RATINGS_PER_TURN)


def project_of(row: Turn | Feedback | Experience) -> int:
    """The project id of a stored turn or feedback (every one has one: the `default` project's
    unless its credential's project is another)."""
    if row.project_id is None:
        raise ValueError(f"{type(row).__name__} {row.pk} is in no project")
    return row.project_id


class Turn(models.Model):
    """An agent turn in the annotators' queue of its project."""

    # The project of the credential that sent it (core.projects.selection), never the body's.
    project = models.ForeignKey(
        "projects.Project", on_delete=models.PROTECT, related_name="+", default=default_project_pk
    )
    # Unique by a constraint, not `unique=True`: on PostgreSQL that also builds a second
    # (varchar_pattern_ops) index for LIKE, which no query uses and every ingest writes.
    correlation_id = models.CharField(max_length=200)
    # session_id and component_name are indexed with the turn list's order, id (Meta).
    session_id = models.CharField(max_length=200, blank=True)
    component_name = models.CharField(max_length=200, blank=True)
    prompt = models.TextField()
    response = models.TextField()
    model = models.CharField(max_length=200)
    environment = models.TextField(null=True, blank=True, help_text="JSON")
    version = models.CharField(max_length=200, null=True, blank=True)
    submitted_by = models.CharField(max_length=160)
    # No index: every list of turns is ordered by id, which arrival assigns in this order too.
    created = models.FloatField()
    # What the queue reads, kept up to date by the feedback service (feedback.queue_state):
    # human ratings from distinct people still needed, and how urgent the turn is.
    ratings_needed = models.IntegerField(default=ratings_per_turn)
    priority = models.IntegerField(default=0)
    # Let into the queue (feedback.intake): every turn of a project with no intake rules, else
    # one a rule admitted, whose priority then adds to the turn's own.
    admitted = models.BooleanField(default=True, db_default=True)
    admitted_priority = models.SmallIntegerField(default=0, db_default=0)

    class Meta:
        # A project's ids are its own: another project may use the same (feedback likewise).
        constraints = [
            models.UniqueConstraint(fields=["project", "correlation_id"], name="turn_once")
        ]
        indexes = [
            # The queue's scan: a project's open turns, most urgent first, oldest first.
            models.Index(
                "project",
                models.F("priority").desc(),
                "id",
                name="turn_queue_open",
                condition=models.Q(ratings_needed__gt=0, admitted=True),
            ),
            # The turn list and GET /api/turns/, newest queued first (id), keyset-paginated:
            # the primary key for the order alone, one (field, id) a filter, and the open
            # turns' own. The (field, id) ones also serve a lookup of the field alone.
            models.Index(fields=["component_name", "id"], name="turn_component_newest"),
            models.Index(fields=["session_id", "id"], name="turn_session_newest"),
            models.Index(
                fields=["id"], name="turn_open_newest", condition=models.Q(ratings_needed__gt=0)
            ),
        ]

    def __str__(self) -> str:
        return self.correlation_id

    def environment_value(self) -> Any:
        """The turn's context as the agent sent it: a JSON value, or None for none (or for
        text an older host stored that is not JSON)."""
        try:
            return None if self.environment is None else orjson.loads(self.environment)
        except orjson.JSONDecodeError:
            return None


class TurnStep(models.Model):
    """One step of a turn's run (a span of its trace): a call of a model or a tool, a retrieval,
    a sub-agent, in a tree by `parent_id` (feedback.traces)."""

    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="steps")
    step_id = models.CharField(max_length=200)
    parent_id = models.CharField(max_length=200, blank=True)
    name = models.CharField(max_length=200)
    kind = models.CharField(max_length=16)
    input = models.TextField(blank=True)
    output = models.TextField(blank=True)
    start = models.FloatField(null=True)
    end = models.FloatField(null=True)
    status = models.CharField(max_length=8)
    error = models.TextField(blank=True)
    tokens_in = models.BigIntegerField(null=True)
    tokens_out = models.BigIntegerField(null=True)
    cost = models.FloatField(null=True)
    attributes = models.TextField(help_text="JSON object")

    class Meta:
        # A turn's steps are read together: the constraint's index begins with the turn.
        constraints = [models.UniqueConstraint(fields=["turn", "step_id"], name="turn_step_once")]

    def __str__(self) -> str:
        return self.step_id

    def attributes_value(self) -> dict[str, Any]:
        """The step's attributes as sent; {} for text that is not a JSON object."""
        try:
            value = orjson.loads(self.attributes)
        except orjson.JSONDecodeError:
            return {}
        return value if isinstance(value, dict) else {}


class Feedback(models.Model):
    # The project of the credential that sent it (core.projects.selection), never the body's;
    # a feedback rates the turn of its project that has its correlation_id.
    project = models.ForeignKey(
        "projects.Project", on_delete=models.PROTECT, related_name="+", default=default_project_pk
    )
    # The explorer's filters are each served by an index (field, ts, id): see Meta.
    # Unique by a constraint, not `unique=True`: on PostgreSQL that also builds a second
    # (varchar_pattern_ops) index for LIKE, which no query uses and every ingest writes.
    feedback_id = models.CharField(max_length=200)
    correlation_id = models.CharField(max_length=200, blank=True)
    session_id = models.CharField(max_length=200, blank=True)
    component_name = models.CharField(max_length=200, blank=True)
    rated_turn = models.TextField(null=True, blank=True, help_text="JSON")
    polarity = models.CharField(max_length=16)
    score = models.FloatField()
    dimension = models.CharField(max_length=16)
    confidence = models.FloatField()
    comment = models.TextField(blank=True)
    correction = models.TextField(blank=True)
    span_start = models.IntegerField(null=True, blank=True)
    span_end = models.IntegerField(null=True, blank=True)
    source = models.CharField(max_length=8)
    annotator_id = models.CharField(max_length=150, blank=True)
    # The step of the turn this feedback rates (a TurnStep's step_id); "" for the whole turn.
    step_id = models.CharField(max_length=200, blank=True, default="")
    ts = models.FloatField()
    # Shown beside a rating, never filtered on: no index (each one is written by every ingest).
    submitted_by = models.CharField(max_length=160)
    content_hash = models.CharField(max_length=32)
    received = models.FloatField()

    class Meta:
        # The explorer lists newest first by (ts, id), keyset-paginated: one index for the
        # order alone, and one (field, ts, id) a filter, so that each filter with `since`,
        # `until` and a cursor is one range of one index. These also serve the lookups of a
        # field alone (a turn's ratings by correlation_id, a component's corrections), which
        # single-column indexes served before. `has_correction=true` has a partial index;
        # `false` (most feedback) reads the order's own.
        # Every list reads one project's: the project leads each of them.
        constraints = [
            models.UniqueConstraint(fields=["project", "feedback_id"], name="feedback_once")
        ]
        indexes = [
            models.Index(fields=["project", "ts", "id"], name="feedback_newest"),
            # A person's own ratings in a project by arrival: the queue's "rated today" (a
            # range) and its last rating, to undo (the newest, read off the end: by
            # (project, annotator_id) alone the page sorted all of a person's ratings, 146k
            # rows and 0.5 s in bench.projects).
            models.Index(
                fields=["project", "annotator_id", "received", "id"],
                name="feedback_annotator_received",
            ),
            *(
                models.Index(fields=["project", field, "ts", "id"], name=f"feedback_{short}_newest")
                for field, short in (
                    ("source", "source"),
                    ("polarity", "polarity"),
                    ("dimension", "dimension"),
                    ("component_name", "component"),
                    ("annotator_id", "annotator"),
                    ("correlation_id", "correlation"),
                )
            ),
            models.Index(
                fields=["project", "ts", "id"],
                name="feedback_corrected_newest",
                condition=~models.Q(correction=""),
            ),
        ]

    def __str__(self) -> str:
        return self.feedback_id

    @property
    def rated_part(self) -> str:
        """What of its turn this feedback rates, in words (feedback.traces.steps.rated_part)."""
        return rated_part(self.step_id)


class Retraction(models.Model):
    """A person's undo of their own rating: a new record beside it, the rating kept as it was.

    A retracted feedback no longer counts (feedback.selectors.visibility.counted_feedback)."""

    feedback = models.OneToOneField(Feedback, on_delete=models.CASCADE, related_name="retraction")
    by = models.CharField(max_length=150)
    created = models.FloatField()

    def __str__(self) -> str:
        return f"{self.feedback_id} retracted by {self.by}"


class AgreementUnit(models.Model):
    """One unit of agreement, a turn on a dimension: the moments of its counted human scores,
    one score a person (their latest), kept by the feedback service (feedback.moments) while
    there are two or more (a unit with one pairs with nothing)."""

    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    correlation_id = models.CharField(max_length=200)
    dimension = models.CharField(max_length=16)
    raters = models.IntegerField(default=0)
    total = models.FloatField(default=0.0)
    squares = models.FloatField(default=0.0)
    spread = models.FloatField(default=0.0, help_text="max - min of the scores")
    variance = models.FloatField(default=0.0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "correlation_id", "dimension"], name="agreement_unit_once"
            )
        ]
        indexes = [
            # "Where annotators disagree most": a project's widest units, read off the front.
            models.Index(
                "project",
                models.F("spread").desc(),
                models.F("variance").desc(),
                "id",
                name="agreement_unit_widest",
                condition=models.Q(spread__gt=0),
            )
        ]

    def __str__(self) -> str:
        return f"{self.correlation_id} on {self.dimension}"


class AgreementTotals(models.Model):
    """Per project and dimension, the sums over its units with two raters or more that alpha
    needs (feedback.agreement.alpha_interval_from_sums): kept with the units, so alpha reads one
    row."""

    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    dimension = models.CharField(max_length=16)
    units = models.BigIntegerField(default=0)
    values = models.BigIntegerField(default=0)
    total = models.FloatField(default=0.0)
    squares = models.FloatField(default=0.0)
    observed = models.FloatField(default=0.0, help_text="sum of m * SS_u / (m - 1)")

    class Meta:
        verbose_name_plural = "agreement totals"
        constraints = [
            models.UniqueConstraint(fields=["project", "dimension"], name="agreement_totals_once")
        ]

    def __str__(self) -> str:
        return self.dimension


class QuestionUnit(models.Model):
    """One unit of a question's agreement, a turn: the sums of its people's latest counted
    answers (feedback.rubrics.agreement.unit_sums), kept by the ratings service
    (feedback.question_sums) while two people or more have answered."""

    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    turn = models.ForeignKey("Turn", on_delete=models.CASCADE, related_name="+")
    step_id = models.CharField(max_length=200, blank=True, default="")  # "" for the turn
    question = models.CharField(max_length=40)
    sums = models.JSONField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["turn", "step_id", "question"], name="question_unit_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.question} on turn {self.turn_id}"


class QuestionTotals(models.Model):
    """Per project and question (its key), its units' sums added up (feedback.question_sums), under
    the `shape` of the question they were counted for; alpha reads this one row.

    The row with the empty question is the project's own: locked before any of its units move, and
    `built` once its stored ratings have been counted (until then nothing is moved, and the
    first read counts them all)."""

    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    question = models.CharField(max_length=40, blank=True)
    shape = models.CharField(max_length=40, blank=True)
    sums = models.JSONField(default=dict)
    built = models.BooleanField(default=False)

    class Meta:
        verbose_name_plural = "question totals"
        constraints = [
            models.UniqueConstraint(fields=["project", "question"], name="question_totals_once")
        ]

    def __str__(self) -> str:
        return self.question or "(project)"


class Counter(models.Model):
    """A project's count kept at ingest (feedback.counters), in a few slots so that writers in
    different processes do not queue on one row; a count is the sum of its slots."""

    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=64)
    slot = models.SmallIntegerField(default=0)
    value = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "name", "slot"], name="counter_slot_once")
        ]

    def __str__(self) -> str:
        return f"{self.name}[{self.slot}] = {self.value}"


class Lease(models.Model):
    """A turn, or one step of it, handed to one person to rate, until `expires`; one lease a
    person at a time."""

    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="leases")
    step_id = models.CharField(max_length=200, blank=True, default="")  # "" for the whole turn
    username = models.CharField(max_length=150, unique=True)
    expires = models.FloatField()
    # When it was handed out, kept when the same unit is handed to them again while held: how
    # long a rating took (feedback.insight). 0: a lease from before it was kept.
    created = models.FloatField(default=0, db_default=0)

    class Meta:
        indexes = [models.Index(fields=["turn", "expires"], name="lease_turn_expires")]

    def __str__(self) -> str:
        return f"{self.turn_id} to {self.username} until {self.expires}"


class Skip(models.Model):
    """A turn, or one step of it, a person passed on: never offered to them again."""

    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="skips")
    step_id = models.CharField(max_length=200, blank=True, default="")  # "" for the whole turn
    username = models.CharField(max_length=150)
    created = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["username", "turn", "step_id"], name="skip_once_per_person"
            )
        ]

    def __str__(self) -> str:
        return f"{self.turn_id} skipped by {self.username}"


class Experience(models.Model):
    """An (s, a, r, s', done) tuple. The id orders experiences by arrival, for eviction."""

    # The project of the credential that reported it (core.projects.selection), never the body's.
    project = models.ForeignKey(
        "projects.Project", on_delete=models.PROTECT, related_name="+", default=default_project_pk
    )
    # Unique by a constraint, not `unique=True`: on PostgreSQL that also builds a second
    # (varchar_pattern_ops) index for LIKE, which no query uses and every ingest writes.
    experience_id = models.CharField(max_length=200)
    owner = models.CharField(max_length=160)
    # No index on episode_id or component_name: no query looks an experience up by either
    # (adapt reads feedback.rewards' buckets, PPO the newest ids), and each index is written
    # by every ingest.
    episode_id = models.CharField(max_length=200, blank=True)
    step = models.BigIntegerField(default=0)
    component_name = models.CharField(max_length=200, blank=True)
    reward = models.FloatField()
    done = models.BooleanField(default=False)
    duration_ms = models.FloatField(null=True, blank=True)
    success = models.BooleanField(null=True, blank=True)
    behaviour_prob = models.FloatField(
        null=True, blank=True, help_text="Probability with which the component was chosen."
    )
    state = models.TextField(help_text="JSON")
    action = models.TextField(help_text="JSON")
    next_state = models.TextField(help_text="JSON")
    ts = models.FloatField()
    content_hash = models.CharField(max_length=32)
    # Whether its reporter may speak for its component (feedback.attribution): only these are
    # evidence for adapt and plans; the others are kept, and counted as calls, but move nothing.
    attributed = models.BooleanField(default=True)

    class Meta:
        # A project's ids are its own: another project may use the same.
        constraints = [
            models.UniqueConstraint(fields=["project", "experience_id"], name="experience_once")
        ]
        indexes = [
            models.Index(fields=["owner", "id"], name="experience_owner_order"),
            # A project's newest: its reward window's end, and the replay window.
            models.Index(fields=["project", "id"], name="experience_project_order"),
        ]

    def __str__(self) -> str:
        return self.experience_id


class ComponentOwner(models.Model):
    """Who a component belongs to: the first principal that reported a call of it without
    speaking for every component (feedback.attribution), in the project of the call."""

    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    component_name = models.CharField(max_length=200)
    owner = models.CharField(max_length=160)
    claimed = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "component_name"], name="component_owner_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.component_name}: {self.owner}"


class ExperienceQuota(models.Model):
    owner = models.CharField(max_length=160, unique=True)
    stored = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.owner}: {self.stored}"


class ComponentStats(models.Model):
    """Running aggregates per component of a project, so a stats query reads one row a
    component: a component is its project's own (two projects may name one alike)."""

    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    component_name = models.CharField(max_length=200)
    calls_total = models.BigIntegerField(default=0)
    calls_success = models.BigIntegerField(default=0)
    calls_failed = models.BigIntegerField(default=0)
    duration_count = models.BigIntegerField(default=0)
    duration_sum = models.FloatField(default=0.0)
    p95_duration_ms = models.FloatField(default=0.0)
    duration_sketch = models.BinaryField(default=b"", help_text="quantile sketch (feedback.sketch)")
    last_called = models.FloatField(default=0.0)
    feedback_count = models.BigIntegerField(default=0)
    score_weight = models.FloatField(default=0.0)
    score_weighted_sum = models.FloatField(default=0.0)
    # The same three a source of feedback (feedback.source_scores): what the pages for people
    # show, a human average by default; avg_score above stays the mean of every source's.
    human_count = models.BigIntegerField(default=0)
    human_weight = models.FloatField(default=0.0)
    human_weighted_sum = models.FloatField(default=0.0)
    env_count = models.BigIntegerField(default=0)
    env_weight = models.FloatField(default=0.0)
    env_weighted_sum = models.FloatField(default=0.0)
    self_count = models.BigIntegerField(default=0)
    self_weight = models.FloatField(default=0.0)
    self_weighted_sum = models.FloatField(default=0.0)

    class Meta:
        verbose_name_plural = "component stats"
        constraints = [
            # Also the stats' index: a project's components in name order.
            models.UniqueConstraint(
                fields=["project", "component_name"], name="component_stats_once"
            )
        ]

    def __str__(self) -> str:
        return self.component_name

    @property
    def avg_score(self) -> float:
        return self.score_weighted_sum / self.score_weight if self.score_weight > 0 else 0.0

    def as_record(self) -> dict[str, float | int | str]:
        return {
            "component_name": self.component_name,
            "calls_total": self.calls_total,
            "calls_success": self.calls_success,
            "calls_failed": self.calls_failed,
            "avg_duration_ms": (
                self.duration_sum / self.duration_count if self.duration_count else 0.0
            ),
            "avg_score": self.avg_score,
            "last_called": self.last_called,
            "p95_duration_ms": self.p95_duration_ms,
        }


class ComponentBucket(models.Model):
    """One component's calls and scores in one hour of their `ts`, kept at ingest
    (feedback.buckets): what the charts over time read, a row an hour however many calls."""

    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    component_name = models.CharField(max_length=200)
    hour = models.BigIntegerField(help_text="epoch seconds // 3600 of the calls' and scores' ts")
    calls_total = models.BigIntegerField(default=0)
    calls_success = models.BigIntegerField(default=0)
    calls_failed = models.BigIntegerField(default=0)
    duration_count = models.BigIntegerField(default=0)
    duration_sum = models.FloatField(default=0.0)
    score_count = models.BigIntegerField(default=0)
    score_weight = models.FloatField(default=0.0)
    score_weighted_sum = models.FloatField(default=0.0)

    class Meta:
        constraints = [
            # Also the charts' index: one component's newest hours are one range of it.
            models.UniqueConstraint(
                fields=["project", "component_name", "hour"], name="component_bucket_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.component_name}@{self.hour}"


class RewardBucket(models.Model):
    """A component's experiences in one bucket of `span` consecutive experience ids: how many,
    and their rewards (clipped to [-1, 1]) summed; kept up to date at ingest and eviction
    (feedback.rewards), so that adapt reads one row a bucket, never the experiences."""

    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    component_name = models.CharField(max_length=200)
    span = models.BigIntegerField()
    bucket = models.BigIntegerField()
    count = models.BigIntegerField(default=0)
    reward_sum = models.FloatField(default=0.0)

    class Meta:
        constraints = [
            # Also the read's index: a project's span, the buckets from the window's first on.
            models.UniqueConstraint(
                fields=["project", "span", "bucket", "component_name"], name="reward_bucket_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.component_name} [{self.span} x {self.bucket}]: {self.count}"


class RubricVersion(models.Model):
    """One version of a project's rubric (feedback.rubrics), as its managers wrote it.

    A project with none rates on the default rubric, version 1 (feedback.rubrics.defaults);
    each PUT adds the next version. Versions are never changed or removed: every rating names
    the one it was given under.
    """

    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    version = models.PositiveIntegerField()
    questions = models.TextField(help_text="JSON: the rubric's questions")
    preference = models.CharField(
        max_length=40, blank=True, default="", help_text="the key of its preference question"
    )
    by = models.CharField(max_length=150)
    created = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "version"], name="rubric_version_once")
        ]

    def __str__(self) -> str:
        return f"rubric {self.version} of project {self.project_id}"


# A rating's feedback rows are named `<rating_id>.<question key>` (feedback.services.ratings).
FEEDBACK_ID_SEPARATOR = "."


class Rating(models.Model):
    """A person's answers to the rubric of a turn's project (POST /api/ratings/).

    Its scored answers are stored as human feedback too (feedback.services.ratings), so that it
    counts toward the queue, the stats and the exports as a rating from the page does.
    """

    rating_id = models.CharField(max_length=40)
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="ratings")
    step_id = models.CharField(max_length=200, blank=True, default="")  # "" for the whole turn
    annotator = models.CharField(max_length=150)
    rubric_version = models.PositiveIntegerField()
    # JSON, not text: a rubric change asks which questions have answers (`has_key`).
    answers = models.JSONField(help_text="question key to answer")
    comment = models.TextField(blank=True)
    correction = models.TextField(blank=True)
    span_start = models.IntegerField(null=True, blank=True)
    span_end = models.IntegerField(null=True, blank=True)
    ts = models.FloatField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["rating_id"], name="rating_once")]
        indexes = [models.Index(fields=["project", "id"], name="rating_project_order")]

    def __str__(self) -> str:
        return self.rating_id


# Comparisons and reviews live in their own modules (feedback.comparisons, feedback.reviews):
# imported here, Django finds them.
from feedback.assignments.models import QueueAssignment  # noqa: E402, F401
from feedback.comparisons.models import (  # noqa: E402, F401
    Candidate,
    Comparison,
    ComparisonLease,
    ComparisonSkip,
    Judgment,
)
from feedback.gold.models import (  # noqa: E402, F401
    GoldComparison,
    GoldItem,
    GoldResult,
    QueuePause,
)
from feedback.insight.models import RatingTime  # noqa: E402, F401
from feedback.intake.models import Admission, IntakeRule  # noqa: E402, F401
from feedback.judges.models import JudgeWeight, MarkedJudge  # noqa: E402, F401
from feedback.reviews.models import Amendment, RatingReview, ReviewLease  # noqa: E402, F401
