"""schemathesis, every check on, against the app in-process: the schema tells the truth.

Seeded and bounded: derandomized hypothesis, a few examples per operation, so that the run
stays short and fails the same way every time.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING, Any

import pytest
import schemathesis
from django.conf import settings as django_settings
from django.db import transaction
from hypothesis import HealthCheck, settings
from hypothesis.stateful import run_state_machine_as_test

from core.accounts.credentials import principals
from learnportal.wsgi import application
from tests.learnportal.api.schema import hooks  # noqa: F401  (registers what the schema cannot say)

if TYPE_CHECKING:
    from collections.abc import Iterator

SEED = 6
CONFIG = {
    "seed": SEED,
    "generation": {"mode": "all", "max-examples": 8, "deterministic": True},
    "phases": {"coverage": {"enabled": True}, "examples": {"enabled": True}},
    "suppress-health-check": ["all"],
}


# The schema endpoint needs no login and no database, so it loads once, at collection.
schema = schemathesis.openapi.from_wsgi(
    "/api/schema/?format=json", application, config=schemathesis.Config.from_dict(CONFIG)
)


@schema.auth(refresh_interval=None)
class AdminToken:
    """The personal token of the admin of the test running now (see `as_admin`)."""

    raw = ""

    def get(self, case: schemathesis.Case[Any], context: schemathesis.AuthContext) -> str:
        return AdminToken.raw

    def set(
        self, case: schemathesis.Case[Any], data: str, context: schemathesis.AuthContext
    ) -> None:
        case.headers["Authorization"] = f"Bearer {data}"


@pytest.fixture
def as_admin(admin_token: str) -> Iterator[None]:
    AdminToken.raw = admin_token
    yield
    AdminToken.raw = ""


@schema.parametrize()
@settings(deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None)
def test_every_answer_is_what_the_schema_says(case: schemathesis.Case[Any], as_admin: None) -> None:
    case.call_and_validate()


class IsolatedWorkflow(schema.as_state_machine()):  # type: ignore[misc]
    """Each scenario starts from the same database and counters: what one scenario wrote (a
    step run, a plan) or counted (a rate limit) would otherwise change what the next one's
    answers offer to draw from, and hypothesis refuses a draw that differs on replay."""

    def setup(self) -> None:
        self._savepoint = transaction.savepoint()
        django_settings.RATELIMIT_CACHE_PREFIX = f"rl:{uuid.uuid4().hex}:"
        principals.clear()

    def teardown(self) -> None:
        transaction.savepoint_rollback(self._savepoint)
        super().teardown()


def test_linked_operations_answer_what_the_schema_says(as_admin: None) -> None:
    """The stateful phase: ids from one answer (a plan, a proposal) drive the next request."""
    run_state_machine_as_test(
        IsolatedWorkflow,
        settings=settings(
            max_examples=12,
            stateful_step_count=6,
            derandomize=True,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        ),
    )
