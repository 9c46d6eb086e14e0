"""Pages that change as data arrives, in headless Chromium against the real ASGI server.

A second browser sees what others do without reloading; a flood of feedback reaches it as a
few messages a second; when the server goes away, or Redis under it, the page says so and
recovers; the frame (menu, skip link, labels) works at a phone's width by keyboard.
Screenshots: var/screenshots/.
"""

from __future__ import annotations

import json
import socket
import threading
import urllib.request
from typing import TYPE_CHECKING, Any

import pytest
from playwright.sync_api import Page, expect

from feedback.selectors.overview import feedback_count
from learnportal.ws.events import PAUSED_MESSAGE
from refinement.models import Plan
from tests.browser.helpers import log_in, screenshot
from tests.factories import ApiTokenFactory, UserFactory
from tests.harness import default_pk

if TYPE_CHECKING:
    from collections.abc import Iterator

    from tests.processes import RedisServer

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume synchronous iterators"),
]

# Counts what the page's socket hears, in the page, with the time of each frame.
COUNT_FRAMES = """
window.__liveFrames = [];
const Native = window.WebSocket;
window.WebSocket = function (url, protocols) {
  const socket = new Native(url, protocols);
  socket.addEventListener("message", (m) => {
    let event = "";
    try { event = JSON.parse(m.data).event; } catch (e) {}
    window.__liveFrames.push([performance.now(), event]);
  });
  return socket;
};
window.WebSocket.prototype = Native.prototype;
"""
NOT_RELOADED = "window.__sameDocument = true"
SAME_DOCUMENT = "window.__sameDocument === true"


