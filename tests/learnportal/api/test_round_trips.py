"""What a small learn/* request costs the database, pinned: the hot path's round trips.

A token's principal comes from the principal cache after its first use, so a warm request asks
the database nothing about who is calling; what is left is the request's own work. The counts
differ by backend only where PostgreSQL writes fresh rows with COPY (not a logged query) and
SQLite's test transaction adds no savepoint of its own.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.accounts import services
from core.accounts.credentials import usage
from core.accounts.models import ApiToken, User
from tests.builders import experience, experience_req, feedback, feedback_req, stats_req

if TYPE_CHECKING:
    from collections.abc import Callable

    from tests.harness import Actor

# Queries of one warm request, by backend (SAVEPOINT and RELEASE of the test's transaction
# included: in production they are the request's BEGIN and COMMIT).
PINNED = {
    "learn/stats/req": {"sqlite": 1, "postgresql": 1},  # the aggregates
    # savepoint, existing ids, whether the project weighs judges (an environment's feedback),
    # rows, counter, stats upsert, hour bucket, score read, release
    "learn/feedback/req": {"sqlite": 9, "postgresql": 8},
    # savepoint, existing ids, quota upsert, last id, components, policy, the components'
    # owners (claim, read: feedback.attribution), rows, reward sums (upsert, last id, prune),
    # stats (3), hour bucket, release
    "learn/experience/req": {"sqlite": 17, "postgresql": 16},
    # the same less the components and the policy: every action says its own probability
    "learn/experience/req with action_prob": {"sqlite": 15, "postgresql": 14},
}


def queries_of(actor: Actor, make: Callable[[], dict[str, Any]]) -> list[str]:
    actor.learn(make())  # warms the principal cache and records last_used_at
    with CaptureQueriesContext(connection) as captured:
        response = actor.learn(make())
    assert response.status_code == 200, response.content
    return [query["sql"] for query in captured.captured_queries]


@pytest.mark.parametrize(
    ("request_type", "who", "make"),
    [
        ("learn/stats/req", "agent", stats_req),
        ("learn/feedback/req", "env", lambda: feedback_req(feedback(component_name="c"))),
        ("learn/experience/req", "agent", lambda: experience_req(experience("c"))),
        (
            "learn/experience/req with action_prob",
            "agent",
            lambda: experience_req(experience("c", action={"action_prob": 0.5})),
        ),
    ],
)
def test_a_warm_learn_request_makes_its_pinned_round_trips(
    request: pytest.FixtureRequest, request_type: str, who: str, make: Callable[[], Any]
) -> None:
    actor: Actor = request.getfixturevalue(who)
    queries = queries_of(actor, make)
    assert len(queries) == PINNED[request_type][connection.vendor], queries
    assert not [q for q in queries if "accounts_apitoken" in q or "accounts_user" in q]


def test_a_token_is_read_from_the_database_once_for_many_requests(agent: Actor) -> None:
    agent.learn(stats_req())
    with CaptureQueriesContext(connection) as captured:
        for _ in range(20):
            assert agent.learn(stats_req()).status_code == 200
    assert not [q for q in captured.captured_queries if "accounts_apitoken" in q["sql"]]


def test_last_used_is_written_once_a_minute_not_per_request(
    agent: Actor, time_machine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    time_machine.move_to(timezone.now(), tick=False)
    monkeypatch.setattr(usage, "clock", lambda: timezone.now().timestamp())
    assert agent.learn(stats_req()).status_code == 200
    first = ApiToken.objects.get(name="agent-1").last_used_at
    assert first is not None
    time_machine.shift(timedelta(seconds=30))
    assert agent.learn(stats_req()).status_code == 200
    assert ApiToken.objects.get(name="agent-1").last_used_at == first
    time_machine.shift(timedelta(seconds=31))
    assert agent.learn(stats_req()).status_code == 200
    last = ApiToken.objects.get(name="agent-1").last_used_at
    assert last is not None and last > first


# --- the cache never outlives a change (the attacker's view) ------------------------------


def test_a_cached_token_revoked_is_refused_on_the_very_next_request(agent: Actor) -> None:
    assert agent.learn(stats_req()).status_code == 200
    services.token_revoke(token=ApiToken.objects.get(name="agent-1"))
    response = agent.learn(feedback_req(feedback(component_name="c")))
    assert (response.status_code, response.json()["code"]) == (401, "unauthenticated")


def test_a_cached_person_demoted_is_judged_by_the_new_role_on_the_next_request(
    boss: Actor,
) -> None:
    assert boss.learn(experience_req(experience("c"))).status_code == 200
    actor = User.objects.get(username="boss")
    other = services.person_add(username="root2", role="admin", password="long-enough-1")
    services.person_set_role(actor=other, person=actor, role="annotator")
    response = boss.learn(experience_req(experience("c")))
    assert (response.status_code, response.json()["code"]) == (403, "forbidden")


def test_a_cached_person_deactivated_is_refused_on_the_next_request(boss: Actor) -> None:
    assert boss.learn(stats_req()).status_code == 200
    other = services.person_add(username="root2", role="admin", password="long-enough-1")
    services.person_set_active(actor=other, person=User.objects.get(username="boss"), active=False)
    assert boss.learn(stats_req()).status_code == 401
