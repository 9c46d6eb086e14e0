"""The gold pages (feedback.gold.pages): a manager marks a turn as gold from its page, each
refusal beside its question and nothing stored; /gold/ lists the gold items, newest first a page
at a time, and each person's accuracy, a paused queue with a Resume; annotators and reviewers
see none of it; stored answers that no longer fit, forged cursors and HTML in stored values
break nothing."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import pytest
from bs4 import BeautifulSoup, Tag
from django.urls import reverse

from core.inputs import signed_id
from feedback.gold import pages
from feedback.gold.models import GoldComparison, GoldItem, QueuePause
from tests.feedback.comparisons.test_comparisons_api import pair, submit
from tests.feedback.gold.test_gold import KNOWN, mark, queued, rubric, settings_set
from tests.feedback.gold.test_gold_comparisons import best_of
from tests.feedback.gold.test_gold_comparisons import mark as gold_mark_comparison
from tests.harness import default_pk, human_actor

if TYPE_CHECKING:
    from django.test import Client

    from tests.harness import Actor

pytestmark = pytest.mark.django_db
__all__ = ["rubric"]  # the fixture, used by name

GOLD = "/gold/"


@pytest.fixture
def lead(db: None) -> Actor:
    return human_actor("lead", "manager")


def turn_url(turn_id: int) -> str:
    return reverse("portal:turn_detail", args=[turn_id])


def mark_url(turn_id: int) -> str:
    return reverse("portal:gold_mark", args=[turn_id])


def soup_of(response: Any) -> BeautifulSoup:
    return BeautifulSoup(response.content, "html.parser")


def one(soup: BeautifulSoup | Tag, selector: str) -> Tag:
    found = soup.select_one(selector)
    assert found is not None, selector
    return found


def text(soup: BeautifulSoup | Tag, selector: str) -> str:
    return " ".join(one(soup, selector).get_text(" ", strip=True).split())


def chosen(soup: BeautifulSoup, name: str) -> list[str]:
    return [str(box["value"]) for box in soup.select(f"input[name={name}][checked]")]


def messages_of(response: Any) -> str:
    return text(soup_of(response), ".messages")


def listed(page: Any) -> dict[str, dict[str, str]]:
    """The gold page's items: correlation id to its answers in words, question to answer."""
    return {
        text(item, ".gold-turn"): {
            text(row, "dt"): text(row, "dd") for row in item.select(".gold-answers > div")
        }
        for item in soup_of(page).select(".gold-item")
    }


def paused_once(agent: Actor, boss: Actor, ann: Actor) -> int:
    """ann rates the one gold item (the queue's first) wrong and is paused: its turn's id."""
    (gold_id,) = queued(agent, "g-1")
    queued(agent, "t-1")
    assert mark(boss, gold_id, KNOWN).status_code == 200
    settings_set(gold_rate=0.5, gold_min_items=1, gold_pause_below=0.7)
    held = ann.rest("post", "/api/queue/next/").json()["turn"]["correlation_id"]
    wrong = {"verdict": "wrong", "quality": 4}
    assert ann.rest("post", "/api/ratings/", {"turn": held, "answers": wrong}).status_code == 201
    assert QueuePause.objects.filter(username="ann", resumed__isnull=True).exists()
    return gold_id


