"""Read-only queries over turns, feedback, experiences and stats: the API's, the pages', and
all that other apps (refinement) read of feedback. What crosses over is plain values, never a
model, so that feedback's tables stay its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from django.db import connection
from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Q, QuerySet

from core.accounts.models import User
from core.accounts.roles import Action
from feedback import agreement
from feedback.answers import Agreement, DimensionAgreement

# Who may speak for which component: refinement reads it here, as it reads all of feedback.
from feedback.attribution import candidate_sets as candidate_sets
from feedback.attribution import owners_of as owners_of
from feedback.attribution import speaks_for_all as speaks_for_all
from feedback.attribution import spoken_for as spoken_for
from feedback.buckets import BUCKET_SECONDS
from feedback.counters import FEEDBACK_COUNTED, counter_value
from feedback.filters import FeedbackFilters
from feedback.models import (
    AgreementTotals,
    AgreementUnit,
    ComponentBucket,
    ComponentStats,
    Experience,
    Feedback,
    Retraction,
    RewardBucket,
    Turn,
)
from feedback.reward_window import first_bucket, span_for
from feedback.rewards import latest_experience_id
from feedback.sketch import DurationSketch, coarse_histogram
from feedback.source_scores import DEFAULT_SOURCE as DEFAULT_SOURCE
from feedback.source_scores import SOURCE_LABELS as SOURCE_LABELS
from feedback.source_scores import source_asked as source_asked
from feedback.source_scores import source_links as source_links
from feedback.source_scores import source_scores as source_scores
from learnportal_protocol import FeedbackDimension, FeedbackSource

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

    from core.accounts.principals import Principal
    from feedback.filters import Position


class Queued(TypedDict):
    """What the queue adds to each turn: `rated` when it has all the human ratings it needs."""

    rated: bool


# (component_name, reward, behaviour_prob) of one stored experience.
ExperienceRow = tuple[str, float, float | None]
CORRECTION_FIELDS = ("dimension", "comment", "correction", "annotator_id", "source")
UNRATED_CAP = 10_000


def counted_feedback() -> QuerySet[Feedback]:
    """The feedback that counts: every feedback but those their author retracted (an undo).

    Everything that reads feedback as evidence (lists, exports, agreement, the queue) reads it
    through here; a retracted rating stays stored, beside its Retraction record.

    NOT EXISTS rather than `retraction__isnull=True`: Django writes that as a LEFT JOIN with
    `retraction.id IS NULL`, which PostgreSQL cannot prove to be an anti-join (the id is not
    the join column), so it estimates a handful of survivors and sorts every matching row
    instead of walking a (field, ts, id) index for the newest few: a page of 15 read all of a
    component's feedback. An anti-join stops after the page.
    """
    return Feedback.objects.filter(~Exists(Retraction.objects.filter(feedback=OuterRef("pk"))))


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
    return own_human(viewer) | (Q(source__in=MACHINE_SOURCES) & ~_blind_turn(viewer))


def _blind_turn(viewer: Principal) -> Q:
    """Feedback on a queued turn this viewer has not rated. A feedback's turn is the one of
    its correlation_id, or, without one, of its feedback_id (a rated turn carried without a
    correlation_id is queued under the feedback's id: feedback.services)."""
    conditions = Q()
    for has_key, key in (
        (~Q(correlation_id=""), "correlation_id"),
        (Q(correlation_id=""), "feedback_id"),
    ):
        queued = Exists(Turn.objects.filter(correlation_id=OuterRef(key)))
        rated = Exists(counted_feedback().filter(own_human(viewer), correlation_id=OuterRef(key)))
        conditions |= has_key & queued & ~rated
    return conditions


def feedback_matching(filters: FeedbackFilters, *, viewer: Principal | None) -> QuerySet[Feedback]:
    """The counted feedback that these filters match and this viewer may see, unordered."""
    rows = counted_feedback().filter(seen_by(viewer))
    exact = {
        "source": filters.source,
        "polarity": filters.polarity,
        "dimension": filters.dimension,
        "component_name": filters.component,
        "annotator_id": filters.annotator,
        "correlation_id": filters.correlation_id,
    }
    rows = rows.filter(**{field: value for field, value in exact.items() if value})
    if filters.since is not None:
        rows = rows.filter(ts__gte=filters.since)
    if filters.until is not None:
        rows = rows.filter(ts__lt=filters.until)
    if filters.has_correction is True:
        rows = rows.exclude(correction="")
    elif filters.has_correction is False:
        rows = rows.filter(correction="")
    return rows


def feedback_page_rows(
    filters: FeedbackFilters, *, viewer: Principal | None, after: Position | None
) -> QuerySet[Feedback]:
    """The explorer's rows from a position on, newest first: the query a page reads."""
    rows = feedback_matching(filters, viewer=viewer)
    if after is not None:
        ts, pk = after
        rows = rows.filter(Q(ts__lte=ts), Q(ts__lt=ts) | Q(id__lt=pk))
    return rows.order_by("-ts", "-id")


def feedback_page_newer(
    filters: FeedbackFilters, *, viewer: Principal | None, before: Position, limit: int
) -> tuple[list[Feedback], bool]:
    """The explorer's page just newer than `before`, newest first, and whether newer rows are
    left above it: the same keyset, walked the other way."""
    ts, pk = before
    rows = feedback_matching(filters, viewer=viewer).filter(
        Q(ts__gte=ts), Q(ts__gt=ts) | Q(id__gt=pk)
    )
    page = list(rows.order_by("ts", "id")[: limit + 1])
    return page[:limit][::-1], len(page) > limit


MATCHES_CAP = 10_000


def feedback_match_count(
    filters: FeedbackFilters, *, viewer: Principal | None, cap: int = MATCHES_CAP
) -> tuple[int, bool]:
    """How many feedbacks the explorer's filter matches, counted up to `cap`, and whether there
    are more (the page says "10000+"): a count never walks a whole large table."""
    found = feedback_matching(filters, viewer=viewer).values("id")[: cap + 1].count()
    return min(found, cap), found > cap


def feedback_page(
    filters: FeedbackFilters, *, viewer: Principal | None, after: Position | None, limit: int
) -> tuple[list[Feedback], Position | None]:
    """One page of the explorer, newest first (ts, then id), and where the next one starts.

    Keyset pagination on (ts, id), which the indexes of feedback/migrations/0004_explorer.py
    serve with each filter: the bound `ts <= t` is what lets the database seek to the page
    instead of counting past the rows above it, so a deep page costs what the first does.
    """
    page = list(feedback_page_rows(filters, viewer=viewer, after=after)[: limit + 1])
    if len(page) <= limit:
        return page, None
    last = page[limit - 1]
    return page[:limit], (last.ts, last.id)


def component_names() -> list[str]:
    """Every component that has been called or rated, by name."""
    return list(
        ComponentStats.objects.order_by("component_name").values_list("component_name", flat=True)
    )


_RECORD_COLUMNS = (
    "component_name",
    "calls_total",
    "calls_success",
    "calls_failed",
    "duration_count",
    "duration_sum",
    "score_weight",
    "score_weighted_sum",
    "last_called",
    "p95_duration_ms",
)


def component_records(component_name: str = "") -> list[dict[str, Any]]:
    """ComponentPerformanceRecords: one indexed row a component, never the calls themselves.

    Raw SQL over plain number columns: for this one-row read, building the ORM query cost
    several times what running it does, and learn/stats/req is the agents' hot path.
    """
    table = connection.ops.quote_name(ComponentStats._meta.db_table)
    where, params = ("WHERE component_name = %s ", [component_name]) if component_name else ("", [])
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join(_RECORD_COLUMNS)} FROM {table} {where}ORDER BY component_name",
            params,
        )
        rows = cursor.fetchall()
    return [_record(*row) for row in rows]


