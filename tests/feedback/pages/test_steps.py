"""A turn's run on the queue and the rate page: its steps as a tree in order, each with its bar
on the run's timeline, its input and output (JSON indented, long ones folded, errors marked),
and for the kinds the rubric asks about, a way to rate that one step (`?step=`), whose form
asks that kind's questions and whose rating names the step (docs/contract.md, "Traces")."""

from __future__ import annotations

from typing import Any

import pytest
from bs4 import BeautifulSoup, Tag
from django.test import Client

from core.accounts.models import User
from feedback.models import Lease, Rating, Turn
from feedback.pages.steps import FOLDED_LINES
from tests.builders import turn
from tests.harness import Actor, human_actor

pytestmark = pytest.mark.django_db

RUBRIC: list[dict[str, Any]] = [
    {"kind": "numeric", "key": "quality", "label": "Quality", "min": 1, "max": 5, "step": 1},
    {"kind": "boolean", "key": "tool_ok", "label": "Tool call correct?", "required": True,
     "hotkeys": ["y", "n"], "step_kinds": ["tool"]},
]  # fmt: skip
LONG_OUTPUT = "\n".join(f"line {i}" for i in range(FOLDED_LINES + 3))
STEPS: list[dict[str, Any]] = [
    {"step_id": "a1", "name": "agent", "kind": "agent", "start": 10.0, "end": 14.0},
    {"step_id": "c3", "parent_id": "a1", "name": "<b>answer</b>", "kind": "llm", "start": 13.0,
     "end": 14.0, "status": "error", "error": "context too long", "output": LONG_OUTPUT},
    {"step_id": "b2", "parent_id": "a1", "name": "weather", "kind": "tool", "start": 11.0,
     "end": 12.0, "input": '{"city":"Paris","days":[1,2]}', "output": "sunny"},
    {"step_id": "d4", "parent_id": "b2", "name": "http", "kind": "other", "start": 11.2},
]  # fmt: skip


@pytest.fixture
def traced(agent: Actor, boss: Actor) -> Turn:
    assert boss.rest("put", "/api/projects/default/rubric/", {"questions": RUBRIC}).status_code == (
        200
    )
    body = {"turns": [{"correlation_id": "t-1", "rated_turn": turn(), "steps": STEPS}]}
    assert agent.rest("post", "/api/turns/", body).status_code == 201
    return Turn.objects.get(correlation_id="t-1")


@pytest.fixture
def aria(traced: Turn) -> Client:
    human_actor("aria", "annotator")
    client = Client()
    client.force_login(User.objects.get(username="aria"))
    return client


def soup(response: Any) -> BeautifulSoup:
    assert response.status_code == 200, response.content[:2000]
    return BeautifulSoup(response.content, "html.parser")


def one(node: Tag, selector: str) -> Tag:
    found = node.select_one(selector)
    assert found is not None, f"nothing matches {selector}"
    return found


def test_the_run_shows_each_step_in_tree_order_with_its_depth_and_time(
    aria: Client, traced: Turn
) -> None:
    page = soup(aria.get(f"/turns/{traced.pk}/"))
    rows = page.select(".step-tree > li.step")
    assert [(li["data-step"], li["data-depth"]) for li in rows] == [
        ("a1", "0"),
        ("b2", "1"),
        ("d4", "2"),  # under b2, which began before c3
        ("c3", "1"),
    ]
    bars = {li["data-step"]: one(li, "rect.bar") for li in rows}
    assert (bars["a1"]["x"], bars["a1"]["width"]) == ("0.0", "100.0")
    assert (bars["b2"]["x"], bars["b2"]["width"]) == ("25.0", "25.0")
    assert one(rows[1], ".step-time").get_text() == "1.0 s"


def test_a_steps_text_is_escaped_json_indented_long_ones_folded_and_errors_marked(
    aria: Client, traced: Turn
) -> None:
    page = soup(aria.get(f"/turns/{traced.pk}/"))
    failed = one(page, 'li[data-step="c3"]')
    assert "step-error" in failed["class"]
    assert one(failed, ".step-label").get_text() == "<b>answer</b>"  # text, not markup
    assert one(failed, ".step-error-text").get_text() == "context too long"
    assert one(failed, "details.folded pre").get_text() == LONG_OUTPUT
    tool = one(page, 'li[data-step="b2"] pre.step-text').get_text()
    assert tool.splitlines()[:2] == ["{", '  "city": "Paris",']


