"""A project's manager in headless Chromium, at 1280 and 390 px: choosing the project in the
header, adding a member and changing their role, inviting someone new (who follows the link),
and changing a setting with the guidelines previewed. Screenshots: var/screenshots/projects-*.png."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import Page, expect

from core.accounts.models import User
from core.projects.models import Project
from core.projects.services import member_set, project_add
from learnportal import demo
from tests.browser.helpers import fits as fits_window
from tests.browser.helpers import log_in, screenshot
from tests.factories import UserFactory

if TYPE_CHECKING:
    from playwright.sync_api import Browser
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Every control in the page's main part, and whether something names it for a screen reader.
CONTROLS = "main input:not([type=hidden]), main select, main textarea, header select"
UNLABELLED = (
    f"[...document.querySelectorAll('{CONTROLS}')]"
    ".filter(c => !(c.labels && c.labels.length) && !c.getAttribute('aria-label'))"
    ".map(c => c.name)"
)


@pytest.fixture
def lead(seeded: None) -> None:
    """Alpha's manager, and an annotator in `default`."""
    alpha = project_add(slug="alpha", name="Alpha team")
    person = UserFactory.create(username="lead", role="annotator", password=demo.DEMO_PASSWORD)
    member_set(project=alpha, person=person, role="manager")


def fits(page: Page) -> None:
    """No sideways scroll, and every control labelled."""
    fits_window(page)
    assert page.evaluate(UNLABELLED) == []


@pytest.mark.parametrize("width", [1280, 390])
def test_a_manager_chooses_the_project_adds_a_member_and_changes_a_setting(
    lead: None, live_server: LiveServer, browser_page: Page, width: int
) -> None:
    page = browser_page
    page.set_viewport_size({"width": width, "height": 844})
    log_in(page, live_server.url, "lead")

    page.locator(".user-menu > summary").click()
    expect(page.locator(".who-full .role")).to_have_text("annotator")
    page.get_by_label("Project").select_option(label="Alpha team")
    fits(page)
    screenshot(page, f"projects-picker-{width}")
    page.get_by_role("button", name="Switch").click()
    expect(page.locator(".who-full .role")).to_have_text("manager")
    expect(page.locator(".who-full .who-project")).to_have_text("Alpha team")

    page.goto(f"{live_server.url}/projects/alpha/members/")
    page.get_by_label("Username", exact=True).fill("reviewer")
    page.get_by_label("Role", exact=True).select_option("reviewer")
    page.get_by_role("button", name="Add member").click()
    row = page.locator("tr[data-member=reviewer]")
    expect(row.get_by_label("Role of reviewer", exact=True)).to_have_value("reviewer")
    row.get_by_label("Role of reviewer", exact=True).select_option("annotator")
    row.get_by_role("button", name="Change the role of reviewer").click()
    expect(page.locator("ul.messages")).to_contain_text("reviewer is now annotator in alpha")
    fits(page)
    screenshot(page, f"projects-members-{width}")
    membership = User.objects.get(username="reviewer").memberships.get(project__slug="alpha")
    assert membership.role == "annotator"

    page.goto(f"{live_server.url}/projects/alpha/")
    page.get_by_label("Ratings per turn").fill("3")
    page.get_by_role("textbox", name="Guidelines").fill(
        "# Rate the answer\n\nJudge **correctness** first."
    )
    page.get_by_role("button", name="Preview guidelines").click()
    expect(page.locator(".markdown strong")).to_have_text("correctness")
    assert Project.objects.get(slug="alpha").ratings_per_turn is None  # a preview saves nothing
    page.get_by_role("button", name="Save settings").click()
    expect(page.get_by_label("Ratings per turn")).to_have_value("3")
    fits(page)
    screenshot(page, f"projects-settings-{width}")
    assert Project.objects.get(slug="alpha").ratings_per_turn == 3

    page.goto(f"{live_server.url}/projects/")
    expect(page.locator("tr[data-project=alpha]")).to_contain_text("manager")
    fits(page)
    screenshot(page, f"projects-list-{width}")


@pytest.mark.parametrize("width", [1280, 390])
def test_a_manager_invites_someone_new_who_chooses_a_password_and_is_in(
    lead: None, live_server: LiveServer, browser_page: Page, chromium: Browser, width: int
) -> None:
    page = browser_page
    page.set_viewport_size({"width": width, "height": 844})
    log_in(page, live_server.url, "lead")
    page.goto(f"{live_server.url}/projects/alpha/members/")
    page.get_by_label("Their username").fill("newcomer")
    page.get_by_label("Their role").select_option("reviewer")
    page.get_by_role("button", name="Invite").click()
    link = page.get_by_label("The invitation link of newcomer").input_value()
    expect(page.locator("tr[data-member=newcomer]")).to_contain_text("invited")
    fits(page)
    screenshot(page, f"projects-invited-{width}")

    theirs = chromium.new_context(viewport={"width": width, "height": 844}).new_page()
    theirs.goto(link)
    expect(theirs.get_by_role("heading", name="Welcome, newcomer")).to_be_visible()
    fits(theirs)
    screenshot(theirs, f"projects-welcome-{width}")
    theirs.get_by_label("New password", exact=True).fill("newcomer-password-1")
    theirs.get_by_label("New password confirmation").fill("newcomer-password-1")
    theirs.get_by_role("button", name="Choose password and log in").click()
    theirs.locator(".user-menu > summary").click()
    expect(theirs.locator(".who-full .role")).to_have_text("reviewer")
    theirs.goto(link)
    expect(theirs.get_by_role("heading", name="This link is no longer good")).to_be_visible()
    theirs.context.close()