def _record(
    name: str,
    calls_total: int,
    calls_success: int,
    calls_failed: int,
    duration_count: int,
    duration_sum: float,
    score_weight: float,
    score_weighted_sum: float,
    last_called: float,
    p95_duration_ms: float,
) -> dict[str, Any]:
    """As ComponentStats.as_record, from the columns themselves."""
    return {
        "component_name": name,
        "calls_total": calls_total,
        "calls_success": calls_success,
        "calls_failed": calls_failed,
        "avg_duration_ms": float(duration_sum) / duration_count if duration_count else 0.0,
        "avg_score": float(score_weighted_sum) / score_weight if score_weight > 0 else 0.0,
        "last_called": float(last_called),
        "p95_duration_ms": float(p95_duration_ms),
    }


def component_figures(record: dict[str, Any]) -> dict[str, float | None]:
    """What a page shows of a component's calls: None (shown "—"), not 0, where there is no call
    to measure (the wire record keeps its zeros, as the contract says)."""
    calls = record["calls_total"]
    if not calls:
        return {"success_rate": None, "avg_duration_ms": None, "p95_duration_ms": None}
    return {
        "success_rate": 100 * record["calls_success"] / calls,
        "avg_duration_ms": record["avg_duration_ms"],
        "p95_duration_ms": record["p95_duration_ms"],
    }


