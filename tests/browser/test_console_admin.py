"""The console's accounts, tokens and skills pages in headless Chromium, at 1280 and 390 px.

Screenshots: var/screenshots/console-*.png.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import TYPE_CHECKING

import pytest
from playwright.sync_api import Page, expect

from core.accounts.models import ApiToken
from core.accounts.roles import Role
from learnportal.demo import DEMO_AGENT
from refinement.learning_store import step_update
from refinement.models import Refinement
from refinement.services.apply import proposal_apply
from tests.browser.helpers import answer_in_page, log_in, screenshot, shown_once
from tests.factories import ApiTokenFactory, PrincipalFactory

if TYPE_CHECKING:
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GLOBAL_SKILL = "learnings/_global/SKILL.md"
HOSTILE_SKILL = (
    "# Checkout runbook\n\nLog in with SSO; details in [auth](references/auth.md).\n\n"
    "<script>window.__owned = true</script>\n\n"
    "| step | selector |\n| --- | --- |\n| login | `#sso-button-with-a-rather-long-selector` |\n"
)
WIDTHS = [1280, 390]
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} blocked ${event.blockedURI || "inline"}`);
});
"""


def learn_status(base_url: str, raw: str) -> int:
    """One small learn/* request with a bearer token, outside the browser's session."""
    request = urllib.request.Request(
        f"{base_url}/api/learn/",
        data=json.dumps({"type": "learn/stats/req", "id": "s1"}).encode(),
        headers={"Authorization": f"Bearer {raw}", "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


def no_sideways_scroll(page: Page) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"{page.url} scrolls sideways by {overflow}px"


@pytest.fixture
def skills(seeded: None) -> None:
    """Learnings files applied by the demo agent; asked for before `browser_page`, whose event
    loop would keep the broadcast after commit from reaching the channel layer."""
    store_skills()


def store_skills() -> None:
    for path, text in [
        (GLOBAL_SKILL, HOSTILE_SKILL),
        ("learnings/_global/references/auth.md", "# Auth\n\nClick `#sso`, then wait.\n"),
    ]:
        proposal = {"target": "skill_file", "op": "create", "path": path, "old_value": None}
        proposal_apply(principal=DEMO_AGENT, raw={**proposal, "new_value": text})


def test_an_admin_creates_a_token_sees_it_once_uses_it_and_revokes_it(
    seeded: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=live_server.url)
    log_in(page, live_server.url, "admin", "/accounts/tokens/")
    expect(page.locator(".empty")).to_contain_text("No machine token yet")

    page.get_by_label("Name").fill("checkout-agent")
    page.get_by_label("Role").select_option("agent")
    raw = shown_once(page, "Create token")
    assert raw.startswith("lp_")
    page.get_by_role("button", name="Copy").click()
    expect(page.locator("#copy-status")).to_have_text("Copied to the clipboard.")
    assert page.evaluate("navigator.clipboard.readText()") == raw
    screenshot(page, "console-token-created")

    assert learn_status(live_server.url, raw) == 200

    page.goto(f"{live_server.url}/accounts/tokens/")
    assert raw not in page.content()  # shown once
    row = page.locator("tr[data-token='checkout-agent']")
    expect(row).to_contain_text("agent")
    expect(row.locator("td").nth(4)).not_to_have_text("never")  # its last use is listed
    row.get_by_role("button", name="Revoke checkout-agent").click()
    assert answer_in_page(page, confirm=True) == "Revoke checkout-agent?"
    expect(page.locator(".message-success")).to_contain_text("Revoked checkout-agent")
    expect(page.locator("tr[data-token='checkout-agent']")).to_contain_text("revoked")
    screenshot(page, "console-token-revoked")

    assert learn_status(live_server.url, raw) == 401
    assert ApiToken.objects.get(name="checkout-agent").revoked_at is not None


def test_revoking_asks_in_the_page_and_escape_or_cancel_revokes_nothing(
    seeded: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    raw = ApiTokenFactory.create(name="gym-1", role="environment").raw
    log_in(page, live_server.url, "admin", "/accounts/tokens/")
    revoke = page.get_by_role("button", name="Revoke gym-1")
    dialog = page.get_by_role("alertdialog")

    revoke.focus()
    page.keyboard.press("Enter")
    expect(dialog).to_be_visible()
    expect(dialog.locator("h2")).to_have_text("Revoke gym-1?")
    expect(dialog).to_contain_text("Whatever uses it is refused from its next request.")
    cancel = dialog.get_by_role("button", name="Cancel")
    expect(cancel).to_be_focused()  # the safe answer first
    page.keyboard.press("Tab")
    expect(dialog.get_by_role("button", name="Revoke")).to_be_focused()
    page.keyboard.press("Tab")
    expect(cancel).to_be_focused()  # focus stays in the dialog
    screenshot(page, "console-confirm-revoke", full_page=False)
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(revoke).to_be_focused()

    revoke.click()
    assert answer_in_page(page, confirm=False) == "Revoke gym-1?"
    expect(revoke).to_be_focused()
    page.reload()
    expect(page.locator("tr[data-token='gym-1']")).to_contain_text("active")
    assert learn_status(live_server.url, raw) == 200


@pytest.mark.parametrize(
    "path",
    ["/accounts/", "/accounts/tokens/", "/admin/", "/admin/accounts/apitoken/", "/skills/"],
)
def test_an_annotator_gets_the_403_page_on_admin_and_reviewer_pages(
    seeded: None, live_server: LiveServer, browser_page: Page, path: str
) -> None:
    page = browser_page
    log_in(page, live_server.url, "annotator")
    assert page.locator("nav a[href='/accounts/']").count() == 0
    assert page.locator("nav a[href='/skills/']").count() == 0

    response = page.goto(f"{live_server.url}{path}")

    assert response is not None and response.status == 403
    expect(page.locator("h1")).to_have_text("Not for your role")
    expect(page.locator("input[name=password]")).to_have_count(0)  # not Django's login


def test_an_anonymous_visitor_of_the_admin_goes_to_the_portals_login(
    seeded: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    page.goto(f"{live_server.url}/admin/accounts/user/")

    assert page.url == f"{live_server.url}/login/?next=/admin/accounts/user/"
    expect(page.locator("h1")).to_have_text("Log in")


def test_the_skills_page_renders_skill_md_with_its_script_as_text(
    skills: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    log_in(page, live_server.url, "reviewer", "/skills/")

    skill = page.locator("#global-skill .markdown")
    expect(skill.locator("h2")).to_have_text("Checkout runbook")
    expect(skill).to_contain_text("<script>window.__owned = true</script>")
    assert skill.locator("script").count() == 0
    assert page.evaluate("window.__owned === undefined")

    skill.get_by_role("link", name="auth").click()
    expect(page.locator("main h1")).to_have_text("learnings/_global/references/auth.md")


def test_an_admin_locks_a_step_with_a_reason_and_rolls_the_lock_back(
    seeded: None, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    log_in(page, live_server.url, "admin", "/steps/checkout/")

    page.get_by_label("Lock learnings").check()
    expect(page.get_by_label("Review notes")).to_have_class("needed")
    page.get_by_role("button", name="Save settings").click()
    expect(page.locator("[data-field=review_notes]")).to_contain_text("required")

    page.get_by_label("Lock learnings").check()
    page.get_by_label("Review notes").fill("The checkout skill is stable; stop writing.")
    page.get_by_role("button", name="Save settings").click()
    expect(page.locator(".message-success")).to_contain_text("as refinement")
    expect(page.locator(".page-head .flag-locked")).to_have_text("locked")
    lock = Refinement.objects.get()
    screenshot(page, "console-step-locked")

    page.get_by_role("button", name=f"Roll back {lock.refinement_id}").click()
    assert answer_in_page(page, confirm=True) == f"Roll back {lock.refinement_id}?"
    expect(page.locator(".message-success")).to_contain_text(f"Rolled back {lock.refinement_id}")
    expect(page.locator(".page-head .flag-locked")).to_have_count(0)
    expect(page.get_by_label("Lock learnings")).not_to_be_checked()


@pytest.mark.parametrize("width", WIDTHS)
def test_every_console_page_fits_a_desktop_and_a_phone(
    skills: None, live_server: LiveServer, browser_page: Page, width: int
) -> None:
    page = browser_page
    page.add_init_script(RECORD_VIOLATIONS)
    page.set_viewport_size({"width": width, "height": 900})
    log_in(page, live_server.url, "admin")
    ApiTokenFactory.create(name="a-token-with-a-long-name-for-the-checkout-agent")
    pages = [
        ("people", "/accounts/"),
        ("tokens", "/accounts/tokens/"),
        ("own-tokens", "/tokens/"),
        ("skills", "/skills/"),
        ("skill", f"/skills/{GLOBAL_SKILL}"),
        ("step", "/steps/checkout/"),
    ]
    for name, path in pages:
        page.goto(f"{live_server.url}{path}")
        page.wait_for_selector("main h1")
        no_sideways_scroll(page)
        assert page.evaluate("window.__cspViolations") == [], path
        screenshot(page, f"console-{name}-{width}")

    page.goto(f"{live_server.url}/tokens/")
    page.get_by_label("Label").fill("laptop")
    page.get_by_role("button", name="Create token").click()
    expect(page.locator("#new-token-value")).to_be_visible()
    no_sideways_scroll(page)
    screenshot(page, f"console-own-token-created-{width}")

    page.context.clear_cookies()
    log_in(page, live_server.url, "annotator")
    page.goto(f"{live_server.url}/admin/")
    no_sideways_scroll(page)
    screenshot(page, f"console-admin-403-{width}")


@pytest.fixture
def objective_changed(seeded: None) -> str:
    """A change of the checkout step's settings, to roll back; made before `browser_page`."""
    admin = PrincipalFactory.build(role=Role.ADMIN, name="admin")
    step_update(
        principal=admin, step_id="checkout", changes={"learning_objective": "fewer retries"}
    )
    return Refinement.objects.get().refinement_id


@pytest.mark.parametrize("width", WIDTHS)
def test_each_dangerous_action_asks_in_a_dialog_that_fits_the_screen(
    objective_changed: str, live_server: LiveServer, browser_page: Page, width: int
) -> None:
    page = browser_page
    page.set_viewport_size({"width": width, "height": 844})
    ApiTokenFactory.create(name="gym-1", role="environment")
    log_in(page, live_server.url, "admin")
    asks = [
        ("step", "/steps/checkout/", f"Roll back {objective_changed}", "Roll back"),
        ("people", "/accounts/", "Deactivate reviewer", "Deactivate"),
        ("tokens", "/accounts/tokens/", "Revoke gym-1", "Revoke"),
    ]
    dialog = page.get_by_role("alertdialog")
    for name, path, button, action in asks:
        page.goto(f"{live_server.url}{path}")
        page.get_by_role("button", name=button, exact=True).click()
        expect(dialog).to_be_visible()
        expect(dialog.locator("h2")).to_have_text(f"{button}?")
        expect(dialog.get_by_role("button", name=action, exact=True)).to_be_in_viewport()
        expect(dialog.get_by_role("button", name="Cancel")).to_be_focused()
        no_sideways_scroll(page)
        screenshot(page, f"console-confirm-{name}-{width}", full_page=False)
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
    page.goto(f"{live_server.url}/steps/checkout/")
    expect(page.get_by_role("button", name=f"Roll back {objective_changed}")).to_be_visible()
    assert Refinement.objects.count() == 1  # nothing was rolled back
