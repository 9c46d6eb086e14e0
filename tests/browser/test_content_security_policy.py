"""Every page works under the Content-Security-Policy, for each role, on a desktop and a phone.

The browser reports each blocked script, style, image, connection or form as a
`securitypolicyviolation` event and a console error; a page passes when there are none.
Screenshots land in var/screenshots/csp-<role>-<width>-<page>.png.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from core.accounts.models import User
from feedback.models import Turn
from refinement.models import Plan
from tests.browser.helpers import log_in, screenshot

if TYPE_CHECKING:
    from playwright.sync_api import Page

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    # Static files under ASGI (as `make run` serves them) stream from a file; Django says so.
    pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume synchronous iterators"),
]

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} blocked ${event.blockedURI || "inline"}`
    + ` at ${event.sourceFile}:${event.lineNumber}`);
});
"""

WIDTHS = [1280, 390]


class Violations:
    """What the browser refused on the pages visited, from its events and its console."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.seen: list[str] = []
        page.add_init_script(RECORD_VIOLATIONS)
        page.on("console", self._console)

    def _console(self, message: Any) -> None:
        if message.type == "error" and "Content Security Policy" in message.text:
            self.seen.append(f"{self.page.url}: {message.text}")

    def visit(self, url: str, *, ready: str = "main") -> None:
        response = self.page.goto(url)
        assert response is not None and "content-security-policy" in response.headers, url
        self.page.wait_for_selector(ready)
        self.collect()

    def collect(self) -> None:
        for violation in self.page.evaluate("window.__cspViolations || []"):
            self.seen.append(f"{self.page.url}: {violation}")


def portal_pages(role: str) -> list[tuple[str, str, str]]:
    """(name, path, a selector that shows the page rendered) for the pages this role uses."""
    turn = Turn.objects.order_by("pk").first()
    plan = Plan.objects.order_by("pk").first()
    assert turn is not None and plan is not None
    proposal_id = plan.proposals.order_by("pk").values_list("proposal_id", flat=True).first()
    common = [
        ("home", "/", ".tiles"),
        ("api-docs", "/api/docs/", ".swagger-ui .info .title"),
        ("explorer", "/explorer/", "table.explorer"),
        ("turn-detail", f"/explorer/turns/{turn.pk}/", ".response-text"),
        ("components", "/components/", "table.components-table"),
        ("component", "/components/code_review/", "svg.histogram"),
    ]
    by_role = {
        "annotator": [
            ("turns", "/turns/", ".turns"),
            ("rate", f"/turns/{turn.pk}/", "#rating-form"),
            ("queue", "/queue/", "#queue-page .shortcuts-open:not([hidden])"),
            ("forbidden", "/plans/", ".big-code"),
            ("project", "/projects/default/", "form.project-settings"),
            ("project-rubric", "/projects/default/rubric/", "#rubric-preview"),
        ],
        "reviewer": [
            ("queue", "/queue/", "#queue-page .shortcuts-open:not([hidden])"),
            ("plans", "/plans/", "table.plans"),
            ("plan", f"/plans/{plan.plan_id}/", ".proposal .weight-diff"),
            ("confirm", f"/plans/{plan.plan_id}/proposals/{proposal_id}/reject/", "#confirm"),
            ("history", "/history/", "#history-list"),
            ("agreement", "/agreement/", "table.agreement"),
            ("import", "/turns/import/", "form.import-upload"),
        ],
        "admin": [
            ("history", "/history/", "#history-list"),
            ("admin", "/admin/", "#content-main"),
            ("admin-users", "/admin/accounts/user/", "#result_list"),
            (
                "admin-change",
                f"/admin/accounts/user/{User.objects.get(username='admin').pk}/change/",
                "#user_form",
            ),
            ("admin-token-add", "/admin/accounts/apitoken/add/", "#apitoken_form"),
            ("projects", "/projects/", "table.projects"),
            ("project-members", "/projects/default/members/", "table.members"),
            ("project-rubric", "/projects/default/rubric/", ".builder-preview[aria-busy=false]"),
        ],
    }
    return common + by_role[role]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("role", ["annotator", "reviewer", "admin"])
def test_every_page_of_a_role_loads_with_no_policy_violation(
    seeded: None, asgi_server: str, browser_page: Page, role: str, width: int
) -> None:
    page = browser_page
    page.set_viewport_size({"width": width, "height": 844 if width < 600 else 800})
    violations = Violations(page)

    violations.visit(f"{asgi_server}/login/", ready="form")
    screenshot(page, f"csp-{role}-{width}-login")
    log_in(page, asgi_server, role)
    too_wide = []
    for name, path, ready in portal_pages(role):
        violations.visit(f"{asgi_server}{path}", ready=ready)
        if name == "history":
            # The live badge shows once /ws/events/ is open: connect-src lets the socket through.
            page.wait_for_selector("#live:not([hidden])")
        screenshot(page, f"csp-{role}-{width}-{name}")
        scroll_width = page.evaluate("document.documentElement.scrollWidth")
        if not name.startswith(("admin", "api-docs")) and scroll_width > width:
            too_wide.append((name, scroll_width))  # the portal's own pages fit the screen

    assert violations.seen == []
    assert too_wide == []


def test_the_admin_saves_a_change_under_the_policy(
    seeded: None, asgi_server: str, browser_page: Page
) -> None:
    page = browser_page
    violations = Violations(page)
    log_in(page, asgi_server, "admin")
    annotator = User.objects.get(username="annotator")
    violations.visit(
        f"{asgi_server}/admin/accounts/user/{annotator.pk}/change/", ready="#user_form"
    )
    page.fill("input[name=first_name]", "Ann")
    page.click("input[name=_save]")
    page.wait_for_selector(".messagelist .success")
    violations.collect()
    screenshot(page, "csp-admin-saved")
    assert User.objects.get(pk=annotator.pk).first_name == "Ann"
    assert violations.seen == []