def test_a_manager_marks_a_turn_gold_from_its_page_and_it_lists_on_the_gold_page(
    agent: Actor, lead: Actor, rubric: None
) -> None:
    (turn_id,) = queued(agent, "g-1")
    browser = lead.browser()
    card = one(soup_of(browser.get(turn_url(turn_id))), "#gold-card")
    legends = [legend.get_text(strip=True) for legend in card.select("legend")]
    assert legends == ["Verdict", "Quality"]  # the text question takes no gold answer
    assert card.select_one(".required") is None  # none is required
    assert chosen(soup_of(browser.get(turn_url(turn_id))), "c-gold-verdict") == [""]  # Not known
    assert card.select_one("form.gold-remove") is None  # no gold item yet: nothing to remove

    sent = browser.post(mark_url(turn_id), {"c-gold-verdict": "right", "c-gold-quality": "4"})
    assert (sent.status_code, sent["Location"]) == (302, turn_url(turn_id))
    gold = GoldItem.objects.get(turn_id=turn_id)
    assert (gold.answers, gold.by) == ({"verdict": "right", "quality": 4.0}, "lead")
    back = browser.get(turn_url(turn_id))
    assert messages_of(back) == "Saved g-1 as a gold item: 2 known answers."
    soup = soup_of(back)
    assert chosen(soup, "c-gold-verdict") == ["right"]
    assert one(soup, "input[name=c-gold-quality]")["value"] == "4"
    assert text(soup, "#gold-title") == "Gold answers Gold item"
    assert soup.select_one("#gold-card form.gold-remove") is not None

    page = browser.get(GOLD)
    assert page.status_code == 200
    assert listed(page) == {"g-1": {"Verdict": "right", "Quality": "4"}}
    item = one(soup_of(page), ".gold-item")
    assert one(item, "a.gold-turn")["href"] == turn_url(turn_id)
    assert "rated by 0 people · marked by lead" in text(item, ".gold-item-head")


def test_a_bad_answer_is_refused_beside_its_field_with_what_was_typed_and_nothing_stored(
    agent: Actor, lead: Actor, rubric: None
) -> None:
    (turn_id,) = queued(agent, "g-1")
    browser = lead.browser()
    refused = browser.post(mark_url(turn_id), {"c-gold-verdict": "right", "c-gold-quality": "9"})
    assert refused.status_code == 400
    soup = soup_of(refused)
    assert text(soup, "#c-gold-quality-error") == "quality: 9 is outside [1, 5]"
    assert one(soup, "input[name=c-gold-quality]")["value"] == "9"
    assert chosen(soup, "c-gold-verdict") == ["right"]
    assert soup.select_one("#c-gold-verdict-error") is None
    assert one(soup, "#gold-form")["action"] == mark_url(turn_id) + "#gold-card"

    nothing = browser.post(mark_url(turn_id), {"c-gold-verdict": ""})
    assert nothing.status_code == 400
    assert "one question at least" in text(soup_of(nothing), "#gold-error")
    assert not GoldItem.objects.exists()


def test_the_default_rubric_takes_gold_answers_by_dimension(agent: Actor, boss: Actor) -> None:
    (turn_id,) = queued(agent, "g-1")
    browser = boss.browser()
    card = one(soup_of(browser.get(turn_url(turn_id))), "#gold-card")
    assert len(card.select("input[type=number]")) == 5  # one a dimension
    sent = browser.post(mark_url(turn_id), {"c-gold-correctness": "1", "c-gold-safety": ""})
    assert sent.status_code == 302
    assert GoldItem.objects.get(turn_id=turn_id).answers == {"correctness": 1.0}


def test_removing_from_the_turn_page_or_the_gold_page_takes_the_mark_off(
    agent: Actor, lead: Actor, rubric: None
) -> None:
    first, second = queued(agent, "g-1", "g-2")
    for turn_id in (first, second):
        assert mark(lead, turn_id, KNOWN).status_code == 200
    browser = lead.browser()
    gone = browser.post(mark_url(first), {"do": "remove"})
    assert (gone.status_code, gone["Location"]) == (302, turn_url(first))
    said = "g-1 is no gold item now: the results people had on it went with it."
    assert messages_of(browser.get(turn_url(first))) == said
    again = browser.post(mark_url(first), {"do": "remove"})
    assert "is no gold item" in messages_of(browser.get(again["Location"]))

    removed = browser.post(GOLD, {"do": "remove", "turn": str(second)})
    assert (removed.status_code, removed["Location"]) == (302, GOLD)
    page = browser.get(GOLD)
    assert "g-2 is no gold item now" in messages_of(page)
    assert not GoldItem.objects.exists()
    assert text(soup_of(page), "#items-empty").startswith("No gold item yet. To mark one")
    for forged in ("abc", "9" * 40, "-1", str(second + 1000)):
        browser.post(GOLD, {"do": "remove", "turn": forged})
        assert messages_of(browser.get(GOLD)).startswith("No such turn")


