"""feedback.buckets: the hourly aggregates kept at ingest equal a recomputation from the rows."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from core.accounts.roles import Role
from core.projects.selection import default_project_pk
from feedback.buckets import BUCKET_SECONDS, buckets_left_out, hour_of
from feedback.models import ComponentBucket, Experience
from feedback.queue import queue_undo
from feedback.selectors.visibility import counted_feedback
from feedback.services.experiences import experience_store
from feedback.services.feedbacks import feedback_record
from learnportal_protocol import Experience as ExperienceItem
from learnportal_protocol import Feedback as FeedbackItem
from learnportal_protocol import FeedbackPolarity
from learnportal_protocol.models import TIMESTAMP_MAX
from refinement.store import behaviour_policy
from tests.factories import (
    ExperienceItemFactory,
    FeedbackItemFactory,
    PrincipalFactory,
    TurnFactory,
)

pytestmark = pytest.mark.django_db

AGENT = PrincipalFactory.build(role=Role.AGENT, name="agent-1")
ENV = PrincipalFactory.build(role=Role.ENVIRONMENT, name="gym-1")
ANN = PrincipalFactory.build(role=Role.ANNOTATOR, name="ann")
H = float(BUCKET_SECONDS)


def calls(*specs: tuple[str, float, float, bool | None, float | None]) -> list[ExperienceItem]:
    """(component, ts, reward, success, duration_ms) each."""
    return [
        ExperienceItemFactory.build(
            reward=reward,
            ts=ts,
            action__component_name=name,
            action__success=success,
            action__duration_ms=duration,
        )
        for name, ts, reward, success, duration in specs
    ]


def scores(*specs: tuple[str, float, float, float]) -> list[FeedbackItem]:
    """(component, ts, score, confidence) each."""
    return [
        FeedbackItemFactory.build(component_name=name, score=score, confidence=confidence, ts=ts)
        for name, ts, score, confidence in specs
    ]


def recomputed() -> dict[tuple[str, int], dict[str, Any]]:
    """What the buckets should hold, from every stored experience and counted feedback."""
    out: dict[tuple[str, int], dict[str, Any]] = defaultdict(lambda: dict.fromkeys(FIELDS, 0))
    for e in Experience.objects.exclude(component_name=""):
        row = out[(e.component_name, hour_of(e.ts))]
        succeeded = e.success if e.success is not None else e.reward >= 0
        row["calls_total"] += 1
        row["calls_success" if succeeded else "calls_failed"] += 1
        if e.duration_ms is not None:
            row["duration_count"] += 1
            row["duration_sum"] += e.duration_ms
    for f in counted_feedback(default_project_pk()).exclude(component_name=""):
        row = out[(f.component_name, hour_of(f.ts))]
        row["score_count"] += 1
        row["score_weight"] += f.confidence
        row["score_weighted_sum"] += f.confidence * f.score
    return dict(out)


FIELDS = (
    "calls_total",
    "calls_success",
    "calls_failed",
    "duration_count",
    "duration_sum",
    "score_count",
    "score_weight",
    "score_weighted_sum",
)


def stored() -> dict[tuple[str, int], dict[str, Any]]:
    return {
        (b.component_name, b.hour): {f: getattr(b, f) for f in FIELDS}
        for b in ComponentBucket.objects.all()
    }


def assert_buckets_match() -> None:
    expected, actual = recomputed(), stored()
    assert set(actual) == set(expected)
    for key, row in expected.items():
        assert actual[key] == pytest.approx(row), key


def test_buckets_equal_a_recomputation_after_batches_across_hour_boundaries(
    clock: Any,
) -> None:
    policy = behaviour_policy
    experience_store(
        principal=AGENT,
        experiences=calls(
            ("search", H - 1, 1.0, None, 100.0),
            ("search", H, -1.0, None, 300.0),  # the next hour's first second
            ("search", H + 5, 0.0, False, None),
            ("browse", 2 * H - 0.5, 0.2, True, 50.0),
            ("", H, 1.0, None, 10.0),  # no component: no call of any
        ),
        policy=policy,
    )
    experience_store(
        principal=ENV,  # an environment's rewards are also env feedback, in the same hours
        experiences=calls(("search", H + 10, -0.5, None, 200.0), ("browse", 7 * H, 1.0, None, 1)),
        policy=policy,
    )
    feedback_record(
        principal=AGENT,
        feedbacks=scores(
            ("search", H - 2, 0.5, 1.0),
            ("search", 3 * H, -1.0, 0.25),
            ("browse", 2 * H, 1.0, 0.5),
            ("", 2 * H, 1.0, 0.5),
        ),
    )
    # A batch again: the same hours add up, across batches.
    experience_store(
        principal=AGENT,
        experiences=calls(
            ("search", H + 1, 1.0, True, 20.0), ("search", TIMESTAMP_MAX, 1.0, None, 1.0)
        ),
        policy=policy,
    )
    assert_buckets_match()
    assert stored()[("search", 1)]["calls_total"] == 4
    assert ("search", hour_of(TIMESTAMP_MAX)) in stored()  # the latest time there is


def test_a_batch_over_hundreds_of_hours_is_counted_in_each(clock: Any) -> None:
    experience_store(
        principal=AGENT,
        experiences=calls(*((f"c{i % 3}", i * H / 2, 1.0, None, float(i)) for i in range(600))),
        policy=behaviour_policy,
    )
    feedback_record(
        principal=AGENT, feedbacks=scores(*(("c0", i * H, 0.5, 1.0) for i in range(400)))
    )
    assert len(stored()) > 400
    assert_buckets_match()


def test_a_retracted_rating_leaves_its_hour_as_a_recomputation_has_it(clock: Any) -> None:
    TurnFactory.create(correlation_id="t-1")
    ts = 5 * H + 30
    feedback_record(
        principal=ANN,
        feedbacks=[
            FeedbackItem(
                feedback_id="mine",
                correlation_id="t-1",
                component_name="search",
                score=-0.5,
                confidence=0.8,
                ts=ts,
                polarity=FeedbackPolarity.NEGATIVE,
            ),
            *scores(("search", ts, 1.0, 1.0)),
        ],
    )
    queue_undo(ANN, "mine")

    assert_buckets_match()
    assert stored()[("search", 5)]["score_count"] == 1


def _migrate(*targets: tuple[str, str]) -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(list(targets) or executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_the_migration_fills_the_buckets_from_what_was_stored_before(clock: Any) -> None:
    experience_store(
        principal=ENV,
        experiences=calls(("search", H - 1, 1.0, None, 100.0), ("search", 9 * H, -1.0, None, None)),
        policy=behaviour_policy,
    )
    feedback_record(principal=AGENT, feedbacks=scores(("browse", 2 * H, 0.5, 0.5)))
    kept = stored()

    _migrate(("feedback", "0005_feedback_submitted_by_unindexed"))
    _migrate()

    again = stored()
    assert set(again) == set(kept)
    for key, row in kept.items():
        assert again[key] == pytest.approx(row), key


def test_ingest_inside_the_measurement_switch_leaves_the_buckets_as_they_are() -> None:
    with buckets_left_out():
        experience_store(
            principal=AGENT,
            experiences=calls(("a", 10 * H, 1.0, True, 5.0)),
            policy=behaviour_policy,
        )
        feedback_record(principal=ENV, feedbacks=scores(("a", 10 * H, 0.5, 1.0)))
    assert not ComponentBucket.objects.exists()

    experience_store(
        principal=AGENT, experiences=calls(("a", 10 * H, 1.0, True, 5.0)), policy=behaviour_policy
    )
    assert ComponentBucket.objects.get().calls_total == 1
