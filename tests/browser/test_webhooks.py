"""The admins' webhook pages in headless Chromium, at 1280 and 390 px: an endpoint registered
with its secret shown once, its delivery log filling as the worker sends, a redeliver; the
403 page for anyone else.

Screenshots: var/screenshots/webhooks-*.png.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import Page, expect
from standardwebhooks import Webhook

from tests.browser.helpers import log_in, screenshot, shown_once
from tests.builders import feedback, feedback_req
from tests.harness import Actor, http_send, ok
from tests.webhooks.receiver import Receiver, serve
from webhooks.delivery import client
from webhooks.models import Delivery
from webhooks.worker import deliver_due

if TYPE_CHECKING:
    from collections.abc import Iterator

    from pytest_django.live_server_helper import LiveServer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = [1280, 390]


@pytest.fixture
def receiver(settings: Any) -> Iterator[Receiver]:
    settings.LEARNPORTAL_WEBHOOK_ALLOW_PRIVATE = True  # the receiver listens on 127.0.0.1
    me = serve()
    yield me
    me.server.shutdown()
    me.server.server_close()


def worker_round() -> int:
    with client() as http:
        return deliver_due(http)


def at_each_width(page: Page, name: str) -> None:
    """A screenshot at each width, none of them scrolling sideways."""
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 844 if width < 600 else 800})
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{page.url} scrolls sideways by {overflow}px at {width}px"
        screenshot(page, f"webhooks-{name}-{width}")
    page.set_viewport_size({"width": WIDTHS[0], "height": 800})


def test_an_admin_registers_an_endpoint_sees_its_log_fill_and_redelivers(
    seeded: None, env: Actor, receiver: Receiver, live_server: LiveServer, browser_page: Page
) -> None:
    page = browser_page
    log_in(page, live_server.url, "admin", "/webhooks/")
    expect(page.locator(".empty")).to_contain_text("No endpoint yet")

    page.get_by_label("URL").fill(receiver.url)
    page.get_by_label("feedback.recorded").check()
    page.get_by_label("Description").fill("training pipeline")
    secret = shown_once(page, "Register endpoint")
    assert secret.startswith("whsec_")
    at_each_width(page, "registered")

    page.goto(f"{live_server.url}/webhooks/")
    assert secret not in page.content()  # shown once, never again
    row = page.locator("tr.endpoint", has_text=receiver.url)
    expect(row).to_contain_text("feedback.recorded")
    expect(row).to_contain_text("training pipeline")
    at_each_width(page, "index")

    row.get_by_role("link", name="Delivery log").click()
    expect(page.locator(".empty")).to_contain_text("Nothing sent yet")
    assert secret not in page.content()

    ok(http_send(env, feedback_req(feedback(component_name="c"), feedback(component_name="c"))))
    page.reload()
    delivery = page.locator("tr.delivery")
    expect(delivery).to_have_attribute("data-state", "pending")
    expect(delivery.get_by_role("button", name="Redeliver")).to_have_count(0)  # never tried

    assert worker_round() == 1
    page.reload()
    expect(delivery).to_have_attribute("data-state", "delivered")
    expect(delivery).to_contain_text("feedback.recorded")
    expect(delivery.locator("td[data-label='Last answer']")).to_have_text("200")
    at_each_width(page, "log")

    message_id = Delivery.objects.get().message_id
    delivery.get_by_role("button", name=f"Redeliver {message_id}").click()
    expect(page.locator(".message-success")).to_contain_text(f"{message_id} is queued")
    expect(delivery).to_have_attribute("data-state", "pending")
    assert worker_round() == 1
    page.reload()
    expect(delivery).to_have_attribute("data-state", "delivered")
    expect(delivery.locator("td[data-label='Attempts']")).to_have_text("1")

    assert receiver.ids() == [message_id, message_id]  # the same webhook-id both times
    for got in receiver.received:
        assert Webhook(secret).verify(got.body, got.headers)["data"]["count"] == 2


@pytest.mark.parametrize("who", ["reviewer", "annotator"])
def test_anyone_but_an_admin_gets_the_403_page(
    seeded: None, live_server: LiveServer, browser_page: Page, who: str
) -> None:
    page = browser_page
    log_in(page, live_server.url, who)
    assert page.locator("nav a[href='/webhooks/']").count() == 0
    for path in ["/webhooks/", "/webhooks/1/"]:
        response = page.goto(f"{live_server.url}{path}")
        assert response is not None and response.status == 403, path
        expect(page.locator("h1")).to_have_text("Not for your role")
        expect(page.locator("form[action='/webhooks/new/']")).to_have_count(0)
    if who == "reviewer":
        at_each_width(page, "refused")
