"""What the feedback service keeps at ingest for agreement (feedback.moments) and the overview
(feedback.counters): always what a recount from the stored rows gives."""

from __future__ import annotations

import io
import random
import threading
from typing import TYPE_CHECKING, Any

import krippendorff
import numpy as np
import pytest
from django.core.management import call_command
from django.db import connections

from core.accounts.roles import Role
from core.projects.models import DEFAULT_PROJECT
from core.projects.selection import default_project_pk
from feedback import counters
from feedback.agreement import alpha_interval_from_sums
from feedback.counters import FEEDBACK_COUNTED, counter_value, counters_rebuild
from feedback.models import AgreementTotals, AgreementUnit, Counter, Feedback
from feedback.moments import moments_rebuild
from feedback.queue import queue_undo
from feedback.selectors.agreement import agreement_read, human_scores
from feedback.selectors.overview import feedback_count
from feedback.selectors.visibility import counted_feedback
from feedback.services.experiences import experience_store
from feedback.services.feedbacks import feedback_record
from learnportal_protocol import (
    Experience,
    FeedbackDimension,
    FeedbackSource,
)
from learnportal_protocol import Feedback as FeedbackItem
from learnportal_protocol.models import Action as ExperienceAction
from tests.factories import FeedbackItemFactory, PrincipalFactory, TurnFactory

if TYPE_CHECKING:
    from pytest_django import Settings

    from core.accounts.principals import Principal

pytestmark = pytest.mark.django_db

AGENT = PrincipalFactory.build(role=Role.AGENT, name="agent-1")
ENV = PrincipalFactory.build(role=Role.ENVIRONMENT, name="gym-1")
PEOPLE = [PrincipalFactory.build(role=Role.ANNOTATOR, name=f"p{i}") for i in range(4)]


@pytest.fixture(autouse=True)
def _several_raters_a_turn(settings: Any) -> None:
    # Several people rate each turn here: a turn takes as many as it needs, no more
    # (feedback.raters), so it needs them.
    settings.LEARNPORTAL_RATINGS_PER_TURN = 8


def queue(*names: str) -> None:
    for name in names:
        TurnFactory.create(correlation_id=name)


def item(key: str, score: float, dimension: str = "helpfulness", **fields: Any) -> FeedbackItem:
    return FeedbackItemFactory.build(
        correlation_id=key,
        component_name="search",
        score=score,
        dimension=FeedbackDimension(dimension),
        **fields,
    )


def send(who: Principal, *items: FeedbackItem) -> None:
    feedback_record(principal=who, feedbacks=list(items))


def kept() -> tuple[dict[tuple[str, str], tuple[Any, ...]], dict[str, tuple[Any, ...]]]:
    """The units with scores, and the totals, as stored now."""
    units = {
        (u.correlation_id, u.dimension): (u.raters, u.total, u.squares, u.spread, u.variance)
        for u in AgreementUnit.objects.filter(raters__gt=0)
    }
    totals = {
        t.dimension: (t.units, t.values, t.total, t.squares, t.observed)
        for t in AgreementTotals.objects.exclude(units=0, values=0)
    }
    return units, totals


def assert_kept(units: dict[Any, tuple[Any, ...]], totals: dict[str, tuple[Any, ...]]) -> None:
    """What is stored now is `units` and `totals`, but for rounding."""
    now_units, now_totals = kept()
    assert now_units.keys() == units.keys()
    for key, value in units.items():
        assert now_units[key] == pytest.approx(value, abs=1e-9), key
    assert now_totals.keys() == totals.keys()
    for key, value in totals.items():
        assert now_totals[key] == pytest.approx(value, abs=1e-9), key


def assert_same_as_a_recount() -> None:
    units, totals = kept()
    moments_rebuild()
    assert_kept(units, totals)


def latest_matrix(dimension: str) -> list[list[float]]:
    """People x turns of each person's latest counted human score, NaN for none: recomputed
    from the stored rows, for the `krippendorff` package."""
    rows = human_scores(DEFAULT_PROJECT)
    latest: dict[tuple[str, str], tuple[int, float]] = {}
    for pk, dim, key, person, score in zip(
        rows.id, rows.dimension, rows.correlation_id, rows.annotator_id, rows.score, strict=True
    ):
        if dim == dimension and latest.get((person, key), (0, 0.0))[0] < pk:
            latest[(person, key)] = (pk, score)
    people = sorted({p for p, _ in latest})
    keys = sorted({k for _, k in latest})
    matrix = np.full((len(people), len(keys)), np.nan)
    for (person, key), (_, score) in latest.items():
        matrix[people.index(person), keys.index(key)] = score
    return matrix.tolist()


