"""The learning store's values (in the `default` project unless told), and plans of proposals filed as the planner files them."""

from __future__ import annotations

from typing import Any

import factory
from factory.django import DjangoModelFactory

from core.accounts.roles import Role
from core.projects.selection import default_project_pk
from refinement.models import Plan, Proposal, Step, StoreValue
from refinement.paths import Target, weight_path
from refinement.proposals import ProposalInput
from refinement.services.plans import plan_file
from refinement.vocabulary import LearningsAccess
from tests.factories.accounts import PrincipalFactory


class StoreValueFactory(DjangoModelFactory[StoreValue]):
    """A value stored before the test: a `component`'s routing weight of 0.5 unless told, or
    any other `path`'s. A path holds one value: made again, it is the one already there."""

    class Meta:
        model = StoreValue
        django_get_or_create = ("project_id", "path")

    class Params:
        component = factory.Sequence(lambda n: f"component-{n}")

    project_id = factory.LazyFunction(default_project_pk)
    path = factory.LazyAttribute(lambda o: weight_path(o.component))
    value = 0.5
    version = 1


class StepFactory(DjangoModelFactory[Step]):
    """A workflow step that may learn (read-write, with the objective that needs)."""

    class Meta:
        model = Step

    project_id = factory.LazyFunction(default_project_pk)
    step_id = factory.Sequence(lambda n: f"step-{n}")
    learnings_access = LearningsAccess.READ_WRITE.value
    learning_objective = "x"


class ProposalInputFactory(factory.Factory[ProposalInput]):
    """A proposed edit: a `component`'s weight from 0.5 to 0.55 unless told."""

    class Meta:
        model = ProposalInput

    class Params:
        component = "alpha"

    target = Target.ROUTER_WEIGHT
    op = "update"
    path = factory.LazyAttribute(lambda o: weight_path(o.component))
    old_value = 0.5
    new_value = 0.55


class PlanFactory(DjangoModelFactory[Plan]):
    """A plan of `proposals` (ProposalInputs; none unless told) filed by `by`, each with its
    automatic review and the history's entry."""

    class Meta:
        model = Plan

    by = factory.SubFactory(PrincipalFactory, role=Role.AGENT, name="bot")
    proposals = factory.LazyFunction(list)
    origin = "plan"
    summary = "a test plan"

    @classmethod
    def _create(cls, model_class: type[Plan], *args: Any, **kwargs: Any) -> Plan:
        by, proposals = kwargs.pop("by"), kwargs.pop("proposals")
        plan, _ = plan_file(by, proposals, **kwargs)
        return plan


class ProposalFactory(DjangoModelFactory[Proposal]):
    """The one proposal of a plan filed by `by`; the other fields are ProposalInputFactory's."""

    class Meta:
        model = Proposal

    by = factory.SubFactory(PrincipalFactory, role=Role.AGENT, name="bot")
    summary = "a test plan"

    @classmethod
    def _create(cls, model_class: type[Proposal], *args: Any, **kwargs: Any) -> Proposal:
        by, summary = kwargs.pop("by"), kwargs.pop("summary")
        proposal = ProposalInputFactory.build(**kwargs)
        _, (record,) = plan_file(by, [proposal], origin="plan", summary=summary)
        return record
