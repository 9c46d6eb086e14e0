"""The projects' pages and the header's project picker: a person acts in one project at a time
on the pages, their home project unless they chose another; managers change their project's
settings and members there, through the services REST shares."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.test import Client

from core.accounts.models import User
from core.projects.chosen import CHOSEN_PROJECT_KEY
from core.projects.models import Membership, Project
from core.projects.services import default_project, member_set, project_add
from feedback.judges.models import MarkedJudge
from tests.factories import UserFactory

if TYPE_CHECKING:
    from tests.harness import ClientResponse

pytestmark = pytest.mark.django_db

PICKER = 'id="project-picker"'


def logged_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


@pytest.fixture
def alpha(seeded: None) -> Project:
    return project_add(slug="alpha", name="Alpha team")


@pytest.fixture
def admin(seeded: None) -> Client:
    return logged_in("admin")


@pytest.fixture
def lead(alpha: Project) -> Client:
    """Alpha's manager, and an annotator in `default`: two projects to choose from."""
    person = UserFactory.create(username="lead", role="annotator")
    member_set(project=alpha, person=person, role="manager")
    return logged_in("lead")


def choose(client: Client, slug: str, next_url: str = "/") -> ClientResponse:
    return client.post("/choose-project/", {"project": slug, "next": next_url})


def role_shown(client: Client, url: str = "/") -> str:
    response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    return str(response.context["seat"]["role"])


def settings_post(**changes: str) -> dict[str, str]:
    return {
        "name": "Alpha team",
        "ratings_per_turn": "",
        "lease_seconds": "",
        "priority_negative": "2",
        "priority_unsure": "1",
        "gold_rate": "0",
        "gold_min_items": "10",
        "gold_pause_below": "0",
        **changes,
    }


# The picker ---------------------------------------------------------------------------------


def test_a_portal_of_one_project_shows_no_picker_and_no_project_name(admin: Client) -> None:
    response = admin.get("/")
    assert PICKER not in response.content.decode()
    assert response.context["seat"]["project"] == ""
    assert 'class="who-project"' not in response.content.decode()


def test_a_member_of_one_project_sees_no_picker(alpha: Project, annotator: Client) -> None:
    assert PICKER not in annotator.get("/").content.decode()


def test_two_projects_show_the_picker_with_the_current_projects_name(
    alpha: Project, admin: Client, lead: Client
) -> None:
    for client in (admin, lead):
        page = client.get("/").content.decode()
        assert PICKER in page
        assert '<option value="alpha">Alpha team</option>' in page
    assert lead.get("/").context["seat"]["project"] == "Default project"


def test_choosing_a_project_changes_the_role_the_pages_see(lead: Client) -> None:
    assert role_shown(lead) == "annotator"
    assert lead.get("/accounts/").status_code == 403
    response = choose(lead, "alpha", "/projects/")
    assert response.status_code == 302 and response["Location"] == "/projects/"
    assert role_shown(lead) == "manager"
    assert lead.get("/").context["seat"]["project"] == "Alpha team"
    assert 'value="alpha" selected' in lead.get("/").content.decode()
    assert lead.get("/plans/").status_code == 200  # a manager decides; an annotator may not
    choose(lead, "default")
    assert role_shown(lead) == "annotator"
    assert lead.get("/plans/").status_code == 403


def test_a_stale_choice_falls_back_to_the_home_project(alpha: Project, lead: Client) -> None:
    choose(lead, "alpha")
    Membership.objects.filter(project=alpha, user__username="lead").delete()
    assert role_shown(lead) == "annotator"
    assert lead.get("/plans/").status_code == 403  # the 403 page, in default: no 500, no 404
    alpha.delete()
    assert role_shown(lead) == "annotator"


def test_a_forged_slug_is_refused_as_not_found_and_nothing_is_kept(
    alpha: Project, annotator: Client
) -> None:
    for slug in ("alpha", "no-such-project", ""):
        assert choose(annotator, slug).status_code == 404
    assert CHOSEN_PROJECT_KEY not in annotator.session
    assert role_shown(annotator) == "annotator"


@pytest.mark.parametrize("next_url", ["https://evil.example/", "//evil.example/x", "javascript:x"])
def test_the_picker_goes_back_only_to_a_page_of_this_site(lead: Client, next_url: str) -> None:
    response = choose(lead, "alpha", next_url)
    assert response.status_code == 302 and response["Location"] == "/"


def test_the_picker_takes_only_a_post(lead: Client) -> None:
    assert lead.get("/choose-project/?project=alpha").status_code == 405


