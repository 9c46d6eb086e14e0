"""The arrays a strategy reads, loaded from stored experiences in one pass."""

from __future__ import annotations

import numpy as np
from django.conf import settings
from django.db import connection

from feedback.models import ComponentStats, Experience
from refinement.paths import UNWEIGHTED
from refinement.strategies import Evidence


def component_names() -> list[str]:
    """Every component that has been called or rated, in a stable order."""
    return list(
        ComponentStats.objects.order_by("component_name").values_list("component_name", flat=True)
    )


def load_evidence(names: list[str], weights: dict[str, float]) -> Evidence:
    index = {name: i for i, name in enumerate(names)}
    table = connection.ops.quote_name(Experience._meta.db_table)
    with connection.cursor() as cursor:
        # The newest `LEARNPORTAL_ADAPT_WINDOW` experiences, oldest first: a replay window, so
        # that one adapt's cost is bounded whatever the table holds.
        cursor.execute(
            f"SELECT component_name, reward, behaviour_prob FROM {table} "
            "WHERE component_name <> '' ORDER BY id DESC LIMIT %s",
            [settings.LEARNPORTAL_ADAPT_WINDOW],
        )
        rows = cursor.fetchall()[::-1]
    rows = [row for row in rows if row[0] in index]
    arm = np.fromiter((index[row[0]] for row in rows), dtype=np.int64, count=len(rows))
    reward = np.clip(
        np.fromiter((row[1] for row in rows), dtype=np.float64, count=len(rows)), -1, 1
    )
    behaviour = np.fromiter(
        (np.nan if row[2] is None else row[2] for row in rows), dtype=np.float64, count=len(rows)
    )
    current = np.array([weights.get(name, UNWEIGHTED) for name in names], dtype=np.float64)
    return Evidence(
        n_arms=len(names), arm=arm, reward=reward, behaviour_prob=behaviour, current=current
    )
