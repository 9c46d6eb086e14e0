from __future__ import annotations

from django.urls import path, register_converter
from django.urls.converters import PathConverter

from refinement import api, component_pages, pages, plan_decisions, skill_pages


class ComponentNameConverter(PathConverter):
    """Any text, a newline too: a component name stored before names refused control
    characters still has its page (and a link to it that reverses)."""

    regex = r"(?s:.+)"


register_converter(ComponentNameConverter, "component")

# Under /api/ (learnportal.urls).
urlpatterns = [
    path("routing/", api.RoutingView.as_view(), name="routing"),
    path("skills/", api.SkillsView.as_view(), name="skills"),
    path("skills/<path:path>", api.SkillView.as_view(), name="skill"),
    path("steps/", api.StepsView.as_view(), name="steps"),
    path("steps/<str:step_id>/", api.StepView.as_view(), name="step"),
    path("steps/<str:step_id>/runs/", api.StepRunsView.as_view(), name="step-runs"),
    path("plans/", api.PlansView.as_view(), name="plans"),
    path("plans/<str:plan_id>/", api.PlanView.as_view(), name="plan"),
    path(
        "proposals/<str:proposal_id>/approve/", api.ApproveView.as_view(), name="proposal-approve"
    ),
    path("proposals/<str:proposal_id>/reject/", api.RejectView.as_view(), name="proposal-reject"),
    path("proposals/<str:proposal_id>/apply/", api.ApplyView.as_view(), name="proposal-apply"),
    path(
        "refinements/<str:refinement_id>/rollback/",
        api.RollbackView.as_view(),
        name="refinement-rollback",
    ),
    path("history/", api.HistoryView.as_view(), name="history"),
]

# The reviewers' pages, under / in the `portal` namespace (learnportal.urls).
page_urlpatterns = [
    path("plans/", pages.plan_index, name="plans"),
    path("plans/<str:plan_id>/", pages.plan_show, name="plan"),
    path(
        "plans/<str:plan_id>/proposals/<str:proposal_id>/<str:decision>/",
        pages.proposal_decide,
        name="decide",
    ),
    path(
        "plans/<str:plan_id>/all/<str:decision>/",
        plan_decisions.plan_decide_all,
        name="decide-all",
    ),
    path(
        "plans/<str:plan_id>/refinements/<str:refinement_id>/rollback/",
        pages.refinement_undo,
        name="rollback",
    ),
    path("history/", pages.history_index, name="history"),
    path("components/", component_pages.component_index, name="components"),
    path("components/<component:name>/", component_pages.component_show, name="component"),
    path("skills/", skill_pages.skill_index, name="skills"),
    path("skills/<path:path>", skill_pages.skill_show, name="skill"),
    path("steps/<str:step_id>/", skill_pages.step_show, name="step"),
    path("steps/<str:step_id>/settings/", skill_pages.step_edit, name="step-edit"),
    path(
        "steps/<str:step_id>/refinements/<str:refinement_id>/rollback/",
        skill_pages.step_rollback,
        name="step-rollback",
    ),
]
