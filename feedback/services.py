"""Writing what agents, environments and people send: each batch is one transaction."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
from django.conf import settings
from django.db import IntegrityError, connection, transaction

from core.accounts.roles import Action, Role
from core.events import broadcast_on_commit
from feedback.answers import TurnsCreated
from feedback.attribution import attributed_components
from feedback.buckets import buckets_add_experiences, buckets_add_feedback
from feedback.bulk import Row, existing_values, insert_rows
from feedback.counters import FEEDBACK_COUNTED, counter_add
from feedback.facts import Facts, batch_facts, merged, stored_facts
from feedback.idempotency import content_hash, new_items
from feedback.models import Experience, ExperienceQuota, Feedback, Lease, Turn
from feedback.moments import human_dimensions, moments_add, moments_lock
from feedback.provenance import provenance_of
from feedback.queue_state import queue_fields_of, turns_held, turns_refresh, turns_tally
from feedback.raters import raters_check
from feedback.retractions import ratings_take_back
from feedback.rewards import latest_experience_id, rewards_add, rewards_evict
from feedback.selectors.components import component_names
from feedback.selectors.overview import live_counts
from feedback.stats import (
    CallDelta,
    ScoreDelta,
    component_avg_score,
    stats_add_calls,
    stats_add_scores,
)
from learnportal_protocol import Experience as ExperienceItem
from learnportal_protocol import Feedback as FeedbackItem
from learnportal_protocol import FeedbackDimension, FeedbackPolarity, FeedbackSource, RatedTurn
from learnportal_protocol.errors import ErrorCode, LearnError, forbidden

if TYPE_CHECKING:
    from pydantic import BaseModel

    from core.accounts.principals import Principal

FEEDBACK_COLUMNS = (
    "feedback_id",
    "correlation_id",
    "session_id",
    "component_name",
    "rated_turn",
    "polarity",
    "score",
    "dimension",
    "confidence",
    "comment",
    "correction",
    "span_start",
    "span_end",
    "source",
    "annotator_id",
    "ts",
    "submitted_by",
    "content_hash",
    "received",
)
EXPERIENCE_COLUMNS = (
    "experience_id",
    "owner",
    "episode_id",
    "step",
    "component_name",
    "reward",
    "done",
    "duration_ms",
    "success",
    "behaviour_prob",
    "state",
    "action",
    "next_state",
    "ts",
    "content_hash",
    "attributed",
)
TURN_COLUMNS = (
    "correlation_id",
    "session_id",
    "component_name",
    "prompt",
    "response",
    "model",
    "environment",
    "version",
    "submitted_by",
    "created",
    "ratings_needed",
    "priority",
)


RoutingPolicy = Callable[[set[str]], Callable[[str], float | None]]
"""Given the components that compete for a call, the probability with which the routing in
force chooses each (None when it never would): the behaviour policy an experience was chosen
under, which PPO's ratio divides by. The routing is refinement's; the wiring passes it in."""


@dataclass(frozen=True)
class FeedbackOutcome:
    recorded: int
    new_score: float | None


def _json(value: object) -> str:
    return orjson.dumps(value).decode()


def _fields_json(item: BaseModel, *, skip_none: bool = False) -> str:
    """`item`'s fields as JSON text: what `model_dump(mode="json")` gives for these models
    (RatedTurn, Action: text, numbers, booleans and free JSON, nothing to convert), at a fifth
    of its cost, which at 1000 items a batch is a few milliseconds. A validated model's
    `__dict__` holds its fields, in their order."""
    values: dict[str, Any] = item.__dict__
    if skip_none:
        values = {name: value for name, value in values.items() if value is not None}
    return _json(values)


def _turn_row(
    key: str, session_id: str, component: str, turn: RatedTurn, owner: str, now: float
) -> Row:
    """A turn's row but for its queue fields (`_queued` adds them)."""
    environment = None if turn.environment is None else _json(turn.environment)
    return (
        key,
        session_id,
        component,
        turn.prompt,
        turn.response,
        turn.model,
        environment,
        turn.version,
        owner,
        now,
    )


