"""Storing a batch of feedback, all or nothing: its provenance checked, the turns it carries
queued, the raters' rule applied, and the stats, buckets, moments and counters it adds to.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, cast

from django.db import connection, transaction

from core.accounts.roles import Action
from core.columns import Columns
from core.events import broadcast_on_commit
from core.projects.guidelines import guidelines_read_check
from core.projects.selection import project_pk
from core.timing import staged
from feedback.buckets import buckets_add_feedback
from feedback.bulk import Row, existing_values, insert_rows
from feedback.comparisons.formed import comparisons_from_turns
from feedback.counters import FEEDBACK_COUNTED, counter_add
from feedback.facts import Facts, batch_facts, merged, stored_facts
from feedback.gold.scoring import Given, gold_score
from feedback.idempotency import content_hash, new_items
from feedback.insight.models import RatingTime
from feedback.intake.admission import admissions_of_new, held_admit
from feedback.judges.evidence import feedback_as_evidence, weighing_of
from feedback.models import FEEDBACK_ID_SEPARATOR, Experience, Feedback, Lease, Turn
from feedback.moments import human_dimensions, moments_add, moments_lock
from feedback.provenance import provenance_of
from feedback.queue_state import turns_held, turns_refresh
from feedback.raters import raters_check
from feedback.retractions import ratings_take_back
from feedback.selectors.overview import live_counts
from feedback.services.rows import (
    FEEDBACK_COLUMNS,
    TURN_COLUMNS,
    feedback_row,
    queued_rows,
    turn_row,
)
from feedback.stats import ScoreDelta, component_avg_score, stats_add_scores
from feedback.traces.store import steps_named_check
from learnportal_protocol import Feedback as FeedbackItem
from learnportal_protocol import FeedbackSource
from learnportal_protocol.errors import forbidden

if TYPE_CHECKING:
    from core.accounts.principals import Principal


@dataclass(frozen=True)
class FeedbackOutcome:
    recorded: int
    new_score: float | None


def feedback_record(
    *,
    principal: Principal,
    feedbacks: list[FeedbackItem],
) -> FeedbackOutcome:
    """Store a batch of feedback, all or nothing, and fold the scores into component stats.
    A person's is a rating, by whichever path it comes: it needs the guidelines read first,
    where their project asks for it."""
    guidelines_read_check(principal)
    return feedback_store(principal=principal, feedbacks=feedbacks)


def feedback_store(*, principal: Principal, feedbacks: list[FeedbackItem]) -> FeedbackOutcome:
    """`feedback_record` for a caller that has checked the guidelines itself (the ratings
    service, which says so before it judges the answers)."""
    principal.require(Action.FEEDBACK)
    provenance, problems = [], []
    for index, item in enumerate(feedbacks):
        source, annotator_id, item_problems = provenance_of(principal, item, index)
        provenance.append((source, annotator_id))
        problems.extend(item_problems)
    if problems:
        raise forbidden(
            f"{len(problems)} feedback fields claim a provenance this credential does not have; "
            "nothing was stored.",
            problems,
        )
    owner = principal.key
    hashes = [
        content_hash(item, owner, {"source": source.value, "annotator_id": annotator_id})
        for item, (source, annotator_id) in zip(feedbacks, provenance, strict=True)
    ]
    now = time.time()
    project = project_pk(principal.project)
    with transaction.atomic():
        fresh = new_items(
            Feedback,
            "feedback_id",
            "feedbacks",
            [f.feedback_id for f in feedbacks],
            hashes,
            project=project,
        )
        components = _feedback_components(project, [feedbacks[i] for i in fresh])
        weighing = weighing_of(
            principal, project, [(feedbacks[i], provenance[i][0]) for i in fresh]
        )
        rows: list[Row] = []
        weighed_rows: list[Row] = []  # as the hour buckets count them
        turns: dict[str, Row] = {}  # the first rated turn carried for each key
        deltas: dict[str, ScoreDelta] = {}
        for index, component in zip(fresh, components, strict=True):
            item = feedbacks[index]
            source, annotator_id = provenance[index]
            weight = weighing.weight(source, item.dimension.value)
            turn = item.rated_turn
            rows.append(
                feedback_row(
                    item,
                    component=component,
                    source=source,
                    annotator_id=annotator_id,
                    owner=owner,
                    content_hash=hashes[index],
                    received=now,
                    project=project,
                )
            )
            if turn is not None:
                key = item.correlation_id or item.feedback_id
                if key not in turns:
                    turns[key] = turn_row(key, item.session_id, component, turn, principal, now)
            weighed_rows.append(_weighed(rows[-1], weight))
            if component:
                deltas.setdefault(component, ScoreDelta()).add(
                    item.score, item.confidence * weight, source.value
                )
        facts = batch_facts(FEEDBACK_COLUMNS, rows)
        rated = {fact.correlation_id for fact in facts}
        # Locks in one order (feedback.queue_state, feedback.moments): the stored turns, then
        # the dimensions' totals; then what is stored about them, read once.
        held = turns_held(project, rated | turns.keys())
        if named := [
            (i, f.correlation_id, f.step_id, bool(f.correction))
            for i, f in enumerate(feedbacks)
            if f.step_id
        ]:
            steps_named_check(held, named)
        moments_lock(project, human_dimensions(facts))
        carried = {key: row for key, row in turns.items() if key not in held}
        people = {f.correlation_id for f in facts if f.source == FeedbackSource.HUMAN.value}
        stored = stored_facts(project, held.keys() | carried.keys() | people)
        superseded = raters_check(principal, facts, stored, held, positions=fresh, now=now)
        ratings_take_back(superseded, by=principal.name, now=now)
        after = merged(_without(stored, superseded), facts)
        # Known new: on PostgreSQL one COPY, which a concurrent request that stored one of
        # them first makes fail with IntegrityError, met by running the request again
        # (learnportal.dispatch.run). SQLite has one writer.
        queued = queued_rows(carried, after)
        insert_rows(Turn, TURN_COLUMNS, queued.rows)
        admissions_of_new(project, queued)
        comparisons_from_turns(project, carried.keys())
        held_admit(project, held, after)
        turns_refresh(held, after)
        insert_rows(Feedback, FEEDBACK_COLUMNS, rows)
        counter_add(FEEDBACK_COUNTED, len(rows), project=project)
        moments_add(project, stored, facts)
        if principal.is_human and rated:
            _leases_end(
                principal.name, project, {(f.correlation_id, f.step_id) for f in facts}, now
            )
            _gold_score(principal, project, [feedbacks[i] for i in fresh])
        stats_add_scores(project, deltas)
        buckets_add_feedback(FEEDBACK_COLUMNS, weighed_rows)
        feedback_as_evidence(
            principal,
            weighing,
            [(feedbacks[i], provenance[i][0], c) for i, c in zip(fresh, components, strict=True)],
        )
        last_component = _feedback_components(project, feedbacks[-1:])[0] if feedbacks else ""
        new_score = component_avg_score(project, last_component) if last_component else None
        if rows:
            broadcast_on_commit(
                "feedback.recorded",
                {"count": len(rows), "components": sorted(deltas), "by": principal.name},
                project=principal.project,
                audience=Action.STATS,
                totals=partial(live_counts, project),
            )
    return FeedbackOutcome(recorded=len(feedbacks), new_score=new_score)


CONFIDENCE = FEEDBACK_COLUMNS.index(Columns(Feedback).confidence)


def _weighed(row: Row, weight: float) -> Row:
    """A feedback row with its confidence weighed, as the stats and buckets count it."""
    if weight == 1.0:
        return row
    confidence = cast("float", row[CONFIDENCE])
    return (*row[:CONFIDENCE], confidence * weight, *row[CONFIDENCE + 1 :])


def _without(facts: Facts, pks: set[int]) -> Facts:
    """These facts but the stored ones with these primary keys (just retracted)."""
    if not pks:
        return facts
    return {key: [f for f in values if f.order not in pks] for key, values in facts.items()}


TURN, LEASE = Columns(Turn), Columns(Lease)
RATING_TIME_COLUMNS = Columns(RatingTime)("project", "username", "turn", "step_id", "seconds", "ts")


def _gold_score(principal: Principal, project: int, stored: list[FeedbackItem]) -> None:
    """Score a person's feedback on whole turns against the gold items among them, as a
    rating whose answers are its scores by dimension. A rubric's rating (its rows named
    `<rating_id>.<key>`) is scored by the ratings service, on every answer it gave."""
    scores: dict[str, dict[str, float]] = {}
    named: dict[str, str] = {}
    for item in stored:
        if item.step_id or not item.correlation_id or FEEDBACK_ID_SEPARATOR in item.feedback_id:
            continue
        scores.setdefault(item.correlation_id, {})[item.dimension.value] = item.score
        named.setdefault(item.correlation_id, item.feedback_id)
    if scores:
        ratings = {key: Given(named[key], answers) for key, answers in scores.items()}
        gold_score(principal, project, ratings)


def _leases_end(username: str, project: int, rated: set[tuple[str, str]], now: float) -> None:
    """A person's rating of the turn, or the step of it, they hold (in the project they rate
    in: `rated` holds (correlation_id, step_id) pairs) ends that lease, whatever path it came
    by, and records how long it took them (feedback.insight; not for a lease from before its
    start was kept). A rating of a step of the turn they hold does not: the turn is still
    theirs to rate.

    A person holds one lease at most (Lease.username is unique): read it, rather than send the
    batch's keys to the database. Raw, as it runs once a person's feedback request: the ORM
    took 0.5 ms to build the join, the query 0.02.
    """
    qn = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT l.id, t.{TURN.correlation_id}, l.{LEASE.step_id}, t.{TURN.project},"
            f" l.{LEASE.turn}, l.{LEASE.created}"
            f" FROM {qn(Lease._meta.db_table)} l"
            f" JOIN {qn(Turn._meta.db_table)} t ON t.id = l.{LEASE.turn}"
            f" WHERE l.{LEASE.username} = %s",
            [username],
        )
        ended = [
            (pk, turn, step_id, created)
            for pk, key, step_id, held_in, turn, created in cursor.fetchall()
            if (key, step_id) in rated and held_in == project
        ]
    if not ended:
        return
    Lease.objects.filter(pk__in=[pk for pk, *_ in ended]).delete()
    timed = [
        (project, username, turn, step_id, now - created, now)
        for _, turn, step_id, created in ended
        if created > 0
    ]
    insert_rows(RatingTime, RATING_TIME_COLUMNS, timed)


@staged("`_feedback_components`")
def _feedback_components(project: int, items: list[FeedbackItem]) -> list[str]:
    """The rule of docs/contract.md: component_name, else the experience of the project it
    correlates to, else the model."""
    lookup = [i.correlation_id for i in items if not i.component_name and i.correlation_id]
    experience_components = (
        existing_values(Experience, "experience_id", "component_name", lookup, project=project)
        if lookup
        else {}
    )
    return [
        item.component_name
        or experience_components.get(item.correlation_id)
        or (item.rated_turn.model if item.rated_turn else "")
        for item in items
    ]
