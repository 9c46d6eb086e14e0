"""Per-source score tallies (feedback.stats, feedback.source_scores): kept at ingest, undo and
supersede equal to a recomputation from the counted feedback, and filled by the migration."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from core.accounts.roles import Role
from core.projects.selection import default_project_pk
from feedback.models import ComponentStats
from feedback.queue import queue_undo
from feedback.selectors.components import component_records
from feedback.selectors.visibility import counted_feedback
from feedback.services.experiences import experience_store
from feedback.services.feedbacks import feedback_record
from feedback.source_scores import ALL, source_scores
from feedback.stats import SCORE_SOURCES, source_columns
from learnportal_protocol import Feedback as FeedbackItem
from learnportal_protocol import FeedbackSource
from refinement.store import behaviour_policy
from tests.factories import FeedbackItemFactory, PrincipalFactory, TurnFactory
from tests.feedback.test_buckets import ENV, calls, scores
from tests.harness import default_pk

pytestmark = pytest.mark.django_db

AGENT = PrincipalFactory.build(role=Role.AGENT, name="agent-1")
ANN = PrincipalFactory.build(role=Role.ANNOTATOR, name="ann")
ANN2 = PrincipalFactory.build(role=Role.ANNOTATOR, name="ann2")
TALLY_COLUMNS = tuple(c for s in SCORE_SOURCES for c in source_columns(s))


def recomputed() -> dict[str, dict[str, float]]:
    """What each component's per-source tallies should hold, from the counted feedback."""
    out: dict[str, dict[str, float]] = defaultdict(lambda: dict.fromkeys(TALLY_COLUMNS, 0))
    for f in counted_feedback(default_project_pk()).exclude(component_name=""):
        count, weight, weighted_sum = source_columns(f.source)
        row = out[f.component_name]
        row[count] += 1
        row[weight] += f.confidence
        row[weighted_sum] += f.confidence * f.score
    return dict(out)


def stored() -> dict[str, dict[str, float]]:
    return {
        s.component_name: {c: getattr(s, c) for c in TALLY_COLUMNS}
        for s in ComponentStats.objects.exclude(feedback_count=0)
    }


def assert_tallies_match() -> None:
    expected, actual = recomputed(), stored()
    assert set(actual) == set(expected)
    for name, row in expected.items():
        assert actual[name] == pytest.approx(row, abs=1e-9), name


def rating(feedback_id: str, turn: str, score: float, confidence: float = 1.0) -> FeedbackItem:
    return FeedbackItemFactory.build(
        feedback_id=feedback_id,
        correlation_id=turn,
        component_name="search",
        score=score,
        confidence=confidence,
    )


def mixed_sources() -> None:
    """Human, env and self scores of two components; an undo and a supersede among them."""
    for i in range(3):
        TurnFactory.create(correlation_id=f"t-{i}")
    feedback_record(
        principal=AGENT, feedbacks=scores(("search", 10.0, 1.0, 1.0), ("browse", 20.0, 0.5, 0.5))
    )
    experience_store(
        principal=ENV,
        experiences=calls(("search", 30.0, -0.5, None, 10.0), ("browse", 40.0, -1.0, None, None)),
        policy=behaviour_policy,
    )
    feedback_record(principal=ANN, feedbacks=[rating("a-1", "t-0", -1.0, 0.8)])
    feedback_record(principal=ANN, feedbacks=[rating("a-2", "t-1", 0.6)])
    queue_undo(ANN, "a-2")  # taken back
    feedback_record(principal=ANN2, feedbacks=[rating("b-1", "t-2", 0.2)])
    feedback_record(principal=ANN2, feedbacks=[rating("b-2", "t-2", 0.9, 0.5)])  # supersedes b-1


def test_per_source_tallies_equal_a_recomputation_after_ingest_undo_and_supersede(
    clock: Any,
) -> None:
    mixed_sources()

    assert_tallies_match()
    search = ComponentStats.objects.get(component_name="search")
    assert (search.human_count, search.env_count, search.self_count) == (2, 1, 1)


def test_each_source_has_its_own_average_and_all_of_them_stay_the_wire_avg_score(
    clock: Any,
) -> None:
    mixed_sources()

    def mean(source: str) -> float | None:
        return source_scores(default_pk(), source, "search")["search"].mean

    assert mean(FeedbackSource.HUMAN.value) == pytest.approx((0.8 * -1.0 + 0.5 * 0.9) / 1.3)
    assert mean(FeedbackSource.ENV.value) == pytest.approx(-0.5)
    assert mean(FeedbackSource.SELF.value) == pytest.approx(1.0)
    wire = component_records(default_pk(), "search")[0]["avg_score"]
    assert mean(ALL) == pytest.approx(wire)
    assert wire == pytest.approx((-0.8 + 0.45 - 0.5 + 1.0) / (0.8 + 0.5 + 1.0 + 1.0))
    assert source_scores(default_pk(), FeedbackSource.HUMAN.value, "browse")["browse"].mean is None


def _migrate(*targets: tuple[str, str]) -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(list(targets) or executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_the_per_source_tallies_from_the_counted_feedback(
    clock: Any,
) -> None:
    mixed_sources()
    kept = stored()

    _migrate(("feedback", "0012_experience_attribution"))
    _migrate()

    again = stored()
    assert set(again) == set(kept)
    for name, row in kept.items():
        assert again[name] == pytest.approx(row, abs=1e-9), name
    assert_tallies_match()
