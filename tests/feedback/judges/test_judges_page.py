"""The judges' page, /judges/: a card a machine judge, its items and kappa as `GET /api/judges/`
computes them on the same data, a verdict in words, the confusion of polarities in a
disclosure; reviewers only; an empty state that says how a judge appears; a judge's name
escaped and bounded."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from bs4 import BeautifulSoup, Tag

from core.projects.models import Project
from feedback.judges.pages import NAME_SHOWN, TOO_FEW_ITEMS
from tests.builders import feedback, feedback_req, turn
from tests.harness import Actor, human_actor, token_actor

if TYPE_CHECKING:
    from tests.harness import ClientResponse

pytestmark = pytest.mark.django_db

LEVELS = [-1.0, -0.5, 0.0, 0.5, 1.0]
KEYS = [f"t-{i}" for i in range(20)]
TRUTH = {key: LEVELS[i % len(LEVELS)] for i, key in enumerate(KEYS)}


def judged_by(name: str, scores: dict[str, float]) -> None:
    """`name`, an environment, scores the turns `scores` names: one batch of feedback."""
    items = [
        feedback(feedback_id=f"{name[:20]}-{key}", source="env", score=score, correlation_id=key)
        for key, score in scores.items()
    ]
    response = token_actor(name, "environment").learn(feedback_req(*items))
    assert response.status_code == 200, response.content


@pytest.fixture
def rated(agent: Actor) -> None:
    """20 turns, each rated by a person (the five levels in turn)."""
    body = {"turns": [{"correlation_id": key, "rated_turn": turn()} for key in KEYS]}
    assert agent.rest("post", "/api/turns/", body).status_code == 201
    items = [
        feedback(feedback_id=f"h-{key}", source="human", score=TRUTH[key], correlation_id=key)
        for key in KEYS
    ]
    assert human_actor("pia", "annotator").learn(feedback_req(*items)).status_code == 200


@pytest.fixture
def three_judges(rated: None) -> None:
    """`careful` scores as people do; `contrary` the opposite; `hasty` a few turns only."""
    judged_by("careful", TRUTH)
    judged_by("contrary", {key: -score for key, score in TRUTH.items()})
    judged_by("hasty", {key: TRUTH[key] for key in KEYS[: TOO_FEW_ITEMS - 1]})


def soup(response: ClientResponse, status: int = 200) -> BeautifulSoup:
    assert response.status_code == status, response.content[:3000]
    return BeautifulSoup(response.content, "html.parser")


def one(node: BeautifulSoup | Tag, selector: str) -> Tag:
    found = node.select_one(selector)
    assert found is not None, f"nothing matches {selector}"
    return found


def cards(page: BeautifulSoup) -> dict[str, Tag]:
    return {str(card["data-judge"]): card for card in page.select(".judge-card")}


def text(node: Tag, selector: str) -> str:
    return " ".join(one(node, selector).get_text().split())


def test_each_judge_shows_the_items_and_kappa_the_api_computes(
    three_judges: None, rev: Actor
) -> None:
    answer: list[dict[str, Any]] = rev.rest("get", "/api/judges/").json()["results"]
    shown = cards(soup(rev.browser().get("/judges/")))
    assert (
        set(shown)
        == {row["judge"] for row in answer}
        == {
            "token:careful",
            "token:contrary",
            "token:hasty",
        }
    )
    for row in answer:
        question = one(shown[row["judge"]], f'tbody[data-question="{row["question"]}"]')
        assert text(question, "[data-label=Items]") == str(row["items"])
        kappa = row["kappa"]
        low, high = kappa["interval"]
        expected = f"{kappa['value']:.2f} ({low:.2f} to {high:.2f})"
        assert text(question, "[data-figure=kappa]") == expected


def test_a_judge_is_its_name_as_a_chip_the_full_name_in_its_title(
    three_judges: None, rev: Actor
) -> None:
    card = cards(soup(rev.browser().get("/judges/")))["token:careful"]
    chip = one(card, ".judge-chip")
    assert (chip.get_text(), chip["title"]) == ("careful", "token:careful")
    assert one(card, "h2")["aria-label"] == "Judge token:careful"


def test_the_verdict_reads_kappa_and_the_items_in_words(three_judges: None, rev: Actor) -> None:
    shown = cards(soup(rev.browser().get("/judges/")))
    verdicts = {name: text(card, ".verdict") for name, card in shown.items()}
    assert verdicts == {
        "token:careful": "agrees well",
        "token:contrary": "does not agree",
        "token:hasty": "too few items",
    }


def test_the_confusion_counts_each_polarity_against_the_peoples(
    three_judges: None, rev: Actor
) -> None:
    answer = {row["judge"]: row for row in rev.rest("get", "/api/judges/").json()["results"]}
    shown = cards(soup(rev.browser().get("/judges/")))
    for name in ("token:careful", "token:contrary"):
        table = one(shown[name], "details.judge-confusion table.confusion")
        assert one(table, "caption").get_text().strip()
        counts = {
            (str(row["data-judge-polarity"]), str(cell["data-people-polarity"])): int(
                cell.get_text()
            )
            for row in table.select("tr[data-judge-polarity]")
            for cell in row.select("td")
        }
        expected = answer[name]["confusion"]
        assert counts == {(a, b): n for a, by in expected.items() for b, n in by.items()}
        diagonal = {str(cell["data-people-polarity"]) for cell in table.select("td.agreed")}
        assert len(table.select("td.agreed")) == 3
        assert diagonal == {"negative", "neutral", "positive"}
    careful = one(shown["token:careful"], "table.confusion")
    # 20 turns, the five levels in turn: 8 negative, 4 neutral, 8 positive, all agreed
    assert [int(cell.get_text()) for cell in careful.select("td.agreed")] == [8, 4, 8]
    contrary = one(shown["token:contrary"], 'tr[data-judge-polarity="positive"]')
    assert text(contrary, '[data-people-polarity="negative"]') == "8"


def test_an_annotator_gets_the_403_page(three_judges: None, ann: Actor) -> None:
    response = ann.browser().get("/judges/")
    assert response.status_code == 403
    assert "portal/403.html" in [t.name for t in response.templates]


def test_with_no_judge_the_page_says_how_one_appears(rated: None, rev: Actor) -> None:
    page = soup(rev.browser().get("/judges/"))
    assert not page.select(".judge-card")
    empty = text(page, ".judges-empty")
    assert "self" in empty and "env" in empty and "people rate too" in empty


def test_a_judge_named_in_html_is_escaped(rated: None, rev: Actor) -> None:
    judged_by("<b>gym</b>", TRUTH)
    response = rev.browser().get("/judges/")
    assert b"<b>gym" not in response.content
    assert b"&lt;b&gt;gym&lt;/b&gt;" in response.content
    assert one(soup(response), ".judge-chip").get_text() == "<b>gym</b>"


def test_a_very_long_judge_name_is_bounded_on_its_chip(rated: None, rev: Actor) -> None:
    name = "judge-" + "x" * 140
    judged_by(name, TRUTH)
    card = cards(soup(rev.browser().get("/judges/")))[f"token:{name}"]
    chip = one(card, ".judge-chip")
    assert len(chip.get_text()) <= NAME_SHOWN
    assert chip["title"] == f"token:{name}"
    assert name not in one(card, "caption").get_text()


def test_the_agreement_page_links_to_the_judges(rev: Actor) -> None:
    page = soup(rev.browser().get("/agreement/"))
    assert page.select_one('a[href="/judges/"]') is not None


def test_each_judge_has_a_page_of_its_own_and_a_name_of_none_is_a_404(
    three_judges: None, rev: Actor
) -> None:
    browser = rev.browser()
    everyone = soup(browser.get("/judges/"))
    link = one(cards(everyone)["token:careful"], "a.judge-chip")
    alone = soup(browser.get(f"/judges/{link['href']}"))
    assert set(cards(alone)) == {"token:careful"}
    assert one(alone, ".judges-back a")["href"] == "/judges/"
    missing = soup(browser.get("/judges/", {"judge": "token:nobody<b>"}), 404)
    assert "No judge named token:nobody<b>" in text(missing, "#judge-unknown")
    assert not missing.select(".judge-card")


def test_a_person_marked_as_a_judge_is_said_to_be_one(rated: None, boss: Actor) -> None:
    Project.objects.filter(slug="default").update(ratings_per_turn=2)
    bot = human_actor("bot", "annotator")
    items = [
        feedback(feedback_id=f"b-{key}", source="human", score=-TRUTH[key], correlation_id=key)
        for key in KEYS
    ]
    assert bot.learn(feedback_req(*items)).status_code == 200
    assert boss.rest("post", "/api/judges/marked/", {"username": "bot"}).status_code == 200
    card = cards(soup(boss.browser().get("/judges/")))["user:bot"]
    assert text(card, ".judge-head") == "bot a person marked as a judge"