def test_moments_follow_ratings_replacements_undos_and_batches_as_a_recount_gives() -> None:
    queue(*[f"t-{i}" for i in range(8)])
    rng = random.Random(4)
    ids: dict[str, list[str]] = {p.name: [] for p in PEOPLE}
    for who in PEOPLE:
        batch = [
            item(f"t-{i}", rng.choice([-1.0, -0.5, 0.0, 0.25, 0.5, 1.0]), dimension=dim)
            for i in range(8)
            for dim in ("helpfulness", "correctness")
            if rng.random() < 0.7
        ]
        send(who, *batch)
        ids[who.name] = [b.feedback_id for b in batch]
    assert_same_as_a_recount()
    # A person changes their mind: their later score replaces the earlier one.
    send(PEOPLE[0], item("t-0", -1.0), item("t-1", 1.0, dimension="correctness"))
    assert_same_as_a_recount()
    # An undo takes the score out (the earlier one of that person counts again, if any).
    queue_undo(PEOPLE[1], ids[PEOPLE[1].name][-1])
    queue_undo(PEOPLE[0], Feedback.objects.filter(annotator_id="p0").latest("id").feedback_id)
    assert_same_as_a_recount()
    # Machines' feedback and feedback about no turn change nothing.
    before = kept()
    send(AGENT, item("t-0", -1.0), item("t-2", 1.0))
    send(PEOPLE[2], item("", 0.5))
    assert kept() == before
    for dimension in ("helpfulness", "correctness"):
        row = next(
            r
            for r in agreement_read(DEFAULT_PROJECT).agreement.dimensions
            if r.dimension == dimension
        )
        matrix = latest_matrix(dimension)
        expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval")
        assert row.alpha == pytest.approx(float(expected))


def test_a_unit_is_kept_from_its_second_score_until_an_undo_leaves_it_one() -> None:
    queue("t-1")
    send(PEOPLE[0], item("t-1", 0.5))
    assert kept() == ({}, {})  # one score pairs with nothing
    second = item("t-1", -0.5)
    send(PEOPLE[1], second)
    # m = 2, sum 0, squares 0.5, range 1, variance 0.25; observed m * SS / (m - 1) = 1
    assert_kept(
        {("t-1", "helpfulness"): (2, 0.0, 0.5, 1.0, 0.25)}, {"helpfulness": (1, 2, 0.0, 0.5, 1.0)}
    )
    queue_undo(PEOPLE[1], second.feedback_id)
    assert kept() == ({}, {})


def test_a_retry_of_a_batch_stores_nothing_and_moves_nothing() -> None:
    queue("t-1")
    batch = [item("t-1", 0.5, feedback_id="a"), item("t-1", 0.25, feedback_id="b")]
    send(PEOPLE[0], batch[0])
    send(PEOPLE[1], batch[1])
    before = kept(), feedback_count(default_project_pk())
    send(PEOPLE[0], batch[0])
    send(PEOPLE[1], batch[1])
    assert (kept(), feedback_count(default_project_pk())) == before
    assert AgreementUnit.objects.get().raters == 2


def test_the_overviews_count_stays_exact_through_batches_retries_undos_and_env_rewards(
    settings: Settings,
) -> None:
    settings.LEARNPORTAL_FORWARD_ENV_REWARDS = True
    queue("t-1", "t-2")
    send(AGENT, *[item(f"x-{i}", 0.1) for i in range(30)])
    send(PEOPLE[0], item("t-1", 0.5, feedback_id="mine"), item("t-2", 0.5))
    send(PEOPLE[0], item("t-1", 0.5, feedback_id="mine"))  # a retry: stored once
    # Feedback that takes the id an environment's forwarded reward would have: the reward is
    # not stored again, and not counted.
    send(
        AGENT, item("x-env", 0.1, feedback_id="env_e-1"), item("x-env", 0.1, feedback_id="env_e-2")
    )
    experiences = [
        Experience(experience_id=f"e-{i}", action=ExperienceAction(), reward=0.5) for i in range(5)
    ]
    for _ in range(2):  # the second time: nothing new, no reward forwarded again
        experience_store(principal=ENV, experiences=experiences, policy=lambda p, n: lambda c: None)
    queue_undo(PEOPLE[0], "mine")
    assert Feedback.objects.filter(source=FeedbackSource.ENV.value).count() == 3
    assert (
        feedback_count(default_project_pk())
        == counted_feedback(default_project_pk()).count()
        == 30 + 2 + 2 + 3 - 1
    )
    assert Counter.objects.filter(name=FEEDBACK_COUNTED).count() <= 8  # a few slots, not rows


