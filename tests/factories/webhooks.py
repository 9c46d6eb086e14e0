"""Admins' endpoints, registered as the pages register them (in `default` unless told), and rows
of their outbox."""

from __future__ import annotations

import time
from typing import Any

import factory
from factory.django import DjangoModelFactory

from core.projects.selection import default_project_pk
from webhooks.models import Delivery, DeliveryState, Endpoint
from webhooks.outbox import new_message_id
from webhooks.services import endpoint_register


class EndpointFactory(DjangoModelFactory[Endpoint]):
    """An endpoint for plan.filed unless told; its `secret` is the one its receiver verifies.

    Its address is this machine's, which only LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE admits (as
    tests/webhooks' conftest sets it).
    """

    class Meta:
        model = Endpoint

    project = factory.LazyFunction(default_project_pk)  # a project's id: `default` unless told
    url = factory.Sequence(lambda n: f"http://127.0.0.1:9/hook/{n}")  # nothing listens on 9
    events = factory.LazyFunction(lambda: ["plan.filed"])
    actor = "boss"

    @classmethod
    def _create(cls, model_class: type[Endpoint], *args: Any, **kwargs: Any) -> Endpoint:
        endpoint, _ = endpoint_register(**kwargs)
        return endpoint


class DeliveryFactory(DjangoModelFactory[Delivery]):
    """An outbox row of plan.filed for an endpoint, pending and due now unless told."""

    class Meta:
        model = Delivery

    endpoint = factory.SubFactory(EndpointFactory)
    event = "plan.filed"
    message_id = factory.LazyFunction(new_message_id)
    body = "{}"
    created_at = factory.LazyFunction(time.time)
    state = DeliveryState.PENDING
    next_attempt_at = factory.SelfAttribute("created_at")
