"""The comparison page, /compare/: one leased comparison at a time, judged blind (no component
or model on the page) in the order shown to this person: a five-point preference of two (A | B)
or a ranking of three and more, skipped or given back; every refusal shown on the page, nothing
stored (docs/contract.md, "Comparisons")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from bs4 import BeautifulSoup, Tag

from core.projects.services import project_add
from feedback.comparisons.models import Comparison, ComparisonLease, ComparisonSkip, Judgment
from feedback.comparisons.queue import shown_order
from tests.builders import turn
from tests.harness import Actor, human_actor, token_actor

if TYPE_CHECKING:
    from django.test import Client

    from tests.harness import ClientResponse

pytestmark = pytest.mark.django_db

PROMPT = "Which planet is largest?\nAnswer in one word."
NAMES = ("solver-alpha", "solver-beta", "solver-gamma", "model-zeta", "model-eta", "model-theta")


TURN = turn()


def candidate(response: str, component: str, model: str) -> dict[str, str]:
    return {"response": response, "component_name": component, "model": model}


def two(key: str, priority: int = 0) -> dict[str, Any]:
    return {
        "comparison_id": key,
        "prompt": PROMPT,
        "priority": priority,
        "candidates": [
            candidate(f"{key}: Jupiter.", "solver-alpha", "model-zeta"),
            candidate(f"{key}: Saturn, I think.", "solver-beta", "model-eta"),
        ],
    }


def three(key: str, priority: int = 0) -> dict[str, Any]:
    body = two(key, priority)
    body["candidates"].append(candidate(f"{key}: Jupiter, by far.", "solver-gamma", "model-theta"))
    return body


def submit(agent: Actor, *comparisons: dict[str, Any]) -> list[int]:
    """Send the comparisons as an agent does; their ids, in the order sent."""
    sent = agent.rest("post", "/api/comparisons/", {"comparisons": list(comparisons)})
    assert sent.status_code == 201, sent.content
    return [c["id"] for c in sent.json()["comparisons"]]


def soup(response: ClientResponse, status: int = 200) -> BeautifulSoup:
    assert response.status_code == status, response.content[:2000]
    return BeautifulSoup(response.content, "html.parser")


def one(node: BeautifulSoup | Tag, selector: str) -> Tag:
    found = node.select_one(selector)
    assert found is not None, f"nothing matches {selector}"
    return found


def order_for(comparison: int, who: str) -> list[str]:
    """The candidate ids in the order `who` is shown them."""
    ids = list(
        Comparison.objects.get(pk=comparison).candidates.values_list("candidate_id", flat=True)
    )
    return shown_order(comparison, ids, who)


def responses_for(comparison: int, who: str) -> list[str]:
    stored = Comparison.objects.get(pk=comparison).candidates
    by_id = dict(stored.values_list("candidate_id", "response"))
    return [by_id[c] for c in order_for(comparison, who)]


def shown_texts(page: BeautifulSoup) -> list[str]:
    return [block.get_text() for block in page.select(".candidate-text")]


def leased(client: Client) -> int:
    """The comparison the page shows this person."""
    page = soup(client.get("/compare/"))
    return int(str(one(page, "#judge-form input[name=comparison]")["value"]))


def judge(client: Client, comparison: int, **fields: str) -> ClientResponse:
    return client.post("/compare/", {"do": "judge", "comparison": str(comparison), **fields})


def error_text(page: BeautifulSoup) -> str:
    return " ".join(node.get_text(" ", strip=True) for node in page.select("[role=alert]"))


@pytest.fixture
def aria(ann: Actor) -> Client:
    return ann.browser()


def test_the_page_shows_the_prompt_and_both_candidates_in_the_persons_order_and_no_names(
    agent: Actor, ann: Actor, aria: Client
) -> None:
    (pk,) = submit(agent, two("c-1"))
    response = aria.get("/compare/")
    page = soup(response)
    assert one(page, ".compare-prompt").get_text() == PROMPT
    assert shown_texts(page) == responses_for(pk, "ann")
    titles = [h.get_text(" ", strip=True) for h in page.select(".candidate-title")]
    assert titles == ["A Response A", "B Response B"]
    assert [
        label.get_text(" ", strip=True) for label in page.select(".preference-scale label")
    ] == [
        "1 A much better",
        "2 A better",
        "3 Tie",
        "4 B better",
        "5 B much better",
    ]
    assert [r["value"] for r in page.select("input[name=preference]")] == [
        "-2",
        "-1",
        "0",
        "1",
        "2",
    ]
    html = response.content.decode()
    assert not [name for name in NAMES if name in html]
    assert "c-1" not in html.replace("c-1: ", "")  # nor the sender's id for it


def test_asking_again_while_the_lease_lives_shows_the_same_comparison_in_the_same_order(
    agent: Actor, aria: Client
) -> None:
    submit(agent, two("c-1"), two("c-2"))
    first = soup(aria.get("/compare/"))
    again = soup(aria.get("/compare/"))
    assert shown_texts(again) == shown_texts(first)
    assert ComparisonLease.objects.get(username="ann").comparison.comparison_id == "c-1"


def test_the_lease_clock_speaks_of_a_comparison_and_a_judgment(
    agent: Actor, aria: Client, ann: Actor
) -> None:
    submit(agent, two("c-1"))
    clock = one(soup(aria.get("/compare/")), "#lease-clock")
    assert (clock["data-unit"], clock["data-act"]) == ("comparison", "judgment")
    agent.rest("post", "/api/turns/", {"turns": [{"correlation_id": "t", "rated_turn": TURN}]})
    queue = one(soup(ann.browser().get("/queue/")), "#lease-clock")
    assert (queue["data-unit"], queue["data-act"]) == ("turn", "rating")


def test_two_people_are_shown_the_candidates_each_in_their_own_order(
    agent: Actor, aria: Client, rev: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    pks = submit(agent, *(two(f"c-{i}") for i in range(8)))
    for pk in pks:
        assert shown_texts(soup(aria.get("/compare/"))) == responses_for(pk, "ann")
        assert shown_texts(soup(rev.browser().get("/compare/"))) == responses_for(pk, "rev")
        assert judge(aria, pk, preference="0").status_code == 302
        assert judge(rev.browser(), pk, preference="0").status_code == 302
    # That the orders differ between people is shown_order's (tests/feedback/comparisons/
    # test_comparisons_api.py): with random candidate ids, eight pairs may by chance agree.


@pytest.mark.parametrize(
    ("preference", "ranks"),
    [("-2", [0, 1]), ("-1", [0, 1]), ("0", [0, 0]), ("1", [1, 0]), ("2", [1, 0])],
)
def test_a_preference_is_stored_as_the_ranks_of_the_shown_order_and_the_next_is_shown(
    agent: Actor, aria: Client, preference: str, ranks: list[int]
) -> None:
    first, second = submit(agent, two("c-1", priority=1), two("c-2"))
    assert leased(aria) == first
    sent = judge(aria, first, preference=preference, rationale="A is exact.")
    assert sent.status_code == 302
    assert sent.headers["Location"] == "/compare/"
    stored = Judgment.objects.get()
    assert (stored.comparison_id, stored.annotator) == (first, "ann")
    assert stored.shown == order_for(first, "ann")
    assert (stored.ranks, stored.preference, stored.rationale) == (
        ranks,
        int(preference),
        "A is exact.",
    )
    following = soup(aria.get("/compare/"))
    assert "Your judgment is stored." in following.get_text()
    assert shown_texts(following) == responses_for(second, "ann")


def test_a_three_way_comparison_is_ranked_with_a_select_each_and_no_preference(
    agent: Actor, aria: Client
) -> None:
    (pk,) = submit(agent, three("c-3"))
    page = soup(aria.get("/compare/"))
    assert not page.select("input[name=preference]")
    assert shown_texts(page) == responses_for(pk, "ann")
    rows = page.select("#ranking-list > li.rank-item")
    assert [row["data-candidate"] for row in rows] == order_for(pk, "ann")
    assert [row["data-label"] for row in rows] == ["A", "B", "C"]
    for row in rows:
        select = one(row, "select")
        assert select["name"] == f"rank-{row['data-candidate']}"
        assert [o["value"] for o in select.select("option")] == ["", "1", "2", "3"]
    assert one(page, "input#ranking-field")["type"] == "hidden"
    assert not [name for name in NAMES if name in str(page)]


def test_a_three_way_ranking_sent_by_the_script_is_stored_best_first(
    agent: Actor, aria: Client
) -> None:
    (pk,) = submit(agent, three("c-3"))
    shown = order_for(pk, "ann")
    assert leased(aria) == pk
    best_first = [shown[2], shown[0], shown[1]]  # C, A, B
    sent = judge(aria, pk, ranking=",".join(best_first))
    assert sent.status_code == 302
    stored = Judgment.objects.get()
    assert (stored.shown, stored.ranks, stored.preference) == (shown, [1, 2, 0], None)
    assert soup(aria.get("/compare/")).select_one("#empty-title") is not None


def test_a_three_way_ranking_sent_without_the_script_by_its_selects_is_stored(
    agent: Actor, aria: Client
) -> None:
    (pk,) = submit(agent, three("c-3"))
    shown = order_for(pk, "ann")
    assert leased(aria) == pk
    ranks = {f"rank-{shown[0]}": "2", f"rank-{shown[1]}": "3", f"rank-{shown[2]}": "1"}
    assert judge(aria, pk, ranking="", **ranks).status_code == 302
    assert Judgment.objects.get().ranks == [1, 2, 0]


@pytest.mark.parametrize(
    ("kind", "fields", "said"),
    [
        ("two", {"preference": "3"}, "Too high: enter 2 or less."),
        ("two", {"preference": "-3"}, "Too low: enter -2 or more."),
        ("two", {"preference": "much"}, "Choose which response is better"),
        ("two", {}, "Choose which response is better"),
        ("three", {"preference": "1"}, "A preference compares two candidates"),
        ("three", {"ranking": "missing"}, "A ranking names each candidate of the comparison once"),
        ("three", {"ranking": "", "ranks": "1,1,2"}, "Give each response its own rank, 1 to 3"),
        ("three", {"ranking": "", "ranks": "1,,2"}, "Give each response its own rank, 1 to 3"),
    ],
)
def test_a_bad_judgment_is_shown_on_the_page_with_what_was_sent_and_nothing_is_stored(
    agent: Actor, aria: Client, kind: str, fields: dict[str, str], said: str
) -> None:
    (pk,) = submit(agent, two("c-2") if kind == "two" else three("c-3"))
    shown = order_for(pk, "ann")
    assert leased(aria) == pk
    sent = dict(fields)
    if sent.get("ranking") == "missing":
        sent["ranking"] = ",".join(shown[:2])  # the third left out
    ranks = sent.pop("ranks", None)
    if ranks is not None:
        sent |= {f"rank-{c}": r for c, r in zip(shown, ranks.split(","), strict=True)}
    page = soup(judge(aria, pk, rationale="kept for the retry", **sent), status=400)
    assert said in page.get_text(" ")
    assert "Your judgment was not stored" in error_text(page)
    assert one(page, "textarea[name=rationale]").get_text() == "kept for the retry"
    assert shown_texts(page) == responses_for(pk, "ann")  # the same comparison, to judge again
    assert not Judgment.objects.exists()
    assert ComparisonLease.objects.get(username="ann").comparison_id == pk


def test_a_refused_preference_keeps_the_point_chosen(agent: Actor, aria: Client) -> None:
    (pk,) = submit(agent, two("c-2"))
    assert leased(aria) == pk
    page = soup(judge(aria, pk, preference="1", rationale="a\x00b"), status=400)
    assert one(page, "input[name=preference][checked]")["value"] == "1"
    assert one(page, "#rationale-error").get_text()
    assert not Judgment.objects.exists()


def test_a_ranking_refused_keeps_the_order_sent(agent: Actor, aria: Client) -> None:
    (pk,) = submit(agent, three("c-3"))
    shown = order_for(pk, "ann")
    assert leased(aria) == pk
    best_first = [shown[1], shown[2], shown[0]]
    page = soup(judge(aria, pk, ranking=",".join(best_first), rationale="x\x00"), status=400)
    assert [row["data-candidate"] for row in page.select(".rank-item")] == best_first
    assert one(page, "#ranking-list").has_attr("data-placed")  # compare.js asks no move again
    assert not one(soup(aria.get("/compare/")), "#ranking-list").has_attr("data-placed")
    assert not Judgment.objects.exists()


def test_a_comparison_judged_already_is_refused_on_the_page_and_the_first_judgment_kept(
    agent: Actor, aria: Client
) -> None:
    first, second = submit(agent, two("c-1", priority=1), two("c-2"))
    assert leased(aria) == first
    assert judge(aria, first, preference="-2").status_code == 302
    page = soup(judge(aria, first, preference="2"), status=409)
    assert f"You judged comparison {first} already." in error_text(page)
    assert "Here is your next comparison." in error_text(page)
    assert shown_texts(page) == responses_for(second, "ann")
    assert list(Judgment.objects.values_list("preference", flat=True)) == [-2]


def test_a_comparison_with_the_judgments_it_needs_refuses_another_on_the_page(
    agent: Actor, aria: Client, rev: Actor, rev2: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    (pk,) = submit(agent, two("c-1"))
    for person in (aria, rev2.browser()):
        assert leased(person) == pk
        assert judge(person, pk, preference="0").status_code == 302
    page = soup(judge(rev.browser(), pk, preference="1"), status=409)
    assert "this comparison has the 2 judgments it needs from distinct people" in error_text(page)
    assert one(page, "#empty-title").get_text() == "Nothing left for you to compare"
    assert Judgment.objects.count() == 2


def test_a_comparison_leased_to_another_person_is_refused_to_a_newcomer(
    agent: Actor, aria: Client, rev: Actor
) -> None:
    (pk,) = submit(agent, two("c-1"))
    assert leased(aria) == pk  # the one judgment it needs is leased to ann
    other = rev.browser()
    assert one(soup(other.get("/compare/")), "#empty-title")
    page = soup(judge(other, pk, preference="-1"), status=409)
    assert "leased to other people" in error_text(page)
    assert not Judgment.objects.exists()
    assert judge(aria, pk, preference="-1").status_code == 302  # the holder is heard


def test_another_projects_comparison_is_not_found_and_nothing_is_stored(
    aria: Client, agent: Actor
) -> None:
    project_add(slug="beta", name="Beta")
    (elsewhere,) = submit(token_actor("beta-agent", "agent", project="beta"), two("b-1"))
    page = soup(judge(aria, elsewhere, preference="0"), status=404)
    assert f"No comparison {elsewhere} in this project." in error_text(page)
    assert not Judgment.objects.exists()


def test_a_judgment_naming_no_comparison_is_refused_on_the_page(aria: Client) -> None:
    page = soup(aria.post("/compare/", {"do": "judge", "comparison": "x", "preference": "0"}), 400)
    assert "missing or not a number" in error_text(page)


def test_skip_passes_on_the_comparison_for_good_and_shows_the_next(
    agent: Actor, aria: Client
) -> None:
    first, second = submit(agent, two("c-1", priority=1), two("c-2"))
    assert leased(aria) == first
    skipped = aria.post("/compare/", {"do": "skip", "comparison": str(first)})
    assert (skipped.status_code, skipped.headers["Location"]) == (302, "/compare/")
    assert ComparisonSkip.objects.filter(username="ann", comparison_id=first).exists()
    assert leased(aria) == second
    assert aria.post("/compare/", {"do": "skip", "comparison": str(second)}).status_code == 302
    assert one(soup(aria.get("/compare/")), "#empty-title")
    assert not Judgment.objects.exists()


def test_release_gives_the_comparison_back_for_someone_else(
    agent: Actor, aria: Client, rev: Actor
) -> None:
    (pk,) = submit(agent, two("c-1"))
    assert leased(aria) == pk
    assert one(soup(rev.browser().get("/compare/")), "#empty-title")  # held by ann
    released = aria.post("/compare/", {"do": "release", "comparison": str(pk)})
    assert (released.status_code, released.headers["Location"]) == (302, "/")
    assert not ComparisonLease.objects.filter(username="ann").exists()
    assert not ComparisonSkip.objects.exists()
    assert leased(rev.browser()) == pk


def test_skipping_a_comparison_one_does_not_hold_says_so_and_stores_nothing(
    agent: Actor, aria: Client
) -> None:
    (pk,) = submit(agent, two("c-1"))
    sent = aria.post("/compare/", {"do": "skip", "comparison": str(pk)}, follow=True)
    assert f"You hold no lease on comparison {pk}." in sent.content.decode()
    assert not ComparisonSkip.objects.exists()


def test_with_nothing_to_judge_the_page_says_so(aria: Client) -> None:
    page = soup(aria.get("/compare/"))
    assert one(page, "#empty-title").get_text() == "Nothing left for you to compare"
    assert page.select_one("#judge-form") is None


def test_the_queue_page_links_to_the_comparisons_in_its_modes(aria: Client) -> None:
    queue = soup(aria.get("/queue/"))
    modes = {a.get_text(): a for a in queue.select("nav.queue-modes a")}
    assert modes["Comparisons"]["href"] == "/compare/"
    assert modes["Turns"].get("aria-current") == "page"
    here = soup(aria.get("/compare/"))
    current = [a.get_text() for a in here.select("nav.queue-modes a[aria-current=page]")]
    assert current == ["Comparisons"]


def test_someone_not_logged_in_is_sent_to_log_in(client: Client) -> None:
    response = client.get("/compare/")
    assert response.status_code == 302
    assert response.headers["Location"] == "/login/?next=/compare/"


def test_a_reviewer_judges_from_the_page_too(agent: Actor) -> None:
    (pk,) = submit(agent, two("c-1"))
    reviewer = human_actor("rita", "reviewer").browser()
    assert leased(reviewer) == pk
    assert judge(reviewer, pk, preference="2").status_code == 302
    assert Judgment.objects.get().annotator == "rita"
