"""Existing people and tokens move into the project `default` with the roles they had; so do
existing feedback, experiences, components and webhook endpoints, and the feedback count is
recounted per project."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from core.accounts.models import ApiToken, User
from core.accounts.principals import principal_for_user
from core.accounts.roles import Role
from core.projects.guidelines import guidelines_current
from core.projects.models import GuidelinesVersion, Project
from core.projects.selection import project_pk
from core.projects.services import project_add
from feedback.counters import FEEDBACK_COUNTED
from feedback.models import (
    AgreementTotals,
    AgreementUnit,
    ComponentBucket,
    ComponentOwner,
    ComponentStats,
    Counter,
    Experience,
    Feedback,
    RewardBucket,
)
from feedback.selectors.overview import feedback_count
from refinement.models import HistoryEntry, Plan, Proposal, Step, StoreValue, Workflow
from webhooks.models import Endpoint
from webhooks.outbox import outbox_write

pytestmark = pytest.mark.django_db(transaction=True)


def test_people_and_machine_tokens_land_in_default_with_their_roles() -> None:
    call_command("migrate", "accounts", "0002", verbosity=0)  # before projects
    then = (
        MigrationExecutor(connection)
        .loader.project_state(("accounts", "0002_username_unique_in_any_case"))
        .apps
    )
    try:
        OldUser = then.get_model("accounts", "User")
        OldToken = then.get_model("accounts", "ApiToken")
        for name, role, root in (
            ("ann", "annotator", False),
            ("rev", "reviewer", False),
            ("su", "admin", True),
        ):
            OldUser.objects.create(username=name, password="!", role=role, is_superuser=root)
        OldToken.objects.create(name="bot", role="agent", key_hash="h" * 64, hint="lp_")
    finally:
        call_command("migrate", verbosity=0)
    roles = {u.username: principal_for_user(u).role for u in User.objects.all()}
    assert roles == {"ann": Role.ANNOTATOR, "rev": Role.REVIEWER, "su": Role.ADMIN}
    bot = ApiToken.objects.select_related("project").get(name="bot")
    assert bot.project is not None and bot.project.slug == "default"


def test_existing_feedback_and_its_agreement_land_in_default_and_ids_repeat_across_projects() -> (
    None
):
    call_command("migrate", "feedback", "0015", verbosity=0)  # before feedback had a project
    then = (
        MigrationExecutor(connection).loader.project_state(("feedback", "0015_rubrics_and_ratings"))
    ).apps
    try:
        OldFeedback = then.get_model("feedback", "Feedback")
        OldUnit = then.get_model("feedback", "AgreementUnit")
        OldTotals = then.get_model("feedback", "AgreementTotals")
        for person, score in (("ann", 0.5), ("bea", -0.5)):
            OldFeedback.objects.create(
                feedback_id=f"f-{person}",
                correlation_id="c-1",
                polarity="positive",
                score=score,
                dimension="correctness",
                confidence=1.0,
                source="human",
                annotator_id=person,
                ts=1.0,
                submitted_by=f"user:{person}",
                content_hash="",
                received=1.0,
            )
        OldUnit.objects.create(
            correlation_id="c-1", dimension="correctness", raters=2, total=0.0, squares=0.5
        )
        OldTotals.objects.create(dimension="correctness", units=1, values=2, squares=0.5)
    finally:
        call_command("migrate", verbosity=0)
    assert set(Feedback.objects.values_list("feedback_id", "project__slug")) == {
        ("f-ann", "default"),
        ("f-bea", "default"),
    }
    unit = AgreementUnit.objects.select_related("project").get()
    assert (unit.project.slug, unit.correlation_id, unit.raters) == ("default", "c-1", 2)
    assert AgreementTotals.objects.select_related("project").get().project.slug == "default"
    other = project_add(slug="other", name="Other")
    copy = Feedback.objects.get(feedback_id="f-ann")
    copy.pk, copy.project = None, other
    copy.save()  # the same feedback_id in another project is another feedback
    assert Feedback.objects.filter(feedback_id="f-ann").count() == 2


def test_existing_experiences_and_components_land_in_default_and_ids_repeat_across_projects() -> (
    None
):
    call_command("migrate", "feedback", "0016", verbosity=0)  # before experiences had a project
    then = (
        MigrationExecutor(connection).loader.project_state(("feedback", "0016_feedback_project"))
    ).apps
    try:
        then.get_model("feedback", "Experience").objects.create(
            experience_id="e-1",
            owner="token:bot",
            component_name="search",
            reward=1.0,
            state="{}",
            action="{}",
            next_state="{}",
            ts=1.0,
            content_hash="",
        )
        then.get_model("feedback", "ComponentStats").objects.create(
            component_name="search", calls_total=1
        )
        then.get_model("feedback", "ComponentOwner").objects.create(
            component_name="search", owner="token:bot", claimed=1.0
        )
        then.get_model("feedback", "ComponentBucket").objects.create(
            component_name="search", hour=0, calls_total=1
        )
        then.get_model("feedback", "RewardBucket").objects.create(
            component_name="search", span=100, bucket=0, count=1, reward_sum=1.0
        )
    finally:
        call_command("migrate", verbosity=0)
    for model in (Experience, ComponentStats, ComponentOwner, ComponentBucket, RewardBucket):
        assert list(model.objects.values_list("project__slug", flat=True)) == ["default"], model
    other = project_add(slug="other", name="Other")
    for model, key in ((Experience, "experience_id"), (ComponentStats, "component_name")):
        copy = model.objects.get()
        copy.pk, copy.project = None, other
        copy.save()  # the same id or name in another project is another row
        assert model.objects.filter(**{key: getattr(copy, key)}).count() == 2, model


def test_existing_weights_steps_plans_and_history_land_in_default() -> None:
    call_command("migrate", "refinement", "0005", verbosity=0)  # before refinement had projects
    then = (
        MigrationExecutor(connection).loader.project_state(
            ("refinement", "0005_proposal_id_per_principal")
        )
    ).apps
    try:
        then.get_model("refinement", "StoreValue").objects.create(
            path="router.weights.search", value=0.6, version=1
        )
        then.get_model("refinement", "Step").objects.create(step_id="plan")
        then.get_model("refinement", "Workflow").objects.create(global_skill_objective="be good")
        plan = then.get_model("refinement", "Plan").objects.create(
            plan_id="plan-1", requested_by="token:bot", created=1.0
        )
        then.get_model("refinement", "Proposal").objects.create(
            proposal_id="p-1",
            plan=plan,
            target="router_weight",
            op="update",
            path="router.weights.search",
            content_hash="h",
            requested_by="token:bot",
            created=1.0,
        )
        then.get_model("refinement", "HistoryEntry").objects.create(
            kind="plan", actor="token:bot", ts=1.0, plan_id="plan-1"
        )
    finally:
        call_command("migrate", verbosity=0)
    for model in (StoreValue, Step, Workflow, Plan, Proposal, HistoryEntry):
        assert list(model.objects.values_list("project__slug", flat=True)) == ["default"], model


def test_existing_webhook_endpoints_land_in_default_and_send_its_events_alone() -> None:
    call_command("migrate", "webhooks", "0002", verbosity=0)  # before endpoints had a project
    then = (
        MigrationExecutor(connection).loader.project_state(
            ("webhooks", "0002_delivery_log_indexes")
        )
    ).apps
    try:
        then.get_model("webhooks", "Endpoint").objects.create(
            url="http://127.0.0.1:9/hook",
            events=["feedback.recorded"],
            secret="whsec_x",
            created_by="boss",
        )
    finally:
        call_command("migrate", verbosity=0)
    endpoint = Endpoint.objects.select_related("project").get()
    assert endpoint.project.slug == "default"
    assert outbox_write("feedback.recorded", {"count": 1}, project="default") == 1
    project_add(slug="other", name="Other")
    assert outbox_write("feedback.recorded", {"count": 1}, project="other") == 0


def test_the_feedback_count_before_projects_is_recounted_per_project() -> None:
    call_command("migrate", "feedback", "0017", verbosity=0)  # before counters had a project
    then = (
        MigrationExecutor(connection).loader.project_state(("feedback", "0017_components_project"))
    ).apps
    try:
        other = then.get_model("projects", "Project").objects.create(slug="other", name="Other")
        OldFeedback = then.get_model("feedback", "Feedback")
        for n, project in enumerate(["default"] * 3 + ["other"] * 2):
            OldFeedback.objects.create(
                project=then.get_model("projects", "Project").objects.get(slug=project),
                feedback_id=f"f-{n}",
                polarity="positive",
                score=0.5,
                dimension="correctness",
                confidence=1.0,
                source="human",
                annotator_id="ann",
                ts=1.0,
                submitted_by="user:ann",
                content_hash="",
                received=1.0,
            )
        then.get_model("feedback", "Retraction").objects.create(
            feedback=OldFeedback.objects.get(feedback_id="f-4"), by="ann", created=2.0
        )
        # The one count of every project's feedback, as ingest kept it.
        then.get_model("feedback", "Counter").objects.create(name=FEEDBACK_COUNTED, slot=3, value=4)
    finally:
        call_command("migrate", verbosity=0)
    assert feedback_count(project_pk("default")) == 3
    assert feedback_count(other.pk) == 1
    assert Counter.objects.filter(name=FEEDBACK_COUNTED).count() == 2  # one row a project


def test_each_projects_guidelines_before_versions_become_its_version_1() -> None:
    call_command("migrate", "projects", "0001", verbosity=0)  # before guidelines had versions
    then = MigrationExecutor(connection).loader.project_state(("projects", "0001_initial")).apps
    try:
        OldProject = then.get_model("projects", "Project")
        OldProject.objects.filter(slug="default").update(guidelines="# Be kind")
        OldProject.objects.create(slug="other", name="Other")  # none written: no version
    finally:
        call_command("migrate", verbosity=0)
    versions = GuidelinesVersion.objects.select_related("project")
    assert [(v.project.slug, v.version, v.guidelines, v.questions, v.by) for v in versions] == [
        ("default", 1, "# Be kind", {}, "")
    ]
    assert guidelines_current(project_pk("default")).text == "# Be kind"
    other = Project.objects.get(slug="other")
    assert guidelines_current(other.pk).version == 0
    assert other.guidelines_ack_required is False
