"""Each component's experience count and reward sum per bucket of ids, kept up to date at
ingest and eviction, so that adapt reads O(components) rows, never the experiences.

Set-based and in the ingest's transaction: one grouped upsert of the batch's rows (read back by
the owner's id range, hot in cache), one range delete of buckets that left the window; an
eviction subtracts what it deletes. Buckets are of the span that `LEARNPORTAL_ADAPT_WINDOW`
gives (feedback.reward_window); `manage.py rebuild_rewards` recomputes them from the stored
experiences, after a change of that setting for one.
"""

from __future__ import annotations

from django.conf import settings
from django.db import connection

from core.columns import Columns
from core.timing import staged
from feedback.models import Experience, RewardBucket
from feedback.reward_window import first_bucket, span_for

BUCKET = Columns(RewardBucket)
EXPERIENCE = Columns(Experience)


def _tables() -> tuple[str, str]:
    qn = connection.ops.quote_name
    return qn(RewardBucket._meta.db_table), qn(Experience._meta.db_table)


def clipped_reward() -> str:
    """SQL for an experience's reward clipped to [-1, 1], as the strategies read it."""
    if connection.vendor == "postgresql":
        return f"LEAST(GREATEST({EXPERIENCE.reward}, -1.0), 1.0)"
    return f"MIN(MAX({EXPERIENCE.reward}, -1.0), 1.0)"


def _upsert(sign: int, where: str, params: list[str | int], span: int) -> None:
    # Only attributed experiences are evidence (feedback.attribution): the others count nothing.
    buckets, experiences = _tables()
    component, attributed = EXPERIENCE("component_name", "attributed")
    name, span_, bucket, count, reward_sum = BUCKET(
        "component_name", "span", "bucket", "count", "reward_sum"
    )
    added = ", ".join(f"{c} = {buckets}.{c} + excluded.{c}" for c in (count, reward_sum))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {buckets} ({name}, {span_}, {bucket}, {count}, {reward_sum}) "
            f"SELECT {component}, %s, (id - 1) / %s, {sign} * COUNT(*), {sign} * SUM("
            f"{clipped_reward()}) FROM {experiences} "
            f"WHERE {component} <> '' AND {attributed} AND {where} "
            # In key order, so that concurrent batches lock shared buckets in one order.
            f"GROUP BY {component}, (id - 1) / %s ORDER BY (id - 1) / %s, {component} "
            f"ON CONFLICT ({span_}, {bucket}, {name}) DO UPDATE SET {added}",
            [span, span, *params, span, span],
        )


def latest_experience_id(owner: str | None = None) -> int:
    """The newest experience's id (of one owner's): an index probe."""
    _, experiences = _tables()
    with connection.cursor() as cursor:
        if owner is None:
            cursor.execute(f"SELECT MAX(id) FROM {experiences}")
        else:
            cursor.execute(
                f"SELECT MAX(id) FROM {experiences} WHERE {EXPERIENCE.owner} = %s", [owner]
            )
        row = cursor.fetchone()
    return int(row[0]) if row and row[0] is not None else 0


@staged("reward sums: `rewards_add`")
def rewards_add(owner: str, after_id: int) -> None:
    """Count the owner's experiences stored after id `after_id` (this batch: the caller holds
    the owner's quota row, so no other batch of theirs is in between) and drop the buckets
    that have left the window."""
    window = settings.LEARNPORTAL_ADAPT_WINDOW
    span = span_for(window)
    _upsert(1, f"{EXPERIENCE.owner} = %s AND id > %s", [owner, after_id], span)
    buckets, _ = _tables()
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {buckets} WHERE {BUCKET.span} = %s AND {BUCKET.bucket} < %s",
            [span, first_bucket(latest_experience_id(), window)],
        )


@staged("reward sums: `rewards_evict`")
def rewards_evict(owner: str, through_id: int) -> None:
    """Subtract the owner's experiences up to id `through_id`, which the caller deletes next."""
    _upsert(
        -1,
        f"{EXPERIENCE.owner} = %s AND id <= %s",
        [owner, through_id],
        span_for(settings.LEARNPORTAL_ADAPT_WINDOW),
    )


def rewards_rebuild() -> int:
    """Recompute every bucket of the window from the stored experiences; returns how many."""
    window = settings.LEARNPORTAL_ADAPT_WINDOW
    span = span_for(window)
    first = first_bucket(latest_experience_id(), window)
    buckets, _ = _tables()
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {buckets}")
    _upsert(1, "id > %s", [first * span], span)
    return RewardBucket.objects.count()