def test_the_gold_page_shows_a_paused_person_and_resume_resumes_them(
    agent: Actor, boss: Actor, ann: Actor, rubric: None
) -> None:
    paused_once(agent, boss, ann)
    browser = boss.browser()
    soup = soup_of(browser.get(GOLD))
    assert "Gold share 0.5" in text(soup, "#gold-rules")
    assert "Pause below accuracy 0.7 (0: off)" in text(soup, "#gold-rules")
    row = one(soup, 'tr[data-person="ann"]')
    assert text(row, ".gold-accuracy") == "50% (9\N{EN DASH}91%) 1 of 2 answers"
    assert text(row, ".gold-queue").startswith("Paused at 50% after 1 item")

    resumed = browser.post(GOLD, {"do": "resume", "username": "ann"})
    assert (resumed.status_code, resumed["Location"]) == (302, GOLD)
    page = browser.get(GOLD)
    said = "Resumed the queue of ann: only gold items they rate from now on judge them again."
    assert messages_of(page) == said
    assert text(one(soup_of(page), 'tr[data-person="ann"]'), ".gold-queue") == "Open"
    assert not QueuePause.objects.filter(resumed__isnull=True).exists()
    assert ann.rest("post", "/api/queue/next/").status_code == 200

    browser.post(GOLD, {"do": "resume", "username": "ann"})  # no longer paused: refused
    assert messages_of(browser.get(GOLD)) == "'ann' is not paused in this project."


def test_the_gold_page_without_gold_says_how_to_mark_one(boss: Actor) -> None:
    soup = soup_of(boss.browser().get(GOLD))
    assert text(soup, "#people-empty").startswith("Nobody has rated a gold item yet.")
    assert "open a turn's page" in text(soup, "#items-empty")
    assert one(soup, "#gold-rules a")["href"] == reverse("portal:project", args=["default"])


def test_annotators_and_reviewers_get_403_and_see_nothing_of_gold(
    agent: Actor, boss: Actor, ann: Actor, rev: Actor, rubric: None
) -> None:
    turn_id = paused_once(agent, boss, ann)
    for person in (ann, rev):
        browser = person.browser()
        assert browser.get(GOLD).status_code == 403
        assert browser.post(GOLD, {"do": "resume", "username": "ann"}).status_code == 403
        refused = browser.post(mark_url(turn_id), {"do": "remove"})
        assert refused.status_code == 403
        turn_page = browser.get(turn_url(turn_id))
        assert turn_page.status_code == 200
        assert "gold" not in turn_page.content.decode().lower()
        settings = browser.get(reverse("portal:project", args=["default"]))
        assert settings.status_code == 200 and 'href="/gold/"' not in settings.content.decode()
    assert GoldItem.objects.filter(turn_id=turn_id).exists()
    assert QueuePause.objects.filter(resumed__isnull=True).exists()
    managing = boss.browser().get(reverse("portal:project", args=["default"]))
    assert one(soup_of(managing), "#gold-page-link a")["href"] == GOLD


def test_stored_answers_that_no_longer_fit_break_no_page(
    agent: Actor, boss: Actor, rubric: None
) -> None:
    listless, stale = queued(agent, "g-list", "g-stale")
    for turn_id in (listless, stale):
        assert mark(boss, turn_id, KNOWN).status_code == 200
    GoldItem.objects.filter(turn_id=listless).update(answers=[1, 2])
    junk = {"gone": 1, "quality": "<b>x</b>", "verdict": "right", "why": {"a": [1]}}
    GoldItem.objects.filter(turn_id=stale).update(answers=junk)
    browser = boss.browser()
    page = browser.get(GOLD)
    assert page.status_code == 200
    unfit = "(no longer fits the rubric: not scored)"
    assert listed(page) == {
        "g-stale": {
            "Verdict": "right",
            "Quality": f"<b>x</b> {unfit}",
            "Why": f'{{"a": [1]}} {unfit}',
            "gone": f"1 {unfit}",
        },
        "g-list": {"(not by question)": f"1, 2 {unfit}"},
    }
    assert b"<b>x</b>" not in page.content and b"&lt;b&gt;x&lt;/b&gt;" in page.content
    for turn_id in (listless, stale):
        shown = browser.get(turn_url(turn_id))
        assert shown.status_code == 200
        assert one(soup_of(shown), "#gold-unfit")
    soup = soup_of(browser.get(turn_url(stale)))
    assert chosen(soup, "c-gold-verdict") == ["right"]  # what still fits fills the form in
    assert one(soup, "input[name=c-gold-quality]")["value"] == ""


