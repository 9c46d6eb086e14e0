"""The guidelines on the pages: the managers' page /projects/<slug>/guidelines/ (edit, preview,
versions, the changes between any two), and beside the task on the queue and the rate page,
where a project that asks for it has each person acknowledge a new version before they rate."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from django.test import Client

from core.accounts.models import User
from core.accounts.principals import principal_for_user
from core.projects.guidelines import guidelines_current, guidelines_replace
from core.projects.models import GuidelinesVersion, Project
from core.projects.services import project_add, project_update
from feedback.models import Feedback, Turn
from feedback.rubrics.questions import GUIDELINES_KEY
from tests.factories import TurnFactory, UserFactory

if TYPE_CHECKING:
    from core.accounts.principals import Principal

pytestmark = pytest.mark.django_db

URL = "/projects/default/guidelines/"


def logged_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


@pytest.fixture
def project(db: None) -> Project:
    return Project.objects.get(slug="default")


@pytest.fixture
def lead(db: None) -> Principal:
    return principal_for_user(UserFactory.create(username="lead", role="manager"))


@pytest.fixture
def annie(db: None) -> Client:
    UserFactory.create(username="annie", role="annotator")
    return logged_in("annie")


def save(lead: Principal, project: Project, text: str, **questions: str) -> None:
    guidelines_replace(member=lead, project=project, text=text, questions=questions)


def form(text: str, **questions: str) -> dict[str, str]:
    return {"guidelines": text, **{f"q-{key}": said for key, said in questions.items()}}


# The managers' page -----------------------------------------------------------------------


def test_a_manager_saves_the_project_and_each_questions_guidelines(
    lead: Principal, project: Project
) -> None:
    client = logged_in("lead")
    page = client.get(URL)
    assert page.status_code == 200
    names = [f["name"] for f in page.context["fields"]]
    assert names == [
        f"q-{d}" for d in ("correctness", "helpfulness", "safety", "tone", "plan_quality")
    ]
    saved = client.post(URL, form("# Be *kind*", tone="Warm, never curt."))
    assert saved.status_code == 302
    current = guidelines_current(project.pk)
    assert (current.version, current.text, current.questions) == (
        1,
        "# Be *kind*",
        {"tone": "Warm, never curt."},
    )
    shown = client.get(URL).content.decode()
    assert "<h2>Be <em>kind</em></h2>" in shown and "Warm, never curt." in shown


def test_the_preview_is_rendered_safely_and_saves_nothing(lead: Principal) -> None:
    client = logged_in("lead")
    text = "**bold** <script>alert(1)</script>"
    page = client.post(URL, {**form(text, tone="_soft_"), "preview": "1"})
    assert page.status_code == 200
    body = page.content.decode()
    assert "<strong>bold</strong>" in body and "<script>alert(1)</script>" not in body
    assert "<em>soft</em>" in body
    assert not GuidelinesVersion.objects.exists()


def test_a_bad_text_is_shown_next_to_its_field_and_nothing_is_saved(lead: Principal) -> None:
    client = logged_in("lead")
    page = client.post(URL, form("fine", tone="x" * 10_001))
    assert page.status_code == 400
    [field] = [f for f in page.context["fields"] if f["error"]]
    assert field["key"] == "tone" and "10000" in field["error"]
    assert not GuidelinesVersion.objects.exists()


def test_other_members_read_the_page_but_may_not_change_it(
    lead: Principal, project: Project, annie: Client
) -> None:
    save(lead, project, "# Read me")
    page = annie.get(URL)
    assert page.status_code == 200
    assert 'name="guidelines"' not in page.content.decode()
    assert "Read me" in page.content.decode()
    assert annie.post(URL, form("mine")).status_code == 403
    assert guidelines_current(project.pk).text == "# Read me"


def test_another_projects_page_is_not_found(lead: Principal, annie: Client) -> None:
    project_add(slug="alpha", name="Alpha")
    assert annie.get("/projects/alpha/guidelines/").status_code == 404
    assert (
        annie.post("/projects/alpha/guidelines/acknowledge/", {"version": "1"}).status_code == 404
    )


def test_the_changes_between_any_two_versions_mark_each_added_and_removed_line(
    lead: Principal, project: Project
) -> None:
    save(lead, project, "one\ntwo", tone="Warm.")
    save(lead, project, "one\nthree", tone="Warm.")
    save(lead, project, "one\nthree", tone="Cold.")
    client = logged_in("lead")
    page = client.get(f"{URL}?from=1&to=3")
    assert page.status_code == 200
    changes = {
        c.title: [(line.kind, line.text) for line in c.lines] for c in page.context["diff_changes"]
    }
    assert [kind for kind in changes["The project's guidelines"] if kind[0] != "same"][-2:] == [
        ("del", "-two"),
        ("add", "+three"),
    ]
    assert ("add", "+Cold.") in changes["Tone"]
    body = page.content.decode()
    assert '<span class="visually-hidden">removed: </span>-two' in body
    assert '<span class="visually-hidden">added: </span>+three' in body
    by_default = client.get(URL)
    assert (by_default.context["diff_from"], by_default.context["diff_to"]) == (2, 3)


@pytest.mark.parametrize("query", ["?from=9&to=1", "?from=x&to=1", "?from=1&to=-1"])
def test_a_version_that_is_not_one_is_said_next_to_its_picker(
    lead: Principal, project: Project, query: str
) -> None:
    save(lead, project, "one")
    page = logged_in("lead").get(URL + query)
    assert page.status_code == 400
    assert set(page.context["diff_errors"]) <= {"from", "to"} and page.context["diff_errors"]


def test_the_settings_page_links_to_it_and_holds_the_acknowledgement_setting(
    lead: Principal, project: Project
) -> None:
    client = logged_in("lead")
    page = client.get("/projects/default/").content.decode()
    assert f'href="{URL}"' in page
    body = {
        "name": "Default",
        "blind": "on",
        "priority_negative": "2",
        "priority_unsure": "1",
        "gold_rate": "0",
        "gold_min_items": "10",
        "gold_pause_below": "0",
        "guidelines": "# New",
        "guidelines_ack_required": "on",
    }
    assert client.post("/projects/default/", body).status_code == 302
    project.refresh_from_db()
    assert project.guidelines_ack_required is True
    assert guidelines_current(project.pk).text == "# New"


# Beside the task ----------------------------------------------------------------------------


def test_the_queue_shows_the_guidelines_beside_the_task_with_their_key(
    lead: Principal, project: Project, annie: Client
) -> None:
    save(lead, project, "# Be *kind*", tone="Warm, never curt.")
    TurnFactory.create()
    page = annie.get("/queue/")
    body = page.content.decode()
    assert 'id="guidelines-panel"' in body and f'data-key="{GUIDELINES_KEY}"' in body
    assert "<h2>Be <em>kind</em></h2>" in body and "Warm, never curt." in body
    assert "Open or close the guidelines" in body  # in the list of keys
    assert "guidelines-due" not in body


def test_a_rubric_question_shows_its_own_guidelines_under_it(
    lead: Principal, project: Project, annie: Client
) -> None:
    rubric = {"questions": [{"kind": "boolean", "key": "solved", "label": "Solved"}]}
    from feedback.services.rubrics import rubric_replace

    rubric_replace(member=lead, project=project, data=rubric)
    save(lead, project, "", solved="Only if the tests *pass*.")
    made = TurnFactory.create()
    page = annie.get(f"/turns/{made.pk}/")
    [field] = page.context["rubric"].fields
    assert "<em>pass</em>" in str(field.guidelines)
    assert 'class="question-guidelines"' in page.content.decode()


@pytest.fixture
def asking(lead: Principal, project: Project) -> Project:
    project_update(project=project, changes={"guidelines_ack_required": True}, member=lead)
    save(lead, project, "# Rules\n\nBe kind.")
    return project


def rate(client: Client, turn: Turn, url: str = "/queue/") -> Any:
    return client.post(
        url,
        {
            "do": "rate",
            "turn": str(turn.pk),
            "feedback_id": f"fb-{turn.pk}-{url.count('/')}",
            "polarity": "positive",
            "score": "0.5",
            "dimension": "helpfulness",
            "confidence": "0.9",
        },
    )


def test_a_new_version_is_acknowledged_on_the_queue_before_the_next_rating(
    asking: Project, lead: Principal, annie: Client
) -> None:
    made = TurnFactory.create()
    page = annie.get("/queue/").content.decode()
    assert "New guidelines: version 1" in page and "I have read these" in page
    refused = rate(annie, made)
    assert refused.status_code == 409
    assert "acknowledge it before you rate" in refused.content.decode()
    assert not Feedback.objects.exists()
    back = annie.post(
        "/projects/default/guidelines/acknowledge/", {"version": "1", "next": "/queue/"}
    )
    assert (back.status_code, back["Location"]) == (302, "/queue/")
    assert "guidelines-due" not in annie.get("/queue/").content.decode()
    assert rate(annie, made).status_code == 302
    assert Feedback.objects.count() == 1


def test_the_next_version_shows_what_changed_since_the_one_they_read(
    asking: Project, lead: Principal, annie: Client
) -> None:
    annie.post("/projects/default/guidelines/acknowledge/", {"version": "1"})
    save(lead, asking, "# Rules\n\nBe kind and brief.")
    made = TurnFactory.create()
    page = annie.get(f"/turns/{made.pk}/")
    assert page.context["guidelines_due"] == 2 and page.context["guidelines_last_read"] == 1
    body = page.content.decode()
    assert "-Be kind." in body and "+Be kind and brief." in body
    assert rate(annie, made, f"/turns/{made.pk}/").status_code == 409


def test_an_acknowledgement_of_no_version_is_refused_in_words(
    asking: Project, annie: Client
) -> None:
    back = annie.post(
        "/projects/default/guidelines/acknowledge/",
        {"version": "7", "next": "https://elsewhere.example/"},
        follow=True,
    )
    assert "no guidelines version 7" in back.content.decode()
    assert back.redirect_chain[-1][0] == "/queue/"


def test_each_version_links_the_changes_from_the_one_before_and_the_first_none(
    lead: Principal, project: Project, annie: Client
) -> None:
    save(lead, project, "First.")
    save(lead, project, "Second.")
    body = annie.get(URL).content.decode()
    assert "?from=1&amp;to=2#diff" in body
    assert "?from=0&amp;to=1" not in body
    assert annie.get(f"{URL}?from=1&to=2").status_code == 200
