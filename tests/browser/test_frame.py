"""The header every page shares (base.html, frame.css, menu.js), for each role, at 1280 and
390 px: the pages' links in one row on a desktop, the person's own links behind their name,
both menus by keyboard with Escape. Screenshots: var/screenshots/frame-*.png."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import Page, expect

from core.accounts.models import User
from core.projects.services import default_project, member_set
from learnportal import demo
from tests.browser.helpers import log_in, screenshot

if TYPE_CHECKING:
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The demo's people, and an admin by role who is no staff member (no Django admin link), with
# a name longer than a phone's header has room for.
MANAGER = "marguerite.delacroix-fontainebleau"
PEOPLE = ["annotator", "reviewer", "admin", MANAGER]
OWN_LINKS = ["My tokens", "API"]
LINK_TOPS = "[...document.querySelectorAll('nav[aria-label=Main] a')].map(a => a.offsetTop)"


@pytest.fixture
def people(seeded: None) -> None:
    person = User.objects.create_user(username=MANAGER, password=demo.DEMO_PASSWORD)
    member_set(project=default_project(), person=person, role="manager")


def logged_in_at(page: Page, base_url: str, username: str, width: int) -> Page:
    page.set_viewport_size({"width": width, "height": 844})
    log_in(page, base_url, username)
    return page


def sideways(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth - window.innerWidth"))


@pytest.mark.parametrize("username", PEOPLE)
def test_on_a_desktop_the_pages_are_one_row_and_the_own_links_sit_behind_the_name(
    people: None, live_server: LiveServer, browser_page: Page, username: str
) -> None:
    page = logged_in_at(browser_page, live_server.url, username, 1280)
    tops = page.evaluate(LINK_TOPS)
    assert len(tops) > 1 and len(set(tops)) == 1, f"{username}'s links wrap: {tops}"
    main_nav = page.get_by_role("navigation", name="Main")
    for name in [*OWN_LINKS, "Admin"]:
        expect(main_nav.get_by_role("link", name=name, exact=True)).to_have_count(0)

    page.locator(".user-menu > summary").click()
    own = page.get_by_role("navigation", name="Your account")
    expected = [*OWN_LINKS, "Admin"] if username == "admin" else OWN_LINKS
    assert own.get_by_role("link").all_inner_texts() == expected
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    assert sideways(page) <= 0
    screenshot(page, f"frame-{username}-menu-1280", full_page=False)


@pytest.mark.parametrize("width", [1280, 390])
def test_the_persons_menu_opens_by_keyboard_and_escape_closes_it_back_on_its_button(
    people: None, live_server: LiveServer, browser_page: Page, width: int
) -> None:
    page = logged_in_at(browser_page, live_server.url, "reviewer", width)
    summary = page.locator(".user-menu > summary")
    my_tokens = page.get_by_role("link", name="My tokens")
    expect(my_tokens).to_be_hidden()

    summary.focus()
    page.keyboard.press("Enter")
    expect(my_tokens).to_be_visible()
    page.keyboard.press("Tab")
    expect(my_tokens).to_be_focused()
    outline = my_tokens.evaluate("a => getComputedStyle(a).outlineStyle")
    assert outline != "none"  # the focus is visible
    page.keyboard.press("Escape")
    expect(my_tokens).to_be_hidden()
    expect(summary).to_be_focused()

    page.keyboard.press("Space")
    expect(my_tokens).to_be_visible()
    page.mouse.click(5, 800)  # anywhere else closes it too
    expect(my_tokens).to_be_hidden()


@pytest.mark.parametrize("username", PEOPLE)
def test_on_a_phone_both_menus_open_without_anything_off_screen(
    people: None, live_server: LiveServer, browser_page: Page, username: str
) -> None:
    page = logged_in_at(browser_page, live_server.url, username, 390)
    header = page.locator("header.bar")
    assert header.bounding_box()["height"] < 70  # type: ignore[index]  # one line
    assert sideways(page) <= 0

    page.locator(".menu > summary").click()
    for link in page.get_by_role("navigation", name="Main").get_by_role("link").all():
        expect(link).to_be_in_viewport()
    screenshot(page, f"frame-{username}-pages-390", full_page=False)

    page.locator(".user-menu > summary").click()  # opening one closes the other
    expect(page.get_by_role("link", name="Overview")).to_be_hidden()
    expect(page.get_by_role("button", name="Log out")).to_be_in_viewport()
    assert sideways(page) <= 0
    screenshot(page, f"frame-{username}-menu-390", full_page=False)


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.parametrize("username", PEOPLE)
def test_every_page_in_a_persons_menus_fits_the_screen_with_the_header_on_one_line(
    people: None, live_server: LiveServer, browser_page: Page, username: str, width: int
) -> None:
    page = logged_in_at(browser_page, live_server.url, username, width)
    links = page.locator("header.bar nav a:not([href^='/admin/']):not([href^='/api/'])")
    paths = [str(href) for href in links.evaluate_all("all => all.map(a => a.pathname)")]
    assert "/tokens/" in paths
    for path in paths:
        page.goto(f"{live_server.url}{path}")
        page.wait_for_selector("main h1")
        assert sideways(page) <= 0, f"{path} scrolls sideways at {width}px"
        height = page.locator("header.bar").bounding_box()["height"]  # type: ignore[index]
        assert height < 70, f"the header of {path} takes {height}px at {width}px"
        name = path.strip("/").replace("/", "-") or "overview"
        screenshot(page, f"frame-{username}-{name}-{width}")