@dataclass(frozen=True)
class ComponentHour:
    """One hour of one component (feedback.buckets), as a chart reads it."""

    start: float  # epoch seconds
    calls: int
    calls_success: int
    avg_duration_ms: float | None
    scores: int
    avg_score: float | None  # confidence-weighted, as the stats' avg_score


def component_hours(component_name: str, limit: int) -> list[ComponentHour]:
    """A component's newest `limit` hours with calls or scores, oldest first: one range of the
    bucket index, whatever the number of calls."""
    rows = (
        ComponentBucket.objects.filter(component_name=component_name)
        .order_by("-hour")
        .values_list(
            "hour",
            "calls_total",
            "calls_success",
            "duration_count",
            "duration_sum",
            "score_count",
            "score_weight",
            "score_weighted_sum",
        )[:limit]
    )
    return [
        ComponentHour(
            start=float(hour * BUCKET_SECONDS),
            calls=calls,
            calls_success=success,
            avg_duration_ms=duration_sum / durations if durations else None,
            scores=scores,
            avg_score=weighted_sum / weight if weight > 0 else None,
        )
        for hour, calls, success, durations, duration_sum, scores, weight, weighted_sum in list(
            rows
        )[::-1]
    ]


@dataclass(frozen=True)
class DurationDistribution:
    """A component's call durations: histogram bins (ms edges, one more than counts), p50, p95."""

    edges: list[float]
    counts: list[int]
    p50: float
    p95: float
    count: int


def component_durations(component_name: str, bins: int) -> DurationDistribution | None:
    """From the component's duration sketch (one row), never from the calls; None: no durations."""
    raw = (
        ComponentStats.objects.filter(component_name=component_name)
        .values_list("duration_sketch", flat=True)
        .first()
    )
    sketch = DurationSketch.from_bytes(raw)
    if sketch.count == 0:
        return None
    edges, counts = coarse_histogram(sketch, bins)
    return DurationDistribution(
        edges=edges,
        counts=counts,
        p50=sketch.quantile(0.5),
        p95=sketch.quantile(0.95),
        count=sketch.count,
    )


FEEDBACK_VALUES = (
    "feedback_id",
    "correlation_id",
    "source",
    "annotator_id",
    "polarity",
    "score",
    "dimension",
    "confidence",
    "comment",
    "correction",
    "ts",
)


def component_feedback(
    component_name: str, *, viewer: Principal, limit: int
) -> list[dict[str, Any]]:
    """A component's newest counted feedback that this viewer may see (blind, as the explorer),
    as plain values, each with `turn_id`: its queued turn's id, or None."""
    rows, _ = feedback_page(
        FeedbackFilters(component=component_name), viewer=viewer, after=None, limit=limit
    )
    ids = turn_ids({row.correlation_id for row in rows} - {""})
    return [
        {name: getattr(row, name) for name in FEEDBACK_VALUES}
        | {"turn_id": ids.get(row.correlation_id)}
        for row in rows
    ]


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


def reward_sums(window: int) -> list[tuple[str, int, float]]:
    """(component, experiences, sum of rewards clipped to [-1, 1]) over the newest `window`
    experiences, for each component with any: O(components) rows kept up to date at ingest
    (feedback.rewards), whatever the table holds. The window is quantised to a bucket of
    ids (feedback.reward_window): it may count up to a tenth more of the older ones."""
    table = connection.ops.quote_name(RewardBucket._meta.db_table)
    first = first_bucket(latest_experience_id(), window)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT component_name, SUM(count), SUM(reward_sum) FROM {table} "
            "WHERE span = %s AND bucket >= %s GROUP BY component_name",
            [span_for(window), first],
        )
        rows = cursor.fetchall()
    return [(name, int(count), float(total)) for name, count, total in rows if count > 0]


def experience_window(limit: int) -> list[ExperienceRow]:
    """The newest `limit` attributed experiences that name a component, oldest first: a replay
    window (PPO's, bounded: refinement.evidence). Raw SQL and one `fetchall`, no model instances."""
    table = connection.ops.quote_name(Experience._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT component_name, reward, behaviour_prob FROM {table} "
            "WHERE component_name <> '' AND attributed ORDER BY id DESC LIMIT %s",
            [limit],
        )
        rows: list[ExperienceRow] = cursor.fetchall()
    return rows[::-1]


