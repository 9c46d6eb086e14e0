"""Storing a batch of experiences, all or nothing, within the owner's quota: each with the
probability it was chosen with, its calls folded into the stats, an environment's rewards
forwarded as its feedback.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import connection, transaction

from core.accounts.roles import Action, Role
from core.columns import Columns
from core.events import broadcast_on_commit
from core.projects.selection import project_pk
from core.timing import staged
from feedback.attribution import attributed_components
from feedback.buckets import buckets_add_experiences, buckets_add_feedback
from feedback.bulk import Row, insert_rows
from feedback.counters import FEEDBACK_COUNTED, counter_add
from feedback.idempotency import content_hash, new_items
from feedback.models import Experience, ExperienceQuota, Feedback
from feedback.queue_state import turns_tally
from feedback.rewards import owner_latest_id, rewards_add, rewards_evict
from feedback.selectors.components import component_names
from feedback.services.rows import EXPERIENCE_COLUMNS, FEEDBACK_COLUMNS, fields_json, json_text
from feedback.stats import CallDelta, ScoreDelta, stats_add_calls, stats_add_scores, stats_know
from learnportal_protocol import Experience as ExperienceItem
from learnportal_protocol import FeedbackDimension, FeedbackPolarity, FeedbackSource
from learnportal_protocol.errors import ErrorCode, LearnError

if TYPE_CHECKING:
    from core.accounts.principals import Principal


RoutingPolicy = Callable[[int, set[str]], Callable[[str], float | None]]
"""Given a project and the components that compete for a call, the probability with which the
project's routing in force chooses each (None when it never would): the behaviour policy an experience was chosen
under, which PPO's ratio divides by. The routing is refinement's; the wiring passes it in."""


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
    with transaction.atomic():
        fresh = experiences_write(
            owner=principal.key,
            project=principal.project,
            experiences=experiences,
            policy=policy,
            attributed=lambda names: attributed_components(principal, names),
            by=principal.name,
        )
        forwarded = principal.role is Role.ENVIRONMENT and settings.LEARNPORTAL_FORWARD_ENV_REWARDS
        if fresh and forwarded:
            _forward_env_rewards(principal.key, project_pk(principal.project), fresh, time.time())
    return len(experiences)


def experiences_write(
    *,
    owner: str,
    project: str,
    experiences: list[ExperienceItem],
    policy: RoutingPolicy | None,
    attributed: Callable[[set[str]], set[str]],
    by: str,
    calls: bool = True,
) -> list[ExperienceItem]:
    """Store the experiences of `owner` not stored before (inside the caller's transaction):
    those new, within the owner's quota. `attributed` says which of their components they are
    evidence for; `policy` fills in an `action_prob` left out (None: unknown); `calls` counts
    them as calls of their components in the stats. The checks of who may are the caller's."""
    in_project = project_pk(project)
    hashes = [content_hash(item, owner) for item in experiences]
    fresh = new_items(
        Experience,
        "experience_id",
        "experiences",
        [e.experience_id for e in experiences],
        hashes,
        project=in_project,
    )
    if not fresh:
        return []
    stored = _reserve_quota(owner, len(fresh))
    stored_before = owner_latest_id(owner)
    # The routing's probabilities only when an action does not carry its own (two reads).
    probability: Callable[[str], float | None] | None = None
    if policy is not None and any(experiences[i].action.action_prob is None for i in fresh):
        batch = {experiences[i].action.component_name for i in fresh}
        probability = policy(in_project, (set(component_names(in_project)) | batch) - {""})
    spoken = attributed({experiences[i].action.component_name for i in fresh} - {""})
    rows: list[Row] = []
    deltas: dict[str, CallDelta] = {}
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
                json_text(item.state),
                fields_json(action, skip_none=True),
                json_text(item.next_state),
                item.ts,
                hashes[index],
                not component or component in spoken,
                in_project,
            )
        )
        if component:
            deltas.setdefault(component, CallDelta()).add(
                succeeded=succeeded, duration_ms=action.duration_ms, ts=item.ts
            )
    insert_rows(Experience, EXPERIENCE_COLUMNS, rows)
    rewards_add(owner, in_project, stored_before)
    _evict_over_limit(owner, stored)
    if calls:
        stats_add_calls(in_project, deltas)
        buckets_add_experiences(EXPERIENCE_COLUMNS, rows)
    else:
        stats_know(in_project, deltas)
    broadcast_on_commit(
        "experience.stored",
        {"count": len(rows), "components": sorted(deltas), "by": by},
        project=project,
        audience=Action.STATS,
    )
    return [experiences[i] for i in fresh]


FEEDBACK, Q = Columns(Feedback), Columns(ExperienceQuota)


@staged("`_reserve_quota`")
def _reserve_quota(owner: str, count: int) -> int:
    """Count `count` more experiences against the owner's quota: how many it holds now.

    One upsert that adds and reads back, locking the owner's row until commit (a refusal raises
    inside the batch's transaction, which rolls the count back with everything else).
    """
    table = connection.ops.quote_name(ExperienceQuota._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} ({Q.owner}, {Q.stored}) VALUES (%s, %s) "
            f"ON CONFLICT ({Q.owner}) DO UPDATE SET {Q.stored} = {table}.{Q.stored} "
            f"+ excluded.{Q.stored} RETURNING {Q.stored}",
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


@staged("`_evict_over_limit`")
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


@staged("`_forward_env_rewards`")
def _forward_env_rewards(
    owner: str, project: int, experiences: list[ExperienceItem], now: float
) -> None:
    """An environment's reward is also its judgement of the component: record it as env
    feedback, in the environment's project."""
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
                "",
                item.ts,
                owner,
                "",
                now,
                project,
            )
        )
        if component:
            deltas.setdefault(component, ScoreDelta()).add(score, 1.0, FeedbackSource.ENV.value)
    written = insert_rows(
        Feedback,
        FEEDBACK_COLUMNS,
        rows,
        on_conflict=f"ON CONFLICT ({FEEDBACK.project}, {FEEDBACK.feedback_id}) DO NOTHING",
    )
    counter_add(FEEDBACK_COUNTED, written, project=project)
    turns_tally(project, {item.experience_id for item in experiences})
    stats_add_scores(project, deltas)
    buckets_add_feedback(FEEDBACK_COLUMNS, rows)