def test_the_counter_sums_its_slots_and_a_rebuild_recounts_it() -> None:
    send(AGENT, *[item(f"x-{i}", 0.1) for i in range(3)])
    other = (counters._slot() + 1) % counters.SLOTS  # another process's slot
    Counter.objects.filter(name=FEEDBACK_COUNTED, slot=other).delete()  # the migration's row
    project = default_project_pk()
    Counter.objects.create(project_id=project, name=FEEDBACK_COUNTED, slot=other, value=4)
    assert counter_value(FEEDBACK_COUNTED, project=project) == 7
    assert counters_rebuild() == {project: {FEEDBACK_COUNTED: 3}}
    assert feedback_count(default_project_pk()) == 3


def test_the_widest_disagreements_are_read_off_the_units_index(
    django_assert_max_num_queries: Any,
) -> None:
    queue("near", "far", "same")
    for who, scores in zip(PEOPLE, [(0.5, -1.0, 0.5), (0.6, 1.0, 0.5)], strict=False):
        send(who, item("near", scores[0]), item("far", scores[1]), item("same", scores[2]))
    with django_assert_max_num_queries(4):
        report = agreement_read(DEFAULT_PROJECT, disagreements=5)
    assert [(d.correlation_id, d.spread) for d in report.disagreements] == [
        ("far", 2.0),
        ("near", pytest.approx(0.1)),
    ]
    assert report.disagreements[0].scores == [("p0", -1.0), ("p1", 1.0)]
    assert report.disagreements[0].variance == pytest.approx(1.0)
    assert report.disagreements[0].turn_id is not None


def test_alpha_reads_one_row_a_dimension(django_assert_num_queries: Any) -> None:
    queue("a", "b")
    send(PEOPLE[0], item("a", 0.1), item("b", 0.9))
    send(PEOPLE[1], item("a", 0.2), item("b", 0.8))
    with django_assert_num_queries(1):
        report = agreement_read(DEFAULT_PROJECT)
    row = next(r for r in report.agreement.dimensions if r.dimension == "helpfulness")
    expected = krippendorff.alpha(
        reliability_data=[[0.1, 0.9], [0.2, 0.8]], level_of_measurement="interval"
    )
    assert row.alpha == pytest.approx(float(expected))
    assert (row.turns, row.ratings) == (2, 4)


def test_the_sums_formula_agrees_with_the_package_on_random_data() -> None:
    rng = np.random.default_rng(3)
    matrix = rng.integers(0, 5, size=(4, 40)).astype(float)
    matrix[rng.random(matrix.shape) < 0.3] = np.nan
    present = ~np.isnan(matrix)
    m = present.sum(axis=0)
    s = np.where(present, matrix, 0).sum(axis=0)
    q = np.where(present, matrix**2, 0).sum(axis=0)
    keep = m >= 2
    m, s, q = m[keep], s[keep], q[keep]
    observed = (m * (q - s * s / m) / (m - 1)).sum()
    alpha = alpha_interval_from_sums(int(keep.sum()), m.sum(), s.sum(), q.sum(), observed).alpha
    expected = krippendorff.alpha(reliability_data=matrix, level_of_measurement="interval")
    assert alpha == pytest.approx(float(expected))


def test_the_recount_command_fills_rows_written_around_the_service() -> None:
    queue("t-1", "t-2")
    send(PEOPLE[0], item("t-1", 0.5), item("t-2", -0.5))
    send(PEOPLE[1], item("t-1", 0.0), item("t-2", 0.5))
    units, totals = kept()
    AgreementUnit.objects.all().delete()
    AgreementTotals.objects.all().delete()
    Counter.objects.all().delete()
    call_command("feedback_recount", stderr=io.StringIO())
    assert_kept(units, totals)
    assert feedback_count(default_project_pk()) == 4


def _at_once(people: list[Principal], key: str) -> None:
    barrier = threading.Barrier(len(people))
    errors: list[BaseException] = []

    def rate(who: Principal, score: float) -> None:
        try:
            barrier.wait(timeout=10)
            send(who, item(key, score))
        except BaseException as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=rate, args=(who, i / 4)) for i, who in enumerate(people)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors, errors


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_people_rating_one_unit_at_once_on_postgresql_are_all_in_its_moments() -> None:
    queue("queued")
    for key in ("queued", "never-queued"):  # a turn's lock, or the unit's own
        _at_once(PEOPLE, key)
        unit = AgreementUnit.objects.get(correlation_id=key)
        assert unit.raters == len(PEOPLE)
        assert unit.total == pytest.approx(1.5)
    assert_same_as_a_recount()
    assert (
        feedback_count(default_project_pk())
        == counted_feedback(default_project_pk()).count()
        == 2 * len(PEOPLE)
    )
