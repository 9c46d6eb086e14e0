"""The compare-and-swap of `services.edits_apply`, by adapt's route: a weight that another writer
moves after adapt read it is neither overwritten nor half-applied; the adapt is refused, whole.

test_one_apply_path.py checks the same rule by calling `edits_apply` with a stale edit; here it is
learn/adapt over HTTP and WebSocket, with the other writer's change landing between adapt's read
of the weights and its write.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from refinement import adapt
from refinement.models import HistoryEntry, Plan, Refinement, Revision, StoreValue
from refinement.paths import weight_path
from tests.builders import adapt_req
from tests.harness import default_pk, refused
from tests.refinement.helpers import two_arms, weight

if TYPE_CHECKING:
    import pytest

    from core.accounts.principals import Principal
    from refinement.adapt import WeightStep
    from tests.harness import Actor, Send

SOMEONE_ELSES = 0.9


def test_a_weight_moved_while_adapting_is_not_overwritten_and_nothing_is_written(
    transport: Send, agent: Actor, monkeypatch: pytest.MonkeyPatch
) -> None:
    two_arms(agent)
    write = adapt.weights_apply

    def another_writer_first(
        principal: Principal, plan: Plan, steps: list[WeightStep]
    ) -> Refinement:
        # A reviewer's apply, say, committed after adapt read the weights and before it writes.
        StoreValue.objects.create(
            project_id=default_pk(), path=weight_path("alpha"), value=SOMEONE_ELSES, version=1
        )
        return write(principal, plan, steps)

    monkeypatch.setattr(adapt, "weights_apply", another_writer_first)

    body = refused(transport(agent, adapt_req("ppo")), 409, "conflict")

    assert body["message"] == "Routing weights changed while adapting; adapt again."
    assert body["details"] == [
        {"loc": ["component_name"], "msg": "router.weights.alpha: expected 0.5, found 0.9"}
    ]
    # All or nothing: beta, which nobody else moved, is not moved either. (The other writer's
    # row went with the refused transaction it was written in, here; never alpha's 0.6.)
    assert (weight("alpha"), weight("beta")) == (None, None)
    assert not Plan.objects.filter(origin="adapt").exists()
    assert not Refinement.objects.exists()
    assert not Revision.objects.exists()
    assert not HistoryEntry.objects.filter(kind="adapt").exists()
