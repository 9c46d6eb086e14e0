"""Apply, adapt and rollback write through one primitive, `refinement.services.edits.edits_apply`.

Compare-and-swap over every edit or none, a before-snapshot that matches the revisions, one
history entry, and a number of queries that does not grow with the edits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from core.accounts.principals import Principal, principal_for_token
from core.projects.selection import project_pk
from feedback.models import ComponentStats, Experience
from learnportal_protocol.errors import ErrorCode, LearnError
from refinement.adapt import adapt_run
from refinement.models import HistoryEntry, Plan, Refinement, Revision
from refinement.paths import Target, locate, weight_path
from refinement.services.apply import proposal_apply
from refinement.services.edits import Edit, edits_apply
from refinement.services.rollback import refinement_rollback
from tests.builders import weight_proposal
from tests.factories import StoreValueFactory
from tests.harness import default_pk
from tests.refinement.helpers import own, value_at, weight
from webhooks.outbox import subscriptions

if TYPE_CHECKING:
    from tests.harness import Actor

# What these take today (SQLite batches bulk statements more than PostgreSQL): pinned, so that
# a change that adds a statement per apply, or per edit, shows here.
# 17, the history entry's paths (one bulk insert), the trust window (one read), the savepoint
# around a new proposal's insert (a concurrent one of the same principal's id), and the weight's
# owner (feedback.attribution).
ONE_APPLY_QUERIES = 22
ADAPT_300_QUERIES = 47  # 46, and the history paths of its entries


def edit(component: str, before: float, after: float) -> Edit:
    location = locate(Target.ROUTER_WEIGHT, weight_path(component))
    assert location is not None
    return Edit(location, before, after)


def snapshot_of(refinement: Refinement) -> list[tuple[str, object, object]]:
    return [(e["path"], e["before"], e["after"]) for e in refinement.edits]


def revisions_of(refinement: Refinement) -> list[tuple[str, object, object]]:
    rows = Revision.objects.filter(refinement=refinement).order_by("id")
    return [(r.path, r.before, r.after) for r in rows]


@pytest.fixture
def machine(agent: Actor) -> Principal:
    principal = principal_for_token(agent.token)
    assert principal is not None
    assert principal is not None
    return principal


def test_one_stale_edit_refuses_them_all_and_writes_nothing(machine: Principal) -> None:
    StoreValueFactory.create(component="beta", value=0.7)
    plan = Plan.objects.create(
        project_id=default_pk(), plan_id="plan-x", requested_by=machine.key, created=0.0
    )

    with pytest.raises(LearnError) as refused, transaction.atomic():
        edits_apply(
            machine,
            plan,
            [edit("alpha", 0.5, 0.6), edit("beta", 0.5, 0.6)],
            message="two weights",
        )

    assert refused.value.code is ErrorCode.CONFLICT
    assert [d["msg"] for d in refused.value.details] == [
        "router.weights.beta: expected 0.5, found 0.7"
    ]
    assert (weight("alpha"), weight("beta")) == (None, 0.7)
    assert not Refinement.objects.exists()
    assert not Revision.objects.exists()
    assert not HistoryEntry.objects.exists()


def test_apply_adapt_and_rollback_each_keep_a_snapshot_that_matches_their_revisions(
    machine: Principal,
) -> None:
    ComponentStats.objects.bulk_create(
        ComponentStats(project_id=default_pk(), component_name=name, calls_total=30)
        for name in ("alpha", "beta")
    )
    own(machine.key, "alpha", "beta")
    applied = proposal_apply(principal=machine, raw=weight_proposal("alpha", 0.5, 0.55))
    adapted = adapt_run(principal=machine, component_name="", strategy="ucb1")
    adapt_refinement = Refinement.objects.get(plan__plan_id=adapted.plan_id)
    rolled = refinement_rollback(principal=machine, refinement_id=adapt_refinement.refinement_id)

    written = [applied.refinement_id, adapt_refinement.refinement_id, rolled.rollback_refinement_id]
    for refinement_id in written:
        refinement = Refinement.objects.get(refinement_id=refinement_id)
        assert snapshot_of(refinement) == revisions_of(refinement), refinement_id
        entries = HistoryEntry.objects.filter(refinement_id=refinement_id)
        assert [(e.kind, e.diff) for e in entries] == [
            ("rollback" if refinement.rollback_of_id else "apply", refinement.edits)
        ]
    assert value_at(Target.ROUTER_WEIGHT, weight_path("alpha")) == pytest.approx(0.55)


def test_applying_one_proposal_takes_a_bounded_number_of_queries(machine: Principal) -> None:
    subscriptions()  # which webhooks to write is read once a while, not per apply: warm it
    project_pk(machine.project)  # and a project's id once a process: as an earlier test left it
    with CaptureQueriesContext(connection) as queries:
        outcome = proposal_apply(principal=machine, raw=weight_proposal("alpha", 0.5, 0.55))

    assert outcome.applied_edits == 1
    assert len(queries) <= ONE_APPLY_QUERIES, len(queries)


def test_an_adapt_of_three_hundred_weights_takes_a_bounded_number_of_queries(
    machine: Principal,
) -> None:
    names = [f"c{i:03d}" for i in range(300)]
    ComponentStats.objects.bulk_create(
        ComponentStats(project_id=default_pk(), component_name=n) for n in names
    )
    own(machine.key, *names)
    Experience.objects.bulk_create(
        Experience(
            experience_id=f"e{i}",
            owner=machine.key,
            component_name=names[i % 300],
            reward=1.0 if i % 3 else -1.0,
            behaviour_prob=1 / 300,
            state="{}",
            action="{}",
            next_state="{}",
            ts=float(i),
            content_hash="",
        )
        for i in range(3000)
    )
    adapt_run(principal=machine, component_name="", strategy="ucb1")

    with CaptureQueriesContext(connection) as queries:
        outcome = adapt_run(principal=machine, component_name="", strategy="ucb1")

    assert len(outcome.updated) == 300
    assert len(queries) <= ADAPT_300_QUERIES, len(queries)