# The list -----------------------------------------------------------------------------------


def test_the_list_shows_ones_projects_with_ones_role_in_each(lead: Client) -> None:
    rows = lead.get("/projects/").context["rows"]
    assert [(row["project"].slug, row["role"]) for row in rows] == [
        ("alpha", "manager"),
        ("default", "annotator"),
    ]


def test_a_site_admin_makes_a_project_from_the_list(admin: Client) -> None:
    response = admin.post("/projects/", {"slug": "beta", "name": "Beta team"})
    assert response.status_code == 302 and response["Location"] == "/projects/beta/"
    assert Project.objects.get(slug="beta").name == "Beta team"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"slug": "Bad Slug", "name": "x"}, "slug"),
        ({"slug": "beta", "name": ""}, "name"),
        ({"slug": "default", "name": "Again"}, "slug"),
    ],
)
def test_a_bad_project_is_refused_next_to_its_field(
    admin: Client, body: dict[str, str], field: str
) -> None:
    response = admin.post("/projects/", body)
    assert response.status_code == 400
    assert response.context["form"].errors[field]
    assert f'data-field="{field}"' in response.content.decode()
    assert sorted(Project.objects.values_list("slug", flat=True)) == ["default"]


def test_only_a_site_admin_makes_a_project(lead: Client) -> None:
    choose(lead, "alpha")
    assert lead.post("/projects/", {"slug": "beta", "name": "Beta"}).status_code == 403
    assert not Project.objects.filter(slug="beta").exists()
    assert "Make a project" not in lead.get("/projects/").content.decode()


# Settings -----------------------------------------------------------------------------------


def test_a_manager_saves_the_settings(alpha: Project, lead: Client) -> None:
    body = settings_post(
        name="Alpha",
        ratings_per_turn="3",
        lease_seconds="900",
        priority_negative="0",
        priority_unsure="9",
        guidelines="# Be *kind*",
    )
    response = lead.post("/projects/alpha/", body)  # blind left unticked: off
    assert response.status_code == 302
    alpha.refresh_from_db()
    saved = (alpha.name, alpha.ratings_per_turn, alpha.lease_seconds, alpha.blind)
    assert saved == ("Alpha", 3, 900, False)
    assert (alpha.priority_negative, alpha.priority_unsure) == (0, 9)
    page = lead.get("/projects/alpha/").content.decode()
    assert "<h2>Be <em>kind</em></h2>" in page


def test_a_manager_turns_the_comparisons_settings_on_and_unticked_they_are_off_again(
    alpha: Project, lead: Client
) -> None:
    page = lead.get("/projects/alpha/").content.decode()
    assert 'name="comparisons_as_evidence"' in page and 'name="compare_turns"' in page
    ticked = settings_post(comparisons_as_evidence="on", compare_turns="on")
    assert lead.post("/projects/alpha/", ticked).status_code == 302
    alpha.refresh_from_db()
    assert (alpha.comparisons_as_evidence, alpha.compare_turns) == (True, True)
    assert lead.post("/projects/alpha/", settings_post()).status_code == 302
    alpha.refresh_from_db()
    assert (alpha.comparisons_as_evidence, alpha.compare_turns) == (False, False)


def test_the_preview_renders_the_guidelines_safely_and_saves_nothing(
    alpha: Project, lead: Client
) -> None:
    text = "**bold** <script>alert(1)</script>"
    response = lead.post("/projects/alpha/", settings_post(guidelines=text, preview="1"))
    assert response.status_code == 200
    preview = str(response.context["preview"])
    assert "<strong>bold</strong>" in preview and "<script>" not in preview
    alpha.refresh_from_db()
    assert alpha.guidelines == ""


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"ratings_per_turn": "0"}, "ratings_per_turn"),
        ({"ratings_per_turn": "many"}, "ratings_per_turn"),
        ({"lease_seconds": "5"}, "lease_seconds"),
        ({"priority_negative": "10"}, "priority_negative"),
        ({"priority_unsure": "-1"}, "priority_unsure"),
        ({"priority_unsure": ""}, "priority_unsure"),
        ({"priority_negative": "first"}, "priority_negative"),
        ({"name": ""}, "name"),
        ({"name": "x" * 121}, "name"),
    ],
)
def test_a_bad_setting_is_refused_next_to_its_field_and_nothing_changes(
    alpha: Project, lead: Client, changes: dict[str, str], field: str
) -> None:
    response = lead.post("/projects/alpha/", settings_post(blind="on", **changes))
    assert response.status_code == 400
    assert response.context["form"].errors[field]
    assert f'data-field="{field}"' in response.content.decode()
    alpha.refresh_from_db()
    assert (alpha.name, alpha.ratings_per_turn, alpha.lease_seconds) == ("Alpha team", None, None)
    assert (alpha.priority_negative, alpha.priority_unsure) == (2, 1)


