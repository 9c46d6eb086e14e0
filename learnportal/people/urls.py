from __future__ import annotations

from django.urls import path

from learnportal.people import (
    guidelines_api,
    guidelines_pages,
    pages,
    project_pages,
    projects_api,
    rubric_pages,
)

# People and tokens, under / in the `portal` namespace (learnportal.urls).
page_urlpatterns = [
    path("accounts/", pages.people_index, name="people"),
    path("accounts/people/", pages.person_add, name="person-add"),
    path("accounts/people/<int:person_id>/role/", pages.person_role, name="person-role"),
    path("accounts/people/<int:person_id>/active/", pages.person_active, name="person-active"),
    path("accounts/tokens/", pages.token_index, name="tokens"),
    path("accounts/tokens/new/", pages.token_create, name="token-create"),
    path("accounts/tokens/<int:token_id>/revoke/", pages.token_revoke, name="token-revoke"),
    path("tokens/", pages.own_token_index, name="own-tokens"),
    path("tokens/new/", pages.own_token_create, name="own-token-create"),
    path("tokens/<int:token_id>/revoke/", pages.own_token_revoke, name="own-token-revoke"),
    path("choose-project/", project_pages.project_choice, name="project-choose"),
    path("projects/", project_pages.project_index, name="projects"),
    path("projects/<str:slug>/", project_pages.project_settings, name="project"),
    path("projects/<str:slug>/members/", project_pages.project_members, name="project-members"),
    path(
        "projects/<str:slug>/members/invite/",
        project_pages.member_invite,
        name="project-member-invite",
    ),
    path("projects/<str:slug>/rubric/", rubric_pages.project_rubric, name="project-rubric"),
    path(
        "projects/<str:slug>/rubric/preview/",
        rubric_pages.rubric_preview,
        name="project-rubric-preview",
    ),
    path(
        "projects/<str:slug>/guidelines/",
        guidelines_pages.project_guidelines,
        name="project-guidelines",
    ),
    path(
        "projects/<str:slug>/guidelines/acknowledge/",
        guidelines_pages.guidelines_acknowledged,
        name="project-guidelines-acknowledge",
    ),
    path(
        "projects/<str:slug>/members/<str:username>/role/",
        project_pages.member_role,
        name="project-member-role",
    ),
    path(
        "projects/<str:slug>/members/<str:username>/remove/",
        project_pages.member_remove,
        name="project-member-remove",
    ),
    path(
        "projects/<str:slug>/members/<str:username>/judge/",
        project_pages.member_judge,
        name="project-member-judge",
    ),
]

# Projects and their members, under /api/ (learnportal.urls).
api_urlpatterns = [
    path("projects/", projects_api.ProjectsView.as_view(), name="projects"),
    path("projects/<str:slug>/", projects_api.ProjectView.as_view(), name="project"),
    path("projects/<str:slug>/rubric/", projects_api.RubricView.as_view(), name="project-rubric"),
    path(
        "projects/<str:slug>/members/", projects_api.MembersView.as_view(), name="project-members"
    ),
    path(
        "projects/<str:slug>/invitations/",
        projects_api.InvitationsView.as_view(),
        name="project-invitations",
    ),
    path(
        "projects/<str:slug>/guidelines/",
        guidelines_api.GuidelinesView.as_view(),
        name="project-guidelines",
    ),
    path(
        "projects/<str:slug>/guidelines/acknowledge/",
        guidelines_api.GuidelinesAcknowledgeView.as_view(),
        name="project-guidelines-acknowledge",
    ),
    path(
        "projects/<str:slug>/guidelines/<int:version>/",
        guidelines_api.GuidelinesVersionView.as_view(),
        name="project-guidelines-version",
    ),
    path(
        "projects/<str:slug>/members/<str:username>/",
        projects_api.MemberView.as_view(),
        name="project-member",
    ),
]
