"""Read-only queries over turns, feedback, experiences and stats: the API's, the pages', and
all that other apps (refinement) read of feedback. What crosses over is plain values, never a
model, so that feedback's tables stay its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np
from django.core.cache import cache
from django.db import connection
from django.db.models import BooleanField, Exists, ExpressionWrapper, Max, OuterRef, Q, QuerySet

from feedback import agreement
from feedback.answers import Agreement, DimensionAgreement
from feedback.models import ComponentStats, Experience, Feedback, Retraction, Turn
from learnportal.accounts.models import User
from learnportal.accounts.roles import Action
from learnportal.protocol import FeedbackDimension, FeedbackSource

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations
    from numpy.typing import NDArray

    from feedback.filters import FeedbackFilters, Position
    from learnportal.accounts.principals import Principal


class Queued(TypedDict):
    """What the queue adds to each turn: `rated` when it has all the human ratings it needs."""

    rated: bool


# (component_name, reward, behaviour_prob) of one stored experience.
ExperienceRow = tuple[str, float, float | None]
CORRECTION_FIELDS = ("dimension", "comment", "correction", "annotator_id", "source")
AGREEMENT_CACHE_SECONDS = 3600


def counted_feedback() -> QuerySet[Feedback]:
    """The feedback that counts: every feedback but those their author retracted (an undo).

    Everything that reads feedback as evidence (lists, exports, agreement, the queue) reads it
    through here; a retracted rating stays stored, beside its Retraction record.
    """
    return Feedback.objects.filter(retraction__isnull=True)


MACHINE_SOURCES = (FeedbackSource.SELF.value, FeedbackSource.ENV.value)


def sees_all_ratings(viewer: Principal | None) -> bool:
    """Reviewers, admins and operators (no viewer: a command) see every person's ratings."""
    return viewer is None or viewer.may(Action.SEE_ALL_RATINGS)


def own_human(viewer: Principal) -> Q:
    return Q(source=FeedbackSource.HUMAN.value, annotator_id=viewer.name)


def blind(viewer: Principal | None) -> Q:
    """The feedback a viewer may see in lists (docs/contract.md, "Blind" and "Explorer"): an
    annotator sees their own human feedback and the agents' and environments' (`self`, `env`),
    never another person's."""
    if sees_all_ratings(viewer):
        return Q()
    assert viewer is not None
    return Q(source__in=MACHINE_SOURCES) | own_human(viewer)


def feedback_matching(filters: FeedbackFilters, *, viewer: Principal | None) -> QuerySet[Feedback]:
    """The counted feedback that these filters match and this viewer may see, unordered."""
    rows = counted_feedback().filter(blind(viewer))
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
        counted_feedback()
        .filter(component_name=component_name, polarity="corrective")
        .order_by("-ts")
        .values(*CORRECTION_FIELDS)[:limit]
    )


def turn_queue(
    *, component_name: str = "", session_id: str = "", viewer: Principal | None = None
) -> QuerySet[WithAnnotations[Turn, Queued]]:
    """The annotators' queue, each turn annotated `rated`: unrated first, then newest first.

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
    return turns.order_by("rated", "-created", "-id")


def unrated_turn_count() -> int:
    """Turns that still need human ratings: a count over the queue's partial index."""
    return Turn.objects.filter(ratings_needed__gt=0).count()


def turn_list(
    *, component_name: str = "", session_id: str = "", open_only: bool = False
) -> QuerySet[Turn]:
    """Every turn, newest first (the `created` index): the list a person browses. What to rate
    next is the queue's to say (feedback.queue); `open_only` keeps the turns that still need
    human ratings."""
    turns = Turn.objects.all()
    if component_name:
        turns = turns.filter(component_name=component_name)
    if session_id:
        turns = turns.filter(session_id=session_id)
    if open_only:
        turns = turns.filter(ratings_needed__gt=0)
    return turns.order_by("-created", "-id")


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


def next_unrated_turn(*, after: Turn, viewer: Principal | None = None) -> Turn | None:
    """The turn to rate next: the queue's first unrated one other than `after`."""
    return turn_queue(viewer=viewer).filter(rated=False).exclude(pk=after.pk).first()


def turn_ratings(turn: Turn, *, viewer: Principal | None) -> list[Feedback]:
    """A turn's ratings that this viewer may see, newest first (docs/contract.md, "Blind"): an
    annotator sees other people's only once they have rated the turn themselves."""
    ratings = counted_feedback().filter(correlation_id=turn.correlation_id)
    if not sees_all_ratings(viewer):
        assert viewer is not None
        if not ratings.filter(own_human(viewer)).exists():
            ratings = ratings.filter(blind(viewer))
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
    """The counted feedback: all of it less the retracted (two counts, each over one table;
    `counted_feedback().count()` joins every row to its retraction first)."""
    return Feedback.objects.count() - Retraction.objects.count()


