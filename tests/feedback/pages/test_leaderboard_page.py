"""The leaderboard page: what `GET /api/leaderboard/` says, in the same order with the same
figures, each interval drawn on one scale; by component or by model; the position bias and the
judges' agreement beside it; not for annotators, who judge blind to names."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from bs4 import BeautifulSoup, Tag
from django.urls import reverse

from core.accounts.roles import Role
from feedback.comparisons.judgments import JudgmentRequest, judgment_record
from feedback.comparisons.queue import candidates_shown
from tests.factories import PrincipalFactory

if TYPE_CHECKING:
    from tests.harness import Actor

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged(agent: Actor) -> None:
    """careful beats hasty twice (sent first once each), hasty beats sloppy once."""
    pairs = [("careful", "hasty"), ("hasty", "careful"), ("hasty", "sloppy")]
    winners = ["careful", "careful", "hasty"]
    body = {
        "comparisons": [
            {
                "prompt": f"q{n}",
                "candidates": [
                    {"response": name, "component_name": name, "model": f"m-{name}"}
                    for name in pair
                ],
            }
            for n, pair in enumerate(pairs)
        ]
    }
    sent = agent.rest("post", "/api/comparisons/", body).json()["comparisons"]
    person = PrincipalFactory.build(role=Role.ANNOTATOR, name="ann")
    for comparison, better in zip(sent, winners, strict=True):
        shown = [response for _, response in candidates_shown(comparison["id"], "ann")]
        preference = -1 if shown[0] == better else 1
        judgment_record(
            principal=person,
            comparison=comparison["id"],
            judgment=JudgmentRequest(preference=preference),
        )


def rows(page: Any) -> list[dict[str, str]]:
    soup = BeautifulSoup(page.content, "html.parser")
    return [
        {
            "name": str(tr["data-name"]),
            "strength": cell(tr, 'td[data-label="Strength"]'),
            "won": cell(tr, 'td[data-label="Won"]'),
        }
        for tr in soup.select("table.leaderboard tbody tr")
    ]


def cell(tag: Tag, selector: str) -> str:
    found = tag.select_one(selector)
    assert found is not None, selector
    return found.get_text(strip=True)


def test_the_page_shows_what_the_api_answers_in_its_order(judged: None, rev: Actor) -> None:
    page = rev.browser().get(reverse("portal:leaderboard"))
    assert page.status_code == 200
    answer = rev.rest("get", "/api/leaderboard/").json()
    assert rows(page) == [
        {"name": e["name"], "strength": f"{e['strength']:.2f}", "won": str(e["wins"])}
        for e in answer["entries"]
    ]
    assert [row["name"] for row in rows(page)] == ["careful", "hasty", "sloppy"]
    soup = BeautifulSoup(page.content, "html.parser")
    assert f"{answer['position_bias']:.3f}" in cell(soup, "#position-bias")
    assert {tr["data-key"] for tr in soup.select("tr[data-key]")} == {"preference", "winner"}


def test_each_interval_is_drawn_inside_one_scale(judged: None, rev: Actor) -> None:
    soup = BeautifulSoup(rev.browser().get(reverse("portal:leaderboard")).content, "html.parser")
    bars = soup.select("svg.interval-bar rect.bar")
    assert len(bars) == 3
    for bar in bars:
        x, width = float(str(bar["x"])), float(str(bar["width"]))
        assert x >= 0 and x + width <= 100.01
    assert min(float(str(bar["x"])) for bar in bars) == 0


def test_by_model_ranks_the_models_and_an_unknown_choice_ranks_components(
    judged: None, rev: Actor
) -> None:
    browser = rev.browser()
    by_model = rows(browser.get(reverse("portal:leaderboard") + "?by=model"))
    assert {row["name"] for row in by_model} == {"m-careful", "m-hasty", "m-sloppy"}
    fallback = rows(browser.get(reverse("portal:leaderboard") + "?by=%00colour"))
    assert {row["name"] for row in fallback} == {"careful", "hasty", "sloppy"}


def test_the_agreement_page_leads_to_it(rev: Actor) -> None:
    page = rev.browser().get(reverse("portal:agreement"))
    assert reverse("portal:leaderboard").encode() in page.content


def test_with_no_judgment_the_page_says_how_to_begin(rev: Actor) -> None:
    page = rev.browser().get(reverse("portal:leaderboard"))
    assert page.status_code == 200
    assert b"POST /api/comparisons/" in page.content
    assert b"No decisive pair judged yet" in page.content


def test_annotators_are_refused_the_page_and_not_shown_its_link(judged: None, ann: Actor) -> None:
    browser = ann.browser()
    assert browser.get(reverse("portal:leaderboard")).status_code == 403
    assert reverse("portal:leaderboard").encode() not in browser.get(reverse("portal:home")).content


def test_a_bias_beyond_doubt_is_flagged_and_one_within_it_is_not(
    judged: None, agent: Actor, rev: Actor
) -> None:
    flag = b"0.5 lies outside"
    assert flag not in rev.browser().get(reverse("portal:leaderboard")).content
    body = {
        "comparisons": [
            {
                "prompt": f"lazy {n}",
                "candidates": [
                    {"response": "x", "component_name": "careful"},
                    {"response": "y", "component_name": "sloppy"},
                ],
            }
            for n in range(12)
        ]
    }
    sent = agent.rest("post", "/api/comparisons/", body).json()["comparisons"]
    lazy = PrincipalFactory.build(role=Role.ANNOTATOR, name="lazy")
    for comparison in sent:  # always the first shown
        judgment_record(
            principal=lazy, comparison=comparison["id"], judgment=JudgmentRequest(preference=-2)
        )
    assert flag in rev.browser().get(reverse("portal:leaderboard")).content