def feedback_record(
    *,
    principal: Principal,
    feedbacks: list[FeedbackItem],
) -> FeedbackOutcome:
    """Store a batch of feedback, all or nothing, and fold the scores into component stats."""
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
    with transaction.atomic():
        fresh = new_items(
            Feedback, "feedback_id", "feedbacks", [f.feedback_id for f in feedbacks], hashes
        )
        components = _feedback_components([feedbacks[i] for i in fresh])
        rows: list[Row] = []
        turns: dict[str, Row] = {}  # the first rated turn carried for each key
        deltas: dict[str, ScoreDelta] = {}
        for index, component in zip(fresh, components, strict=True):
            item = feedbacks[index]
            source, annotator_id = provenance[index]
            span = item.correction_span or (None, None)
            turn = item.rated_turn
            rows.append(
                (
                    item.feedback_id,
                    item.correlation_id,
                    item.session_id,
                    component,
                    None if turn is None else _fields_json(turn),
                    item.polarity.value,
                    item.score,
                    item.dimension.value,
                    item.confidence,
                    item.comment,
                    item.correction,
                    span[0],
                    span[1],
                    source.value,
                    annotator_id,
                    item.ts,
                    owner,
                    hashes[index],
                    now,
                )
            )
            if turn is not None:
                key = item.correlation_id or item.feedback_id
                if key not in turns:
                    turns[key] = _turn_row(key, item.session_id, component, turn, owner, now)
            if component:
                deltas.setdefault(component, ScoreDelta()).add(
                    item.score, item.confidence, source.value
                )
        facts = batch_facts(FEEDBACK_COLUMNS, rows)
        rated = {fact.correlation_id for fact in facts}
        # Locks in one order (feedback.queue_state, feedback.moments): the stored turns, then
        # the dimensions' totals; then what is stored about them, read once.
        held = turns_held(rated | turns.keys())
        moments_lock(human_dimensions(facts))
        carried = {key: row for key, row in turns.items() if key not in held}
        people = {f.correlation_id for f in facts if f.source == FeedbackSource.HUMAN.value}
        stored = stored_facts(held.keys() | carried.keys() | people)
        superseded = raters_check(principal, facts, stored, held, positions=fresh, now=now)
        ratings_take_back(superseded, by=principal.name, now=now)
        after = merged(_without(stored, superseded), facts)
        # Known new: on PostgreSQL one COPY, which a concurrent request that stored one of
        # them first makes fail with IntegrityError, met by running the request again
        # (learnportal.dispatch.run). SQLite has one writer.
        insert_rows(Turn, TURN_COLUMNS, _queued(carried, after))
        turns_refresh(held, after)
        insert_rows(Feedback, FEEDBACK_COLUMNS, rows)
        counter_add(FEEDBACK_COUNTED, len(rows))
        moments_add(stored, facts)
        if principal.is_human and rated:
            _leases_end(principal.name, rated)
        stats_add_scores(deltas)
        buckets_add_feedback(FEEDBACK_COLUMNS, rows)
        last_component = _feedback_components(feedbacks[-1:])[0] if feedbacks else ""
        new_score = component_avg_score(last_component) if last_component else None
        if rows:
            broadcast_on_commit(
                "feedback.recorded",
                {"count": len(rows), "components": sorted(deltas), "by": principal.name},
                audience=Action.STATS,
                totals=live_counts,
            )
    return FeedbackOutcome(recorded=len(feedbacks), new_score=new_score)


def _without(facts: Facts, pks: set[int]) -> Facts:
    """These facts but the stored ones with these primary keys (just retracted)."""
    if not pks:
        return facts
    return {key: [f for f in values if f.order not in pks] for key, values in facts.items()}


def _queued(turns: dict[str, Row], facts: Facts) -> list[Row]:
    """New turns' rows with their queue fields as their counted feedback says (TURN_COLUMNS
    ends with them)."""
    fields = queue_fields_of(turns, facts)
    return [(*row, *fields[key]) for key, row in turns.items()]


def _leases_end(username: str, rated: set[str]) -> None:
    """A person's rating of the turn they hold ends that lease, whatever path it came by.

    A person holds one lease at most (Lease.username is unique): read it, rather than send the
    batch's keys to the database. Raw, as it runs once a person's feedback request: the ORM
    took 0.5 ms to build the join, the query 0.02.
    """
    qn = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT l.id, t.correlation_id FROM {qn(Lease._meta.db_table)} l"
            f" JOIN {qn(Turn._meta.db_table)} t ON t.id = l.turn_id WHERE l.username = %s",
            [username],
        )
        ended = [pk for pk, key in cursor.fetchall() if key in rated]
    if ended:
        Lease.objects.filter(pk__in=ended).delete()


