from __future__ import annotations

from typing import TYPE_CHECKING

from tests.refinement.learning_store.helpers import learn

if TYPE_CHECKING:
    from tests.harness import Actor


def test_it_shows_a_weight_once_an_applied_proposal_set_it(agent: Actor, ann: Actor) -> None:
    proposal = {
        "target": "router_weight",
        "op": "update",
        "path": "router.weights.search",
        "old_value": 0.5,
        "new_value": 0.55,
    }
    reply = learn(agent, "apply", proposal=proposal)
    assert reply["applied_edits"] == 1, reply

    body = ann.client.get("/api/routing/").json()

    assert body["weights"] == {"search": 0.55}
    assert body["updated"] > 0


def test_it_answers_with_no_weights_before_any_were_set(ann: Actor) -> None:
    assert ann.client.get("/api/routing/").json() == {"weights": {}, "updated": 0.0}


def test_it_refuses_a_caller_without_a_token(anonymous: Actor) -> None:
    response = anonymous.client.get("/api/routing/")

    assert response.status_code == 401
    assert response.json()["code"] == "unauthenticated"