def send_feedback(base_url: str, raw: str, feedbacks: list[dict[str, Any]]) -> None:
    body = json.dumps({"type": "learn/feedback/req", "feedbacks": feedbacks}).encode()
    request = urllib.request.Request(
        f"{base_url}/api/learn/",
        data=body,
        headers={"Authorization": f"Bearer {raw}", "Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 200


def open_as(page: Page, base_url: str, username: str, path: str) -> Page:
    """Another browser (a context of its own: its own cookies) logged in as `username`."""
    browser = page.context.browser
    assert browser is not None
    other = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    other.set_default_timeout(10_000)
    log_in(other, base_url, username, path)
    return other


def demo_weight() -> tuple[str, str]:
    """The demo plan's first routing-weight proposal: its plan id and its proposal id."""
    plan = Plan.objects.get(requested_by="token:demo-agent")
    weight = plan.proposals.filter(target="router_weight").order_by("id").first()
    assert weight is not None
    return plan.plan_id, weight.proposal_id


def approve_elsewhere(
    page: Page, base_url: str, username: str, plan_id: str, proposal_id: str
) -> Page:
    """Another browser, logged in as `username`, approves the proposal; it is left open."""
    other = open_as(page, base_url, username, f"/plans/{plan_id}/")
    other.locator(f"article#{proposal_id} button.approve").click()
    other.click("#confirm button.approve")
    expect(other.locator(".message-success")).to_be_visible()
    return other


def test_a_second_browser_sees_new_feedback_and_a_plans_state_change_without_reloading(
    seeded: None, asgi_server: str, browser_page: Page
) -> None:
    raw = ApiTokenFactory.create(name="live-agent").raw
    dashboard = browser_page
    log_in(dashboard, asgi_server, "admin")
    expect(dashboard.locator("#live-status")).to_be_empty()
    dashboard.evaluate(NOT_RELOADED)
    before = feedback_count(default_pk())
    counter = dashboard.locator("[data-live-value=feedback_count]")
    expect(counter).to_have_text(str(before))

    send_feedback(asgi_server, raw, [{"polarity": "positive", "component_name": "web_search"}] * 3)
    expect(counter).to_have_text(str(before + 3))
    assert dashboard.evaluate(SAME_DOCUMENT)

    plan_id, proposal_id = demo_weight()
    dashboard.goto(f"{asgi_server}/plans/{plan_id}/")
    dashboard.evaluate(NOT_RELOADED)
    status = dashboard.locator(f"article#{proposal_id} .proposal-head .status")
    expect(status).to_have_text("pending")

    reviewer = approve_elsewhere(dashboard, asgi_server, "reviewer", plan_id, proposal_id)
    expect(status).to_have_text("approved")
    assert dashboard.evaluate(SAME_DOCUMENT)
    screenshot(dashboard, "live-plan-approved-elsewhere")
    reviewer.context.close()


def test_the_history_shows_a_decision_made_elsewhere_without_reloading(
    seeded: None, asgi_server: str, browser_page: Page
) -> None:
    plan_id, proposal_id = demo_weight()
    history = browser_page
    log_in(history, asgi_server, "reviewer", "/history/")
    expect(history.locator("#live")).to_be_visible()
    history.evaluate(NOT_RELOADED)
    newest = history.locator("#history-list .entry").first.locator(".kind-badge")
    expect(newest).not_to_have_text("approve")

    other = approve_elsewhere(history, asgi_server, "admin", plan_id, proposal_id)
    expect(newest).to_have_text("approve")
    assert history.evaluate(SAME_DOCUMENT)
    other.context.close()


def test_a_dashboard_hears_a_few_messages_a_second_while_an_agent_ingests_100_batches(
    seeded: None, asgi_server: str, browser_page: Page
) -> None:
    raw = ApiTokenFactory.create(name="busy-agent").raw
    dashboard = browser_page
    dashboard.add_init_script(COUNT_FRAMES)
    log_in(dashboard, asgi_server, "reviewer")
    dashboard.wait_for_function("document.querySelector('#live-status') !== null")
    before = feedback_count(default_pk())
    batches, size = 100, 1000

    started = dashboard.evaluate("performance.now()")
    for n in range(batches):
        component = ("web_search", "summarize", "code_review")[n % 3]
        send_feedback(
            asgi_server, raw, [{"polarity": "positive", "component_name": component}] * size
        )
    expected = str(before + batches * size)
    expect(dashboard.locator("[data-live-value=feedback_count]")).to_have_text(expected)
    elapsed = (dashboard.evaluate("performance.now()") - started) / 1000

    frames = dashboard.evaluate("window.__liveFrames")
    events = {event for _, event in frames}
    assert events == {"feedback.recorded"}, events
    # A flush every half second at most, one message per topic: two a second, plus the first.
    assert len(frames) <= 2 * elapsed + 2, (len(frames), elapsed)
    # However fast or slow the ingest: in any second, three messages at most.
    times = [at for at, _ in frames]
    busiest = max(sum(1 for t in times if start <= t < start + 1000) for start in times)
    assert busiest <= 3, busiest
    expect(dashboard.locator("#live-status")).to_be_empty()


@pytest.fixture
def restartable_server(transactional_db: None) -> Iterator[Any]:
    """The ASGI server of conftest's `asgi_server`, which a test can stop and start again on
    the same port, as a deployment restarts."""
    import uvicorn

    from learnportal.asgi import application

    class Server:
        def __init__(self) -> None:
            self.port = 0
            self.start()

        def start(self) -> None:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(("127.0.0.1", self.port))
            sock.listen(64)
            self.port = sock.getsockname()[1]
            config = uvicorn.Config(application, lifespan="off", log_level="warning")
            self.server = uvicorn.Server(config)
            self.thread = threading.Thread(
                target=self.server.run, kwargs={"sockets": [sock]}, daemon=True
            )
            self.thread.start()
            self.sock = sock

        def stop(self) -> None:
            self.server.should_exit = True
            self.thread.join(timeout=30)
            self.sock.close()

        @property
        def url(self) -> str:
            return f"http://127.0.0.1:{self.port}"

    server = Server()
    yield server
    server.stop()


def test_the_page_says_it_is_offline_while_the_server_is_down_and_clears_it_when_back(
    seeded: None, restartable_server: Any, browser_page: Page
) -> None:
    page = browser_page
    base = restartable_server.url
    log_in(page, base, "reviewer", "/history/")
    expect(page.locator("#live")).to_be_visible()
    status = page.locator("#live-status")
    expect(status).to_be_empty()
    page.evaluate(NOT_RELOADED)

    restartable_server.stop()
    expect(status).to_have_text("Offline — reconnecting…")
    expect(page.locator("#live")).to_be_hidden()
    assert status.get_attribute("aria-live") == "polite"
    screenshot(page, "live-offline")

    restartable_server.start()
    expect(status).to_be_empty(timeout=15_000)
    expect(page.locator("#live")).to_be_visible()
    assert page.evaluate(SAME_DOCUMENT)


@pytest.mark.redis_server
def test_the_page_says_live_updates_are_paused_while_redis_is_down_and_clears_it_when_back(
    seeded: None, redis_server: RedisServer, settings: Any, asgi_server: str, browser_page: Page
) -> None:
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            "CONFIG": {"hosts": [redis_server.url]},
        }
    }
    page = browser_page
    log_in(page, asgi_server, "reviewer", "/history/")
    expect(page.locator("#live")).to_be_visible()
    status = page.locator("#live-status")
    expect(status).to_be_empty()
    page.evaluate(NOT_RELOADED)

    redis_server.kill()
    expect(status).to_have_text(PAUSED_MESSAGE, timeout=15_000)
    expect(page.locator("#live")).to_be_hidden()
    screenshot(page, "live-paused")

    redis_server.start()
    expect(status).to_be_empty(timeout=15_000)
    expect(page.locator("#live")).to_be_visible()
    assert page.evaluate(SAME_DOCUMENT)


