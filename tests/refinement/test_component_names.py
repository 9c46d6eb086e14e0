"""A stored component name that cannot be a routing path never breaks adapt, plan or review."""

from __future__ import annotations

import pytest
from django.conf import settings

from feedback.models import ComponentStats
from refinement.models import Plan
from tests.builders import adapt_req, plan_req
from tests.harness import Actor, Send, default_pk, ok
from tests.refinement.helpers import corrections, two_arms, weighted

ON_POSTGRES = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql"
BAD_NAMES = [
    pytest.param(
        "m" * 386,
        id="386-characters",
        # PostgreSQL refuses to store it at all (varchar(200)); SQLite keeps it.
        marks=pytest.mark.skipif(ON_POSTGRES, reason="PostgreSQL never stores such a name"),
    ),
    pytest.param("two\nlines", id="newline"),
    pytest.param("bell\x07", id="control-character"),
]


def stored(name: str) -> None:
    """A component already in the stats under this name, as older hosts could store it."""
    ComponentStats.objects.create(
        project_id=default_pk(), component_name=name, calls_total=40, calls_success=40
    )


@pytest.mark.parametrize("name", BAD_NAMES)
def test_adapt_skips_a_name_that_cannot_be_a_routing_path(
    transport: Send, agent: Actor, name: str
) -> None:
    two_arms(agent)
    stored(name)

    body = ok(transport(agent, adapt_req("epsilon_greedy")))

    assert {r["component_name"] for r in body["updated"]} == {"alpha", "beta"}
    assert "skipped 1 component" in body["message"]
    assert weighted("alpha") > 0.5 > weighted("beta")
    assert set(Plan.objects.get(origin="adapt").proposals.values_list("path", flat=True)) <= {
        "router.weights.alpha",
        "router.weights.beta",
    }


@pytest.mark.parametrize("name", BAD_NAMES)
def test_plan_skips_a_name_that_cannot_be_a_routing_path(
    transport: Send, agent: Actor, weighted: None, name: str
) -> None:
    two_arms(agent)
    corrections(agent, "alpha", ["Quote the source line."])
    stored(name)

    body = ok(transport(agent, plan_req()))

    paths = {p["path"] for p in body["proposals"]}
    assert "router.weights.alpha" in paths
    assert "learnings/_global/references/alpha.md" in paths
    assert all(name not in path for path in paths)
    assert "skipped 1 component" in Plan.objects.get(plan_id=body["plan_id"]).summary