def _feedback_components(items: list[FeedbackItem]) -> list[str]:
    """The rule of docs/contract.md: component_name, else the experience it correlates to, else
    the model."""
    lookup = [i.correlation_id for i in items if not i.component_name and i.correlation_id]
    experience_components = (
        existing_values(Experience, "experience_id", "component_name", lookup) if lookup else {}
    )
    return [
        item.component_name
        or experience_components.get(item.correlation_id)
        or (item.rated_turn.model if item.rated_turn else "")
        for item in items
    ]


def experience_store(
    *,
    principal: Principal,
    experiences: list[ExperienceItem],
    policy: RoutingPolicy,
) -> int:
    """Store a batch of experience tuples, all or nothing, within the owner's quota.

    An experience whose action carries no `action_prob` was chosen under `policy`, with every
    component known so far competing, and this batch's new ones.
    """
    principal.require(Action.EXPERIENCE)
    owner = principal.key
    hashes = [content_hash(item, owner) for item in experiences]
    now = time.time()
    with transaction.atomic():
        fresh = new_items(
            Experience,
            "experience_id",
            "experiences",
            [e.experience_id for e in experiences],
            hashes,
        )
        if not fresh:
            return len(experiences)
        stored = _reserve_quota(owner, len(fresh))
        stored_before = latest_experience_id(owner)
        # The routing's probabilities only when an action does not carry its own (two reads).
        probability: Callable[[str], float | None] | None = None
        if any(experiences[i].action.action_prob is None for i in fresh):
            batch = {experiences[i].action.component_name for i in fresh}
            probability = policy((set(component_names()) | batch) - {""})
        spoken = attributed_components(
            principal, {experiences[i].action.component_name for i in fresh}
        )
        rows: list[Row] = []
        calls: dict[str, CallDelta] = {}
        for index in fresh:
            item = experiences[index]
            action = item.action
            component = action.component_name
            succeeded = action.success if action.success is not None else item.reward >= 0
            chosen_with = action.action_prob
            if chosen_with is None and probability is not None:
                chosen_with = probability(component)
            rows.append(
                (
                    item.experience_id,
                    owner,
                    item.episode_id,
                    item.step,
                    component,
                    item.reward,
                    item.done,
                    action.duration_ms,
                    action.success,
                    chosen_with,
                    _json(item.state),
                    _fields_json(action, skip_none=True),
                    _json(item.next_state),
                    item.ts,
                    hashes[index],
                    not component or component in spoken,
                )
            )
            if component:
                calls.setdefault(component, CallDelta()).add(
                    succeeded=succeeded, duration_ms=action.duration_ms, ts=item.ts
                )
        insert_rows(Experience, EXPERIENCE_COLUMNS, rows)
        rewards_add(owner, stored_before)
        _evict_over_limit(owner, stored)
        stats_add_calls(calls)
        buckets_add_experiences(EXPERIENCE_COLUMNS, rows)
        if principal.role is Role.ENVIRONMENT and settings.LEARNPORTAL_FORWARD_ENV_REWARDS:
            _forward_env_rewards(owner, [experiences[i] for i in fresh], now)
        broadcast_on_commit(
            "experience.stored",
            {"count": len(rows), "components": sorted(calls), "by": principal.name},
            audience=Action.STATS,
        )
    return len(experiences)


def _reserve_quota(owner: str, count: int) -> int:
    """Count `count` more experiences against the owner's quota: how many it holds now.

    One upsert that adds and reads back, locking the owner's row until commit (a refusal raises
    inside the batch's transaction, which rolls the count back with everything else).
    """
    table = connection.ops.quote_name(ExperienceQuota._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (owner, stored) VALUES (%s, %s) "
            f"ON CONFLICT (owner) DO UPDATE SET stored = {table}.stored + excluded.stored "
            "RETURNING stored",
            [owner, count],
        )
        stored: int = cursor.fetchone()[0]
    limit = settings.LEARNPORTAL_EXPERIENCE_LIMIT
    if settings.LEARNPORTAL_EXPERIENCE_OVERFLOW == "reject" and stored > limit:
        raise LearnError(
            ErrorCode.QUOTA_EXCEEDED,
            f"Storing {count} more experiences would exceed the limit of {limit} "
            f"({stored - count} stored); nothing was stored.",
        )
    return stored