def live_counts() -> dict[str, int]:
    """What the overview's counters show, for a live update (read once per flush, learnportal
    .events; everyone who may read stats may read both over REST)."""
    return {"feedback_count": feedback_count(), "turns_unrated": unrated_turn_count()}


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
    """The human scores that agreement is computed over: one query, values only.

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


def human_scores_version() -> tuple[int, int]:
    """How many counted human feedbacks there are, and the newest one's id: it changes with
    every rating added, and with every one that stops counting (feedback is never edited)."""
    # Two queries, each an index-only read: MAX alone is one index probe, while COUNT(*)
    # and MAX in one statement scan the index (2-4x slower on SQLite at 200k human rows).
    last = _human_rows().aggregate(last=Max("id"))["last"]
    return _human_rows().count(), int(last or 0)


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


def _codes(values: list[str]) -> tuple[list[str], NDArray[np.int64]]:
    """Each distinct value numbered in order of first appearance, and each value's number."""
    index: dict[str, int] = {}
    codes = [index.setdefault(value, len(index)) for value in values]
    return list(index), np.asarray(codes, dtype=np.int64)


def agreement_read(*, disagreements: int = 0) -> AgreementReport:
    """Krippendorff's alpha per dimension over counted human scores (feedback.agreement), and
    the `disagreements` turns whose scores spread widest.

    A unit is one turn on one dimension; a coder, one person: a person's later score of the same
    turn and dimension replaces their earlier one. O(scores): numbering, dedup and the sums
    are array operations, whatever the number of turns. At 200k human scores that is most of a
    second, so the answer is kept in the cache under `human_scores_version()`, which one
    indexed aggregate reads: any new rating (or one that stops counting) is a new key.
    """
    count, last = human_scores_version()
    key = f"agreement:{count}:{last}:{disagreements}"
    cached: AgreementReport | None = cache.get(key)
    if cached is None:
        cached = _agreement(disagreements)
        cache.set(key, cached, AGREEMENT_CACHE_SECONDS)
    return cached


def _agreement(disagreements: int) -> AgreementReport:
    rows = human_scores()
    dimensions = list(FeedbackDimension)
    if not len(rows):
        empty = [
            DimensionAgreement(dimension=d, alpha=None, turns=0, ratings=0) for d in dimensions
        ]
        return AgreementReport(Agreement(dimensions=empty), [])
    dimension_index = {d.value: i for i, d in enumerate(dimensions)}
    dim = np.asarray([dimension_index[d] for d in rows.dimension], dtype=np.int64)
    turn_names, turn = _codes(rows.correlation_id)
    person_names, person = _codes(rows.annotator_id)
    score = np.asarray(rows.score, dtype=np.float64)
    # The latest score of each (dimension, turn, person): sorted by key, then id, the last of
    # each key's run is the one with the highest id.
    unit = dim * len(turn_names) + turn
    key = unit * len(person_names) + person
    order = np.lexsort((np.asarray(rows.id, dtype=np.int64), key))
    ordered = key[order]
    keep = order[np.append(ordered[1:] != ordered[:-1], True)]
    unit, person, score = unit[keep], person[keep], score[keep]

    answers = []
    unit_dim = unit // len(turn_names)
    for i, name in enumerate(dimensions):
        alpha = agreement.alpha_interval(unit[unit_dim == i], score[unit_dim == i])
        answers.append(
            DimensionAgreement(
                dimension=name, alpha=alpha.alpha, turns=alpha.units, ratings=alpha.values
            )
        )
    worst = _widest(unit, person, score, disagreements, turn_names, person_names, dimensions)
    return AgreementReport(Agreement(dimensions=answers), worst)


def _widest(
    unit: NDArray[np.int64],
    person: NDArray[np.int64],
    score: NDArray[np.float64],
    limit: int,
    turn_names: list[str],
    person_names: list[str],
    dimensions: list[FeedbackDimension],
) -> list[Disagreement]:
    if limit <= 0:
        return []
    codes, _count, spread, variance = agreement.spread_by_unit(unit, score)
    apart = spread > 0  # people who gave the same score do not disagree
    codes, spread, variance = codes[apart], spread[apart], variance[apart]
    # Widest range first, then the larger variance, then the unit code (a stable order).
    top = codes[np.lexsort((codes, -variance, -spread))[:limit]]
    if not top.size:
        return []
    order = {int(u): rank for rank, u in enumerate(top)}
    chosen = np.isin(unit, top)
    scores: dict[int, list[tuple[str, float]]] = {int(u): [] for u in top}
    for u, p, s in zip(unit[chosen], person[chosen], score[chosen], strict=True):
        scores[int(u)].append((person_names[p], float(s)))
    names = {u: turn_names[u % len(turn_names)] for u in scores}
    ids = turn_ids(set(names.values()))
    out = []
    for u in sorted(scores, key=order.__getitem__):
        values = np.asarray([s for _, s in scores[u]])
        out.append(
            Disagreement(
                correlation_id=names[u],
                turn_id=ids.get(names[u]),
                dimension=dimensions[u // len(turn_names)].value,
                spread=float(values.max() - values.min()),
                variance=float(values.var()),
                scores=sorted(scores[u]),
            )
        )
    return out