def test_other_members_read_the_settings_but_may_not_change_them(
    seeded: None, annotator: Client
) -> None:
    response = annotator.get("/projects/default/")
    assert response.status_code == 200
    assert response.context["form"].fields["name"].disabled
    assert "Save settings" not in response.content.decode()
    refused = annotator.post("/projects/default/", {"name": "Mine now"})
    assert refused.status_code == 403
    assert default_project().name == "Default project"


# Members ------------------------------------------------------------------------------------


def test_a_manager_adds_changes_and_removes_a_member(alpha: Project, lead: Client) -> None:
    response = lead.post("/projects/alpha/members/", {"username": "Reviewer", "role": "reviewer"})
    assert response.status_code == 302
    reviewer = User.objects.get(username="reviewer")
    assert reviewer.memberships.get(project=alpha).role == "reviewer"
    lead.post("/projects/alpha/members/reviewer/role/", {"role": "annotator"})
    assert reviewer.memberships.get(project=alpha).role == "annotator"
    names = [m["person"].username for m in lead.get("/projects/alpha/members/").context["members"]]
    assert names == ["lead", "reviewer"]
    assert lead.post("/projects/alpha/members/reviewer/remove/").status_code == 302
    assert not reviewer.memberships.filter(project=alpha).exists()
    assert reviewer.memberships.filter(project__slug="default").exists()  # only alpha's


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"username": "nobody", "role": "annotator"}, "username"),
        ({"username": "reviewer", "role": "admin"}, "role"),
        ({"username": "admin", "role": "annotator"}, "username"),  # a site admin needs none
        ({"username": "lead", "role": "annotator"}, "username"),  # not one's own role
        ({"username": "", "role": "annotator"}, "username"),
    ],
)
def test_a_bad_member_is_refused_next_to_its_field_and_nothing_changes(
    alpha: Project, lead: Client, body: dict[str, str], field: str
) -> None:
    before = sorted(Membership.objects.values_list("user__username", "project__slug", "role"))
    response = lead.post("/projects/alpha/members/", body)
    assert response.status_code == 400
    assert response.context["form"].errors[field]
    assert f'data-field="{field}"' in response.content.decode()
    after = sorted(Membership.objects.values_list("user__username", "project__slug", "role"))
    assert after == before


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/projects/alpha/members/lead/role/", {"role": "annotator"}),
        ("/projects/alpha/members/lead/remove/", {}),
        ("/projects/alpha/members/reviewer/role/", {"role": "overlord"}),
        ("/projects/alpha/members/nobody/remove/", {}),
        ("/projects/alpha/members/reviewer/remove/", {}),  # in default, not in alpha
    ],
)
def test_a_refused_change_of_a_member_says_why_and_changes_nothing(
    alpha: Project, lead: Client, url: str, body: dict[str, str]
) -> None:
    before = sorted(Membership.objects.values_list("user__username", "project__slug", "role"))
    response = lead.post(url, body)
    assert response.status_code == 400
    assert 'data-field="member"' in response.content.decode()
    after = sorted(Membership.objects.values_list("user__username", "project__slug", "role"))
    assert after == before


def test_a_manager_sees_no_form_to_change_or_remove_themselves(lead: Client) -> None:
    page = lead.get("/projects/alpha/members/").content.decode()
    assert "/projects/alpha/members/lead/" not in page


# Who may enter ------------------------------------------------------------------------------


MEMBER_PAGES = [
    ("get", "/projects/alpha/members/"),
    ("post", "/projects/alpha/"),
    ("post", "/projects/alpha/members/"),
    ("post", "/projects/alpha/members/lead/role/"),
    ("post", "/projects/alpha/members/lead/remove/"),
]


@pytest.mark.parametrize(("method", "url"), MEMBER_PAGES)
def test_a_member_who_is_no_manager_gets_the_403_page(
    lead: Client, alpha: Project, method: str, url: str
) -> None:
    member_set(project=alpha, person=User.objects.get(username="reviewer"), role="reviewer")
    reviewer = logged_in("reviewer")
    body = {"username": "annotator", "role": "manager", "name": "Mine"}
    response = getattr(reviewer, method)(url, body) if method == "post" else reviewer.get(url)
    assert response.status_code == 403
    assert sorted(alpha.memberships.values_list("user__username", "role")) == [
        ("lead", "manager"),
        ("reviewer", "reviewer"),
    ]