def test_a_forged_cursor_shows_the_newest_page_and_pages_go_on_by_cursor(
    agent: Actor, boss: Actor, rubric: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pages, "PAGE_SIZE", 2)
    keys = [f"g-{i}" for i in range(3)]
    for turn_id in queued(agent, *keys):
        assert mark(boss, turn_id, KNOWN).status_code == 200
    browser = boss.browser()
    first = browser.get(GOLD)
    assert list(listed(first)) == ["g-2", "g-1"]  # newest first
    older = one(soup_of(first), "a[rel=next]")["href"]
    second = browser.get(GOLD + str(older))
    assert list(listed(second)) == ["g-0"]
    assert soup_of(second).select_one("a[rel=next]") is None
    other_salt = signed_id(GoldItem.objects.order_by("id")[1].pk, "feedback.reviews.cursor")
    for forged in ("forged", "cD1hYmM=", other_salt, "x" * 5000, "a\x00b"):
        refused = browser.get(GOLD, {"cursor": forged})
        assert refused.status_code == 400, forged
        soup = soup_of(refused)
        assert text(soup, "#cursor-error").startswith("No such page")
        assert list(listed(refused)) == ["g-2", "g-1"]


def test_html_in_stored_values_is_escaped(agent: Actor, boss: Actor, rubric: None) -> None:
    (turn_id,) = queued(agent, "g-1")
    assert mark(boss, turn_id, KNOWN).status_code == 200
    hostile = "<script>alert(1)</script>"
    GoldItem.objects.filter(turn_id=turn_id).update(by=hostile, answers={"verdict": hostile})
    QueuePause.objects.create(
        project_id=default_pk(), username=hostile, accuracy=0.1, items=3, threshold=0.5,
        ts=time.time(),
    )  # fmt: skip
    browser: Client = boss.browser()
    for url in (GOLD, turn_url(turn_id)):
        shown = browser.get(url)
        assert shown.status_code == 200
        assert hostile.encode() not in shown.content
        assert b"&lt;script&gt;alert(1)&lt;/script&gt;" in shown.content
    row = one(soup_of(browser.get(GOLD)), ".gold-people tbody tr")
    assert row["data-person"] == hostile and text(row, ".gold-accuracy") == "—"


def test_the_gold_page_lists_gold_comparisons_with_their_best_answer_and_removes_one(
    agent: Actor, lead: Actor
) -> None:
    submit(agent, pair("c-1"))
    best = best_of("c-1")
    assert gold_mark_comparison(lead, "c-1", best).status_code == 200
    browser = lead.browser()
    row = one(soup_of(browser.get(GOLD)), "li[data-comparison]")
    assert text(row, ".gold-turn") == "c-1"
    assert text(row, ".gold-answers dd") == "c-1: four solver-a"
    comparison = row["data-comparison"]
    removed = browser.post(GOLD, {"do": "remove-comparison", "comparison": comparison})
    assert (removed.status_code, removed["Location"]) == (302, GOLD)
    page = browser.get(GOLD)
    assert messages_of(page) == "That comparison is no gold item now."
    assert not GoldComparison.objects.exists()
    assert "No gold comparison yet" in text(soup_of(page), "#comparisons-empty")
    for forged in ("abc", "9" * 40, comparison):
        browser.post(GOLD, {"do": "remove-comparison", "comparison": forged})
        assert messages_of(browser.get(GOLD)) == "No such gold comparison: nothing was removed."