def test_only_the_kinds_the_rubric_asks_about_can_be_rated_and_a_step_asks_its_own_questions(
    aria: Client, traced: Turn
) -> None:
    page = soup(aria.get("/queue/"))
    links = {li["data-step"]: li.select_one("a.rate-step") for li in page.select("li.step")}
    assert [key for key, link in links.items() if link is not None] == ["b2"]
    assert [legend.get_text(strip=True) for legend in page.select("#rubric-form legend")] == [
        "Quality"
    ]
    step_page = soup(aria.get(str(one(page, 'li[data-step="b2"] a.rate-step')["href"])))
    assert one(step_page, ".rated-step-note").get_text().startswith("Rating the tool step")
    assert one(step_page, "#response-text").get_text() == "sunny"
    assert [legend.get_text(strip=True) for legend in step_page.select("#rubric-form legend")] == [
        "Tool call correct?*"
    ]
    assert one(step_page, "input[name=step_id]")["value"] == "b2"


def test_a_step_rated_from_the_queues_turn_is_stored_on_it_and_the_turn_stays_leased(
    aria: Client, traced: Turn
) -> None:
    aria.get("/queue/")
    assert Lease.objects.filter(username="aria", turn=traced, step_id="").exists()
    posted = {"do": "rate", "turn": str(traced.pk), "rubric_version": "2", "step_id": "b2"}
    assert aria.post("/queue/", {**posted, "q-tool_ok": "no"}).status_code == 302
    rating = Rating.objects.get()
    assert (rating.step_id, rating.answers) == ("b2", {"tool_ok": False})
    assert Lease.objects.filter(username="aria", turn=traced, step_id="").exists()
    assert aria.post("/queue/", {**posted, "step_id": "", "q-quality": "4"}).status_code == 302
    assert not Lease.objects.filter(username="aria").exists()  # the turn is rated now


def test_the_queue_in_step_mode_hands_out_a_step_and_keeps_to_that_mode(
    aria: Client, traced: Turn
) -> None:
    page = soup(aria.get("/queue/?steps=tool"))
    assert one(page, ".rated-step-note").get_text().startswith("Rating the tool step weather")
    assert page.select("a.rate-step") == []  # the step is the queue's to hand out
    assert Lease.objects.get(username="aria").step_id == "b2"
    action = one(page, "#rubric-form")["action"]
    assert action == "/queue/?steps=tool"
    posted = {"do": "rate", "turn": str(traced.pk), "rubric_version": "2", "step_id": "b2"}
    answered = aria.post(str(action), {**posted, "q-tool_ok": "yes"})
    assert answered.status_code == 302
    assert answered["Location"] == "/queue/?steps=tool"
    assert not Lease.objects.filter(username="aria").exists()
    done = aria.get("/queue/?steps=tool")
    assert 'id="rubric-form"' not in done.content.decode()  # the one tool step is rated


def test_a_step_kind_the_queue_does_not_know_is_said_and_the_turns_are_offered(
    aria: Client, traced: Turn
) -> None:
    response = aria.get("/queue/?steps=spaceship")
    assert (response.status_code, response["Location"]) == (302, "/queue/")
    assert "is not a step kind" in aria.get("/queue/").content.decode()


def test_a_step_the_turn_does_not_have_is_refused_on_the_page_and_not_stored(
    aria: Client, traced: Turn
) -> None:
    posted = {"rubric_version": "2", "step_id": "zz", "q-quality": "3"}
    response = aria.post(f"/turns/{traced.pk}/", posted)
    assert response.status_code == 400
    assert "is not a step of this turn" in response.content.decode()
    assert not Rating.objects.exists()
    whole = soup(aria.get(f"/turns/{traced.pk}/?step=zz"))  # an unknown one: the whole turn
    assert whole.select_one(".rated-step-note") is None
