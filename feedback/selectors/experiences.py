"""The stored experiences as adapt's strategies read them: each component's reward sums over
the newest window, and a bounded replay window, in plain rows.
"""

from __future__ import annotations

from django.db import connection

from core.columns import Columns
from feedback.models import Experience, RewardBucket
from feedback.reward_window import first_bucket, span_for
from feedback.rewards import project_latest_id

B, E = Columns(RewardBucket), Columns(Experience)

# (component_name, reward, behaviour_prob) of one stored experience.
ExperienceRow = tuple[str, float, float | None]


def reward_sums(project: int, window: int) -> list[tuple[str, int, float]]:
    """(component, experiences, sum of rewards clipped to [-1, 1]) over the project's newest
    `window` experiences, for each of its components with any: O(components) rows kept up to
    date at ingest (feedback.rewards), whatever the table holds. The window is quantised to a
    bucket of ids (feedback.reward_window): it may count up to a tenth more of the older ones."""
    table = connection.ops.quote_name(RewardBucket._meta.db_table)
    first = first_bucket(project_latest_id(project), window)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {B.component_name}, SUM({B.count}), SUM({B.reward_sum}) FROM {table} "
            f"WHERE {B.project} = %s AND {B.span} = %s AND {B.bucket} >= %s "
            f"GROUP BY {B.component_name}",
            [project, span_for(window), first],
        )
        rows = cursor.fetchall()
    return [(name, int(count), float(total)) for name, count, total in rows if count > 0]


def experience_window(project: int, limit: int) -> list[ExperienceRow]:
    """The project's newest `limit` attributed experiences that name a component, oldest first:
    a replay window (PPO's, bounded: refinement.evidence). Raw SQL and one `fetchall`, no model
    instances."""
    table = connection.ops.quote_name(Experience._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join(E('component_name', 'reward', 'behaviour_prob'))} FROM {table} "
            f"WHERE {E.project} = %s AND {E.component_name} <> '' AND {E.attributed} "
            "ORDER BY id DESC LIMIT %s",
            [project, limit],
        )
        rows: list[ExperienceRow] = cursor.fetchall()
    return rows[::-1]