def test_at_a_phones_width_the_menu_opens_by_keyboard_and_nothing_scrolls_sideways(
    seeded: None, asgi_server: str, browser_page: Page
) -> None:
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, asgi_server, "admin")
    log_out = page.get_by_role("button", name="Log out")
    expect(log_out).to_be_hidden()

    page.keyboard.press("Tab")
    expect(page.locator(".skip-link")).to_be_focused()
    expect(page.locator(".skip-link")).to_be_in_viewport()
    page.keyboard.press("Tab")  # the brand
    page.keyboard.press("Tab")
    summary = page.locator(".menu > summary")
    expect(summary).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("details.menu")).to_have_attribute("open", "")
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Overview")).to_be_focused()
    expect(page.get_by_role("link", name="Webhooks")).to_be_in_viewport()
    screenshot(page, "menu-open-390")
    page.keyboard.press("Escape")
    expect(summary).to_be_focused()
    expect(page.get_by_role("link", name="Overview")).to_be_hidden()

    page.keyboard.press("Tab")  # the person's menu, beside the pages'
    page.keyboard.press("Enter")
    expect(log_out).to_be_in_viewport()
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the open menus scroll sideways by {overflow}px"


UNLABELLED = """() => [...document.querySelectorAll("input, select, textarea, button")]
  .filter((el) => el.type !== "hidden" && el.getClientRects().length)
  .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute("aria-label")
                  && !el.getAttribute("aria-labelledby") && !el.getAttribute("title")
                  && !(el.tagName === "BUTTON" && el.textContent.trim()))
  .map((el) => el.outerHTML.slice(0, 120))"""


@pytest.mark.parametrize("width", [1280, 390])
def test_the_live_pages_fit_the_screen_label_every_control_and_are_live(
    seeded: None, asgi_server: str, browser_page: Page, width: int
) -> None:
    page = browser_page
    page.set_viewport_size({"width": width, "height": 844 if width < 600 else 800})
    log_in(page, asgi_server, "reviewer")
    plan = Plan.objects.get(requested_by="token:demo-agent")
    for name, path in [
        ("overview", "/"),
        ("plans", "/plans/"),
        ("plan", f"/plans/{plan.plan_id}/"),
        ("history", "/history/"),
        ("queue", "/queue/"),
    ]:
        page.goto(f"{asgi_server}{path}")
        page.wait_for_selector("main h1")
        page.wait_for_load_state("networkidle")
        overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 0, f"{path} scrolls sideways by {overflow}px"
        assert page.evaluate(UNLABELLED) == [], path
        expect(page.locator("#live-status")).to_be_empty()
        screenshot(page, f"live-{name}-{width}")


def test_an_empty_portal_tells_how_an_agent_sends_its_first_turn(
    asgi_server: str, browser_page: Page
) -> None:
    from learnportal import demo

    for username, role in demo.DEMO_USERS:
        UserFactory.create(username=username, password=demo.DEMO_PASSWORD, role=role)
    page = browser_page
    log_in(page, asgi_server, "reviewer")
    steps = page.locator("[data-live-region=first-steps]")
    expect(steps).to_contain_text("/api/turns/")
    screenshot(page, "overview-empty")
    page.evaluate(NOT_RELOADED)

    raw = ApiTokenFactory.create(name="first-agent").raw
    send_feedback(asgi_server, raw, [{"polarity": "positive", "component_name": "web_search"}])
    expect(steps).to_have_count(0)
    expect(page.locator("[data-live-value=feedback_count]")).to_have_text("1")
    expect(page.locator("table.components")).to_contain_text("web_search")
    assert page.evaluate(SAME_DOCUMENT)
