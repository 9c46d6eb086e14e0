"""Each component's experience count and reward sum per bucket of ids, kept up to date at
ingest and eviction, so that adapt reads O(components) rows, never the experiences.

A project's window is of its own newest experiences: the buckets of its components from the
one its newest experience's id gives on. Ids are shared by every project, so where projects
interleave, a project's window of N ids holds fewer than N of its experiences (the newest ones).

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
    project, component, attributed = EXPERIENCE("project", "component_name", "attributed")
    to_project, name, span_, bucket, count, reward_sum = BUCKET(
        "project", "component_name", "span", "bucket", "count", "reward_sum"
    )
    added = ", ".join(f"{c} = {buckets}.{c} + excluded.{c}" for c in (count, reward_sum))
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {buckets} ({to_project}, {name}, {span_}, {bucket}, {count}, "
            f"{reward_sum}) SELECT {project}, {component}, %s, (id - 1) / %s, "
            f"{sign} * COUNT(*), {sign} * SUM({clipped_reward()}) FROM {experiences} "
            f"WHERE {component} <> '' AND {attributed} AND {where} "
            # In key order, so that concurrent batches lock shared buckets in one order.
            f"GROUP BY {project}, {component}, (id - 1) / %s "
            f"ORDER BY {project}, (id - 1) / %s, {component} "
            f"ON CONFLICT ({to_project}, {span_}, {bucket}, {name}) DO UPDATE SET {added}",
            [span, span, *params, span, span],
        )


def owner_latest_id(owner: str) -> int:
    """The id of the owner's newest experience (0: none): an index probe."""
    return _latest(EXPERIENCE.owner, owner)


def project_latest_id(project: int) -> int:
    """The id of the project's newest experience (0: none): an index probe."""
    return _latest(EXPERIENCE.project, project)


def _latest(column: str, value: str | int) -> int:
    _, experiences = _tables()
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT MAX(id) FROM {experiences} WHERE {column} = %s", [value])
        row = cursor.fetchone()
    return int(row[0]) if row and row[0] is not None else 0


@staged("reward sums: `rewards_add`")
def rewards_add(owner: str, project: int, after_id: int) -> None:
    """Count the owner's experiences stored after id `after_id` (this batch, in `project`: the
    caller holds the owner's quota row, so no other batch of theirs is in between) and drop the
    project's buckets that have left its window."""
    window = settings.LEARNPORTAL_ADAPT_WINDOW
    span = span_for(window)
    _upsert(1, f"{EXPERIENCE.owner} = %s AND id > %s", [owner, after_id], span)
    _drop_past_window(project, span, first_bucket(project_latest_id(project), window))


def _drop_past_window(project: int, span: int, first: int) -> None:
    buckets, _ = _tables()
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {buckets} WHERE {BUCKET.project} = %s AND {BUCKET.span} = %s "
            f"AND {BUCKET.bucket} < %s",
            [project, span, first],
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
    """Recompute every bucket of each project's window from the stored experiences; returns
    how many."""
    window = settings.LEARNPORTAL_ADAPT_WINDOW
    span = span_for(window)
    buckets, _ = _tables()
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {buckets}")
    projects = Experience.objects.order_by().values_list("project", flat=True).distinct()
    for project in projects:
        first = first_bucket(project_latest_id(project), window)
        _upsert(1, f"{EXPERIENCE.project} = %s AND id > %s", [project, first * span], span)
    return RewardBucket.objects.count()