def corrections(component_name: str, limit: int) -> list[dict[str, str]]:
    """A component's newest corrective feedbacks: what to do instead, and who said so."""
    return list(
        counted_feedback()
        .filter(component_name=component_name, polarity="corrective")
        .order_by("-ts")
        .values(*CORRECTION_FIELDS)[:limit]
    )


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
        own = counted_feedback().filter(
            own_human(viewer), correlation_id=OuterRef("correlation_id")
        )
        turns = Turn.objects.annotate(rated=Exists(own))
    if component_name:
        turns = turns.filter(component_name=component_name)
    if session_id:
        turns = turns.filter(session_id=session_id)
    return turns.order_by("rated", "-id")


def unrated_turn_count(cap: int = UNRATED_CAP) -> tuple[int, bool]:
    """Turns that still need human ratings, counted over the queue's partial index up to
    `cap`, and whether there are more (the overview says "10000+")."""
    found = Turn.objects.filter(ratings_needed__gt=0).values("id")[: cap + 1].count()
    return min(found, cap), found > cap


def turn_list(
    *, component_name: str = "", session_id: str = "", open_only: bool = False
) -> QuerySet[Turn]:
    """Every turn, newest queued first (by id, which the turn's arrival assigns): the list a
    person browses. What to rate next is the queue's to say (feedback.queue); `open_only` keeps
    the turns that still need human ratings."""
    turns = Turn.objects.all()
    if component_name:
        turns = turns.filter(component_name=component_name)
    if session_id:
        turns = turns.filter(session_id=session_id)
    if open_only:
        turns = turns.filter(ratings_needed__gt=0)
    return turns.order_by("-id")


def turn_page(
    *,
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
    turns = turn_list(component_name=component_name, session_id=session_id, open_only=open_only)
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
        counted_feedback()
        .filter(own_human(viewer), correlation_id__in=[turn.correlation_id for turn in turns])
        .values_list("correlation_id", flat=True)
    )
    return {turn.pk for turn in turns if turn.correlation_id in mine}


def turn_ratings(turn: Turn, *, viewer: Principal | None) -> list[Feedback]:
    """A turn's ratings that this viewer may see, newest first (docs/contract.md, "Blind"): to
    an annotator who has not rated the turn, what `seen_by` shows (nothing of it, but their
    own); once they have, everyone's."""
    ratings = counted_feedback().filter(correlation_id=turn.correlation_id)
    if not sees_all_ratings(viewer):
        assert viewer is not None
        if not ratings.filter(own_human(viewer)).exists():
            ratings = ratings.filter(seen_by(viewer))
    return list(ratings.order_by("-ts", "-id"))


def turn_by_correlation(correlation_id: str) -> Turn | None:
    return Turn.objects.filter(correlation_id=correlation_id).first() if correlation_id else None


def turn_ids(correlation_ids: set[str]) -> dict[str, int]:
    """The queued turn of each correlation_id that has one, in one query."""
    return dict(
        Turn.objects.filter(correlation_id__in=correlation_ids).values_list("correlation_id", "id")
    )


def people_names(limit: int) -> list[str]:
    """Usernames of active people, for an annotator filter's suggestions."""
    return list(
        User.objects.filter(is_active=True)
        .order_by("username")
        .values_list("username", flat=True)[:limit]
    )


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


def still_blind(ratings: list[Feedback], viewer: Principal) -> bool:
    """Whether, of a turn's ratings (`turn_ratings`), this viewer is still kept from other
    people's: an annotator who has not rated the turn themselves."""
    return not sees_all_ratings(viewer) and not any(
        is_own_rating(rating, viewer) for rating in ratings
    )


def feedback_count() -> int:
    """The counted feedback (stored less retracted), as the feedback service keeps it counted
    at ingest (feedback.counters): a few rows, not a count of the table."""
    return counter_value(FEEDBACK_COUNTED)


def live_counts() -> dict[str, int | str]:
    """What the overview's counters show, as shown, for the page and its live updates (read
    once per flush, core.events; everyone who may read stats may read both over REST).
    Past the count's cap the turns waiting read "10000+"."""
    unrated, more = unrated_turn_count()
    return {"feedback_count": feedback_count(), "turns_unrated": f"{unrated}+" if more else unrated}