@pytest.mark.parametrize(("method", "url"), [("get", "/projects/alpha/"), *MEMBER_PAGES])
def test_a_project_one_is_not_in_is_not_found_as_one_that_does_not_exist(
    lead: Client, annotator: Client, method: str, url: str
) -> None:
    for path in (url, url.replace("alpha", "no-such")):
        assert getattr(annotator, method)(path).status_code == 404


PAGES = ["/projects/", "/projects/default/", "/projects/default/members/"]
POSTS = [
    *PAGES,
    "/projects/default/members/reviewer/role/",
    "/projects/default/members/reviewer/remove/",
    "/choose-project/",
]


@pytest.mark.parametrize(
    ("method", "url"), [*(("get", u) for u in PAGES), *(("post", u) for u in POSTS)]
)
def test_a_logged_out_visitor_is_sent_to_log_in(seeded: None, method: str, url: str) -> None:
    response = getattr(Client(), method)(url)
    assert response.status_code == 302
    assert response["Location"] == f"/login/?next={url}"
    assert Membership.objects.filter(user__username="reviewer").exists()


def test_the_navigation_links_the_projects_for_those_in_one(
    seeded: None, annotator: Client
) -> None:
    assert 'href="/projects/"' in annotator.get("/").content.decode()
    UserFactory.create(username="loner", role="annotator")
    Membership.objects.filter(user__username="loner").delete()
    assert 'href="/projects/"' not in logged_in("loner").get("/").content.decode()


def test_a_site_admin_manages_a_project_without_being_its_member(
    alpha: Project, admin: Client
) -> None:
    assert admin.post("/projects/alpha/", settings_post(name="Renamed")).status_code == 302
    added = admin.post("/projects/alpha/members/", {"username": "annotator", "role": "reviewer"})
    assert added.status_code == 302
    alpha.refresh_from_db()
    assert alpha.name == "Renamed"
    assert list(alpha.memberships.values_list("user__username", "role")) == [
        ("annotator", "reviewer")
    ]


def test_a_person_in_two_projects_but_not_default_is_asked_to_choose_one(
    alpha: Project,
) -> None:
    beta = project_add(slug="beta", name="Beta team")
    person = UserFactory.create(username="nomad", role="annotator", project="alpha")
    member_set(project=beta, person=person, role="reviewer")
    Membership.objects.filter(user=person, project__slug="default").delete()
    nomad = logged_in("nomad")
    page = nomad.get("/").content.decode()
    assert '<option value="" selected disabled>Choose a project</option>' in page
    assert role_shown(nomad) == "none"
    choose(nomad, "beta")
    assert role_shown(nomad) == "reviewer"


def test_a_manager_marks_a_member_as_a_judge_from_the_members_page(
    alpha: Project, lead: Client
) -> None:
    lead.post("/projects/alpha/members/", {"username": "Reviewer", "role": "annotator"})
    marked = lead.post("/projects/alpha/members/reviewer/judge/", {"judge": "1"})
    assert marked.status_code == 302
    assert MarkedJudge.objects.filter(project=alpha, username="reviewer", by="lead").exists()
    page = lead.get("/projects/alpha/members/")
    rows = {m["person"].username: m["judge"] for m in page.context["members"]}
    assert rows == {"lead": False, "reviewer": True}
    assert "Take the judge mark off reviewer" in page.content.decode()
    lead.post("/projects/alpha/members/reviewer/judge/", {"judge": "0"})
    assert not MarkedJudge.objects.exists()
    again = lead.post("/projects/alpha/members/reviewer/judge/", {"judge": "0"})
    assert again.status_code == 400  # not marked: said beside the row, nothing changes
    stranger = lead.post("/projects/alpha/members/nobody/judge/", {"judge": "1"})
    assert stranger.status_code == 400
    assert not MarkedJudge.objects.exists()


def test_only_a_manager_marks_judges(alpha: Project, seeded: None) -> None:
    person = UserFactory.create(username="ann2", role="annotator")
    member_set(project=alpha, person=person, role="annotator")
    response = logged_in("ann2").post("/projects/alpha/members/ann2/judge/", {"judge": "1"})
    assert response.status_code == 403
    assert not MarkedJudge.objects.exists()
