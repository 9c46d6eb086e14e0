"""A manager reads /annotators/ in headless Chromium: at 1280 px a table, a row a person; on a
390 px phone a card a person, each figure labelled; the page fits the window either way, a
very long name included. Nothing the Content-Security-Policy blocks.
Screenshots: var/screenshots/annotators-*.png."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from django.db.models import F
from playwright.sync_api import expect

from feedback.models import Lease, Rating, Turn
from learnportal import demo
from tests.browser.helpers import fits, log_in, screenshot
from tests.builders import feedback, feedback_req, turn
from tests.factories import UserFactory
from tests.harness import human_actor, token_actor

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page
    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LEVELS = [-1.0, -0.5, 0.0, 0.5, 1.0]
SCORES = {"correctness": 0.5, "helpfulness": -0.5}
KEYS = [f"t-{i}" for i in range(10)]
LONG_NAME = "annotator-" + "x" * 120  # no line can hold it
RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} blocked ${event.blockedURI || "inline"}`);
});
"""


def three_people() -> None:
    """Ten turns' scores: two people's alike, the long-named one's against them; `pia` rates
    two more from the queue, timed (a reviewer accepts one), then a gold item."""
    body = {"turns": [{"correlation_id": key, "rated_turn": turn()} for key in ("q-1", "q-2")]}
    assert token_actor("agent-a", "agent").rest("post", "/api/turns/", body).status_code == 201
    for name, sign in (("pia", 1), ("ole", 1), (LONG_NAME, -1)):
        items = [
            feedback(
                feedback_id=f"{name[:8]}-{key}",
                source="human",
                score=sign * LEVELS[i % len(LEVELS)],
                correlation_id=key,
            )
            for i, key in enumerate(KEYS)
        ]
        person = human_actor(name, "annotator")
        assert person.learn(feedback_req(*items)).status_code == 200
        if name == "pia":
            pia = person
    for _ in range(2):
        held = pia.rest("post", "/api/queue/next/").json()["turn"]["correlation_id"]
        Lease.objects.filter(username="pia").update(created=F("created") - 42)
        sent = pia.rest("post", "/api/ratings/", {"turn": held, "answers": {"correctness": 0.5}})
        assert sent.status_code == 201
    gold = Turn.objects.get(correlation_id="q-1").pk
    lead = human_actor("gina", "manager")
    assert lead.rest("put", f"/api/turns/{gold}/gold/", {"answers": SCORES}).status_code == 200
    assert pia.rest("post", "/api/ratings/", {"turn": "q-1", "answers": SCORES}).status_code == 201
    rating = Rating.objects.filter(annotator="pia", turn__correlation_id="q-2").get().rating_id
    review = {"feedback_id": f"{rating}.correctness", "decision": "accept"}
    assert human_actor("rex", "reviewer").rest("post", "/api/reviews/", review).status_code == 201


def manager(chromium: Browser, live_server: LiveServer, width: int) -> Page:
    UserFactory.create(username="lena", role="manager", password=demo.DEMO_PASSWORD)
    phone = width < 700
    context = chromium.new_context(
        viewport={"width": width, "height": 844 if phone else 800},
        has_touch=phone,
        is_mobile=phone,
    )
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.add_init_script(RECORD_VIOLATIONS)
    log_in(page, live_server.url, "lena", "/annotators/")
    return page


@pytest.mark.parametrize("width", [1280, 390])
def test_a_manager_reads_everyones_work_without_scrolling_sideways(
    live_server: LiveServer, chromium: Browser, width: int
) -> None:
    three_people()
    page = manager(chromium, live_server, width)
    rows = page.locator("tr[data-person]")
    expect(rows).to_have_count(3)
    for row in rows.all():
        expect(row).to_be_visible()
        box = row.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    header = page.locator(".insight-table thead")
    if width < 700:  # cards: the header is for screen readers, each figure labelled
        box = header.bounding_box()
        assert box is not None and box["width"] <= 1
        assert rows.first.evaluate("row => getComputedStyle(row).display") == "grid"
    else:
        expect(header).to_be_visible()
    expect(page.locator("tr.stands-out")).to_have_count(1)
    fits(page)
    assert page.evaluate("window.__cspViolations") == []
    screenshot(page, f"annotators-{width}")