@dataclass(frozen=True)
class HumanScores:
    """Every counted human score on a turn, in no order, as parallel lists of plain values."""

    id: list[int]
    dimension: list[str]
    correlation_id: list[str]
    annotator_id: list[str]
    score: list[float]

    def __len__(self) -> int:
        return len(self.score)


def _human_rows() -> QuerySet[Feedback]:
    return counted_feedback().filter(source="human")


def human_scores() -> HumanScores:
    """Every counted human score, values only, in one query: what agreement is computed over,
    read whole (a recount from scratch; `agreement_read` reads the moments kept at ingest).

    Executed on a plain cursor from the queryset's own SQL (so that whatever `counted_feedback`
    leaves out stays out): building a tuple per row through the ORM would double the cost at a
    few hundred thousand rows (bench/workspace.py). Unordered: the caller sorts by `id` in
    numpy, where PostgreSQL would sort 200k rows on disk past its default `work_mem`.
    """
    rows = (
        _human_rows()
        .exclude(correlation_id="")
        .order_by()
        .values_list("id", "dimension", "correlation_id", "annotator_id", "score")
    )
    sql, params = rows.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchall()
    return HumanScores(*([r[i] for r in found] for i in range(5)))


@dataclass(frozen=True)
class Disagreement:
    """One turn on one dimension whose human scores lie far apart."""

    correlation_id: str
    turn_id: int | None  # None: feedback about a turn that was never queued
    dimension: str
    spread: float  # max - min of the scores
    variance: float
    scores: list[tuple[str, float]]  # (annotator, score), in annotator order


@dataclass(frozen=True)
class AgreementReport:
    agreement: Agreement
    disagreements: list[Disagreement]


def agreement_read(*, disagreements: int = 0) -> AgreementReport:
    """Krippendorff's alpha per dimension over counted human scores (feedback.agreement), and
    the `disagreements` turns whose scores spread widest.

    A unit is one turn on one dimension; a coder, one person: a person's later score of the same
    turn and dimension replaces their earlier one. Read from what the feedback service keeps at
    ingest (feedback.moments): one row of sums per dimension for alpha, and the widest units
    off the front of an index, whatever the number of scores.
    """
    totals = {row.dimension: row for row in AgreementTotals.objects.all()}
    answers = []
    for dimension in FeedbackDimension:
        row = totals.get(dimension.value)
        alpha = (
            agreement.alpha_interval_from_sums(
                row.units, row.values, row.total, row.squares, row.observed
            )
            if row is not None
            else agreement.Alpha(None, 0, 0)
        )
        answers.append(
            DimensionAgreement(
                dimension=dimension, alpha=alpha.alpha, turns=alpha.units, ratings=alpha.values
            )
        )
    worst = _widest(disagreements) if disagreements > 0 else []
    return AgreementReport(Agreement(dimensions=answers), worst)


def _widest(limit: int) -> list[Disagreement]:
    """The units whose scores lie furthest apart (range, then variance; people who gave the
    same score do not disagree), each with its people's scores: three queries."""
    units = list(
        AgreementUnit.objects.filter(spread__gt=0)
        .order_by("-spread", "-variance", "id")
        .values_list("correlation_id", "dimension", "spread", "variance")[:limit]
    )
    if not units:
        return []
    wanted = {(key, dimension) for key, dimension, _, _ in units}
    latest: dict[tuple[str, str, str], tuple[int, float]] = {}
    # By turn alone (the source checked here): see feedback.moments on the planner.
    rows = counted_feedback().filter(correlation_id__in={key for key, _ in wanted})
    for pk, key, dimension, person, score, source in rows.values_list(
        "id", "correlation_id", "dimension", "annotator_id", "score", "source"
    ):
        if source != FeedbackSource.HUMAN.value or (key, dimension) not in wanted:
            continue
        seen = latest.get((key, dimension, person))
        if seen is None or seen[0] < pk:
            latest[(key, dimension, person)] = (pk, score)
    scores: dict[tuple[str, str], list[tuple[str, float]]] = {unit: [] for unit in wanted}
    for (key, dimension, person), (_, score) in latest.items():
        scores[(key, dimension)].append((person, score))
    ids = turn_ids({key for key, _ in wanted})
    return [
        Disagreement(
            correlation_id=key,
            turn_id=ids.get(key),
            dimension=dimension,
            spread=spread,
            variance=variance,
            scores=sorted(scores[(key, dimension)]),
        )
        for key, dimension, spread, variance in units
    ]
