from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from feedback.lease_notes import NOT_NEEDED
from feedback.models import Feedback, Lease, Turn
from feedback.services.feedbacks import feedback_record
from learnportal import demo
from learnportal_protocol import Feedback as FeedbackItem
from learnportal_protocol import FeedbackPolarity
from tests.factories import TurnFactory, UserFactory

if TYPE_CHECKING:
    from tests.harness import ClientResponse

pytestmark = pytest.mark.django_db


def _turn(correlation_id: str) -> Turn:
    return Turn.objects.get(correlation_id=correlation_id)


def _rate(client: Client, turn: Turn, **fields: object) -> ClientResponse:
    data = {
        "feedback_id": f"fb-{turn.correlation_id}-{len(fields)}",
        "polarity": "positive",
        "score": "0.5",
        "dimension": "helpfulness",
        "confidence": "0.9",
        "comment": "",
        "correction": "",
        "span_start": "",
        "span_end": "",
        **fields,
    }
    return client.post(f"/turns/{turn.pk}/", data)


def test_it_sends_anonymous_visitors_to_log_in(seeded: None) -> None:
    response = Client().get("/turns/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_it_lists_turns_newest_first_marking_those_rated(annotator: Client) -> None:
    page = annotator.get("/turns/")
    listed = [turn.correlation_id for turn in page.context["turns"]]
    assert listed == [t.correlation_id for t in Turn.objects.order_by("-id")]
    # The demo annotator rated turns 0, 1 and 3; 2, 4 and 5 wait.
    rated = {Turn.objects.get(pk=pk).correlation_id for pk in page.context["rated"]}
    assert rated == {"demo-turn-0", "demo-turn-1", "demo-turn-3"}
    assert "<b>3</b> left for you to rate" in page.content.decode()


def test_it_can_keep_only_the_turns_that_still_need_ratings(annotator: Client) -> None:
    page = annotator.get("/turns/", {"open": "1"})
    listed = {turn.correlation_id for turn in page.context["turns"]}
    assert listed == {"demo-turn-2", "demo-turn-4", "demo-turn-5"}


def test_it_filters_by_component_and_session(annotator: Client) -> None:
    page = annotator.get("/turns/", {"component": "code_review"}).content.decode()
    assert "demo-turn-1" in page and "demo-turn-5" in page
    assert "demo-turn-2" not in page
    empty = annotator.get("/turns/", {"session": "elsewhere"}).content.decode()
    assert "No turns match this filter" in empty


def test_the_rating_page_shows_the_whole_turn_and_its_ratings(annotator: Client) -> None:
    page = annotator.get(f"/turns/{_turn('demo-turn-1').pk}/").content.decode()
    assert "Review this diff" in page
    assert 'id="response-text" class="text-block response-text" tabindex="0"' in page
    assert 'aria-describedby="response-hint">Looks good to me!</div>' in page  # nothing added
    assert "Point out that add() subtracts." in page  # the demo's earlier correction
    assert 'name="csrfmiddlewaretoken"' in page


def test_rating_records_human_feedback_as_the_annotator_and_moves_on(annotator: Client) -> None:
    turn = _turn("demo-turn-2")
    response = _rate(annotator, turn, comment="Accurate and sourced.", span_start="0", span_end="4")
    feedback = Feedback.objects.get(correlation_id="demo-turn-2")
    assert (feedback.source, feedback.annotator_id) == ("human", "annotator")
    assert (feedback.score, feedback.confidence, feedback.polarity) == (0.5, 0.9, "positive")
    assert (feedback.span_start, feedback.span_end) == (0, 4)
    assert feedback.component_name == "web_search"
    assert feedback.session_id == "demo-session"
    assert feedback.rated_turn is not None
    assert json.loads(feedback.rated_turn)["response"] == turn.response
    assert response.status_code == 302
    assert response["Location"] == f"/turns/{turn.pk}/rated/"  # the reveal of this turn


def test_after_rating_it_shows_the_reveal_of_that_turn_with_no_form_and_a_next_turn(
    annotator: Client,
) -> None:
    turn = _turn("demo-turn-2")
    _rate(annotator, turn, comment="Accurate and sourced.")
    feedback_record(  # the agent's own opinion: hidden from the annotator until they rated
        principal=demo.DEMO_AGENT,
        feedbacks=[
            FeedbackItem(
                feedback_id="fb-agent-own",
                correlation_id="demo-turn-2",
                polarity=FeedbackPolarity.POSITIVE,
                comment="The agent's own view",
            )
        ],
    )

    page = annotator.get(f"/turns/{turn.pk}/rated/")

    html = page.content.decode()
    assert page.status_code == 200
    assert "Accurate and sourced." in html and "The agent&#x27;s own view" in html
    assert 'id="rating-form"' not in html
    assert '<a class="button next-turn" href="/queue/">Next turn →</a>' in html


def test_after_rating_it_never_lands_on_a_turn_leased_to_someone_else(annotator: Client) -> None:
    other = Client()
    other.force_login(UserFactory.create(username="annotator2"))
    held = Turn.objects.get(pk=other.get("/queue/").context["turn"].pk)
    rated = Turn.objects.filter(ratings_needed__gt=0).exclude(pk=held.pk).order_by("id").first()
    assert rated is not None

    landed = annotator.get(_rate(annotator, rated)["Location"])
    assert landed.context["turn"] == rated
    following = annotator.get("/queue/").context["turn"]  # "Next turn"

    assert following != held
    assert Lease.objects.get(username="annotator").turn == following


def test_corrective_without_a_correction_shows_the_models_message_and_stores_nothing(
    annotator: Client,
) -> None:
    response = _rate(annotator, _turn("demo-turn-2"), polarity="corrective", score="-0.5")
    assert response.status_code == 400
    page = response.content.decode()
    assert 'data-field="correction">corrective feedback must include a correction' in page
    assert not Feedback.objects.filter(correlation_id="demo-turn-2").exists()


def test_a_span_outside_the_response_is_refused_next_to_the_span(annotator: Client) -> None:
    turn = _turn("demo-turn-2")
    response = _rate(
        annotator,
        turn,
        polarity="corrective",
        correction="About 522,000.",
        span_start="3",
        span_end=str(len(turn.response) + 5),
    )
    assert response.status_code == 400
    assert 'data-field="correction_span">correction_span [3,' in response.content.decode()
    assert not Feedback.objects.filter(correlation_id="demo-turn-2").exists()


def test_a_score_out_of_range_is_refused_next_to_the_score(annotator: Client) -> None:
    response = _rate(annotator, _turn("demo-turn-2"), score="3")
    assert response.status_code == 400
    assert "Too high: enter 1 or less." in response.content.decode()
    assert not Feedback.objects.filter(correlation_id="demo-turn-2").exists()


def test_a_repeated_submission_is_stored_once(annotator: Client) -> None:
    turn = _turn("demo-turn-2")
    _rate(annotator, turn)
    _rate(annotator, turn)
    assert Feedback.objects.filter(correlation_id="demo-turn-2").count() == 1


def test_the_form_needs_the_csrf_token(seeded: None) -> None:
    from core.accounts.models import User

    client = Client(enforce_csrf_checks=True)
    client.force_login(User.objects.get(username="annotator"))
    response = client.post(f"/turns/{_turn('demo-turn-2').pk}/", {"polarity": "positive"})
    assert response.status_code == 403
    assert not Feedback.objects.filter(correlation_id="demo-turn-2").exists()


def _follow(client: Client, params: dict[str, str]) -> list[list[str]]:
    """Every page of the list, by its "Older" links, as correlation ids."""
    pages, url = [], "/turns/"
    while True:
        page = client.get(url, params if url == "/turns/" else None)
        assert page.status_code == 200
        pages.append([turn.correlation_id for turn in page.context["turns"]])
        following = page.context["next_url"]
        if following is None:
            return pages
        assert 'rel="next"' in page.content.decode()
        url = "/turns/" + following


def _flat(pages: list[list[str]]) -> list[str]:
    return [key for page in pages for key in page]


def test_the_list_pages_by_cursor_newest_first_keeping_its_filters(
    annotator: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    from feedback.pages import turns

    monkeypatch.setattr(turns, "TURN_PAGE_SIZE", 2)
    newest = [t.correlation_id for t in Turn.objects.order_by("-id")]
    assert _follow(annotator, {}) == [newest[i : i + 2] for i in range(0, len(newest), 2)]
    # The filter rides along in the cursor's link.
    open_turns = [
        t.correlation_id for t in Turn.objects.filter(ratings_needed__gt=0).order_by("-id")
    ]
    assert _flat(_follow(annotator, {"open": "1"})) == open_turns
    reviews = [
        t.correlation_id for t in Turn.objects.filter(component_name="code_review").order_by("-id")
    ]
    assert _flat(_follow(annotator, {"component": "code_review"})) == reviews


def test_turns_queued_meanwhile_neither_repeat_nor_hide_a_turn_on_the_next_page(
    annotator: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    from feedback.pages import turns

    monkeypatch.setattr(turns, "TURN_PAGE_SIZE", 3)
    before = [t.correlation_id for t in Turn.objects.order_by("-id")]
    first = annotator.get("/turns/")
    TurnFactory.create(correlation_id="late")
    second = annotator.get("/turns/" + first.context["next_url"])
    shown = [t.correlation_id for t in first.context["turns"]]
    shown += [t.correlation_id for t in second.context["turns"]]
    assert shown == before[:6]  # an OFFSET would have shown the third turn again


def test_a_deep_page_reads_no_offset_and_counts_nothing(
    annotator: Client, monkeypatch: pytest.MonkeyPatch
) -> None:

    from feedback.pages import turns

    monkeypatch.setattr(turns, "TURN_PAGE_SIZE", 2)
    second = "/turns/" + annotator.get("/turns/").context["next_url"]
    with CaptureQueriesContext(connection) as queries:
        assert annotator.get(second).status_code == 200
    listing = [q["sql"] for q in queries.captured_queries if "feedback_turn" in q["sql"]]
    assert listing and not any("OFFSET" in sql.upper() for sql in listing)
    assert not any("COUNT(" in sql.upper() and "ratings_needed" not in sql for sql in listing)


@pytest.mark.parametrize("cursor", ["nonsense", "explorer"])
def test_a_cursor_not_of_this_list_is_refused_naming_it(annotator: Client, cursor: str) -> None:
    from feedback.filters import encode_cursor

    sent = encode_cursor((1.0, 1)) if cursor == "explorer" else cursor  # the explorer's, signed
    page = annotator.get("/turns/", {"cursor": sent})
    assert page.status_code == 400
    assert "cursor: not a cursor of this list" in page.content.decode()
    assert page.context["first_url"] == "?"


def test_a_turn_that_has_its_ratings_is_refused_in_a_sentence_naming_it(seeded: None) -> None:
    other = Client()
    other.force_login(UserFactory.create(username="annotator2"))
    response = _rate(other, _turn("demo-turn-0"))  # the annotator's rating is the one it needs
    assert response.status_code == 409
    page = response.content.decode()
    assert NOT_NEEDED["enough"].format(turn="demo-turn-0") in page
    assert "may not rate so" not in page
    assert not Feedback.objects.filter(annotator_id="annotator2").exists()


def test_a_turn_whose_rating_is_leased_to_another_is_refused_in_a_sentence_naming_it(
    annotator: Client,
) -> None:
    other = Client()
    other.force_login(UserFactory.create(username="annotator2"))
    held = Turn.objects.get(pk=other.get("/queue/").context["turn"].pk)
    response = _rate(annotator, held)
    assert response.status_code == 409
    assert NOT_NEEDED["leased"].format(turn=held.correlation_id) in response.content.decode()
    assert not Feedback.objects.filter(correlation_id=held.correlation_id).exists()