def _evict_over_limit(owner: str, stored: int) -> None:
    """Drop this owner's oldest experiences past the limit, as a replay buffer does."""
    limit = settings.LEARNPORTAL_EXPERIENCE_LIMIT
    excess = stored - limit
    if excess <= 0:
        return
    # The oldest `excess` are those up to the excess-th oldest id: one range, for the reward
    # sums to subtract and for the delete.
    ids = Experience.objects.filter(owner=owner).order_by("id").values_list("id", flat=True)
    through = ids[excess - 1]
    rewards_evict(owner, through)
    deleted, _ = Experience.objects.filter(owner=owner, id__lte=through).delete()
    ExperienceQuota.objects.filter(owner=owner).update(stored=stored - deleted)


def _forward_env_rewards(owner: str, experiences: list[ExperienceItem], now: float) -> None:
    """An environment's reward is also its judgement of the component: record it as env feedback."""
    rows: list[Row] = []
    deltas: dict[str, ScoreDelta] = {}
    for item in experiences:
        score = min(1.0, max(-1.0, item.reward))
        polarity = (
            FeedbackPolarity.POSITIVE
            if score > 0
            else FeedbackPolarity.NEGATIVE
            if score < 0
            else FeedbackPolarity.NEUTRAL
        )
        component = item.action.component_name
        rows.append(
            (
                f"env_{item.experience_id}",
                item.experience_id,
                "",
                component,
                None,
                polarity.value,
                score,
                FeedbackDimension.CORRECTNESS.value,
                1.0,
                "",
                "",
                None,
                None,
                FeedbackSource.ENV.value,
                "",
                item.ts,
                owner,
                "",
                now,
            )
        )
        if component:
            deltas.setdefault(component, ScoreDelta()).add(score, 1.0, FeedbackSource.ENV.value)
    written = insert_rows(
        Feedback, FEEDBACK_COLUMNS, rows, on_conflict="ON CONFLICT (feedback_id) DO NOTHING"
    )
    counter_add(FEEDBACK_COUNTED, written)
    turns_tally({item.experience_id for item in experiences})
    stats_add_scores(deltas)
    buckets_add_feedback(FEEDBACK_COLUMNS, rows)


@dataclass(frozen=True)
class TurnInput:
    correlation_id: str
    session_id: str
    component_name: str
    rated_turn: RatedTurn


def turns_submit(*, principal: Principal, turns: list[TurnInput]) -> TurnsCreated:
    """Queue agent turns for annotators (`POST /api/turns/`)."""
    principal.require(Action.SUBMIT_TURNS)
    return turns_store(principal=principal, turns=turns)


def turns_store(*, principal: Principal, turns: list[TurnInput]) -> TurnsCreated:
    """Store a batch of validated turns (feedback.turn_items), all or nothing; a correlation_id
    already queued, or repeated in the batch, is stored once. The caller checked the role:
    `turns_submit` for the API, feedback.turn_import for a file."""
    now = time.time()
    rows: dict[str, Row] = {}  # the first of each key
    for t in turns:
        if t.correlation_id not in rows:
            rows[t.correlation_id] = _turn_row(
                t.correlation_id, t.session_id, t.component_name, t.rated_turn, principal.key, now
            )
    try:
        created = _turns_queue(principal, rows)
    except IntegrityError:
        # Another request queued one of these turns between the look and the write (on
        # PostgreSQL, whose COPY then refuses them all): look again, and meet it stored.
        created = _turns_queue(principal, rows)
    return TurnsCreated(received=len(turns), created=created)


def _turns_queue(principal: Principal, rows: dict[str, Row]) -> int:
    """Store the turns among `rows` not stored yet, in one transaction: how many."""
    with transaction.atomic():
        held = turns_held(rows)
        new = {key: row for key, row in rows.items() if key not in held}
        # Feedback may have come before its turn (an agent's own, say): it counts from the start.
        insert_rows(Turn, TURN_COLUMNS, _queued(new, stored_facts(new)))
        if new:
            broadcast_on_commit(
                "turns.queued",
                {"count": len(new), "by": principal.name},
                audience=Action.READ_TURNS,
                totals=live_counts,
            )
    return len(new)
