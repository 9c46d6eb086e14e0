"""The factories make what the host would: each row through its service, valid as stored."""

from __future__ import annotations

from typing import Any

import pytest

from core.accounts.principals import principal_for_token
from core.accounts.roles import Role
from feedback.models import Feedback
from refinement.store import routing_weights
from tests.factories import (
    PASSWORD,
    ApiTokenFactory,
    DeliveryFactory,
    EndpointFactory,
    ExperienceFactory,
    FeedbackFactory,
    PlanFactory,
    PrincipalFactory,
    ProposalFactory,
    StoreValueFactory,
    TurnFactory,
    UserFactory,
)
from tests.harness import default_pk

pytestmark = pytest.mark.django_db


def test_a_principal_is_human_by_its_role() -> None:
    assert PrincipalFactory.build(role=Role.REVIEWER).is_human
    assert not PrincipalFactory.build(role=Role.ENVIRONMENT).is_human


def test_a_person_logs_in_with_the_password_and_an_admin_is_a_superuser() -> None:
    boss = UserFactory.create(username="boss", role="admin")
    assert boss.check_password(PASSWORD)
    assert boss.is_superuser and boss.is_staff
    assert not UserFactory.create().is_superuser


def test_a_tokens_raw_value_authenticates_as_its_machine_or_its_person() -> None:
    machine = ApiTokenFactory.create(name="gym-9", role="environment")
    assert principal_for_token(machine.raw) == PrincipalFactory.build(
        role=Role.ENVIRONMENT, name="gym-9", token_id=machine.token.pk
    )
    person = UserFactory.create(username="rita", role="reviewer")
    own = ApiTokenFactory.create(user=person)
    found = principal_for_token(own.raw)
    assert found is not None and (found.name, found.role) == ("rita", Role.REVIEWER)


def test_a_turn_is_queued_needing_its_ratings_and_a_rating_of_it_counts() -> None:
    turn = TurnFactory.create(correlation_id="t-1")
    assert (turn.ratings_needed, turn.submitted_by) == (1, "token:agent-1")
    rating = FeedbackFactory.create(turn=turn, score=-0.5)
    assert (rating.source, rating.annotator_id, rating.polarity) == ("human", "ann", "negative")
    turn.refresh_from_db()
    assert turn.ratings_needed == 0


def test_feedback_and_experience_take_their_senders_source() -> None:
    agent = PrincipalFactory.build(role=Role.AGENT, name="bot")
    assert FeedbackFactory.create(by=agent).source == "self"
    call = ExperienceFactory.create(reward=1.0)
    assert (call.owner, call.component_name) == ("token:gym-1", "search")
    assert Feedback.objects.get(feedback_id=f"env_{call.experience_id}").source == "env"


def test_a_stored_weight_is_read_by_the_routing() -> None:
    StoreValueFactory.create(component="alpha", value=0.42)
    assert routing_weights(default_pk()) == {"alpha": 0.42}


def test_a_filed_proposal_has_its_automatic_review_in_its_plan() -> None:
    proposal = ProposalFactory.create(new_value=0.6)
    assert proposal.plan is not None and proposal.plan.status == "ready"
    assert list(proposal.reviews.values_list("kind", flat=True)) == ["auto"]
    assert PlanFactory.create().status == "empty"


def test_an_endpoint_keeps_the_secret_its_deliveries_are_signed_with(settings: Any) -> None:
    settings.LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE = True  # the endpoints are never called
    delivery = DeliveryFactory.create()
    assert delivery.endpoint.secret.startswith("whsec_")
    assert EndpointFactory.create().url != delivery.endpoint.url
