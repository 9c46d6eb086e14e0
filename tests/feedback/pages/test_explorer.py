"""The explorer page and the detail of one turn, blind for annotators (docs/contract.md)."""

from __future__ import annotations

import re
from html import unescape
from typing import TYPE_CHECKING, Any

import pytest
from django.db.models import Count
from django.test import Client

from core.accounts.models import User
from core.accounts.principals import principal_for_user
from core.projects.selection import default_project_pk
from feedback.models import Feedback as FeedbackRow
from feedback.models import Turn
from feedback.selectors.visibility import counted_feedback
from learnportal_protocol import FeedbackPolarity
from tests.factories import FeedbackFactory, UserFactory

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

pytestmark = pytest.mark.django_db

SECRET = "ann2 thinks the tone is off"


@pytest.fixture(autouse=True)
def _several_raters_a_turn(settings: Any) -> None:
    # Several people rate each turn here: a turn takes as many as it needs, no more
    # (feedback.raters), so it needs them.
    settings.LEARNPORTAL_RATINGS_PER_TURN = 8


def rate(user: AbstractBaseUser, correlation_id: str, comment: str, **fields: object) -> None:
    FeedbackFactory.create(
        by=principal_for_user(user),  # type: ignore[arg-type]
        turn=Turn.objects.get(correlation_id=correlation_id),
        carries_turn=True,
        score=-0.5,
        comment=comment,
        **fields,
    )


@pytest.fixture
def ann2(seeded: None) -> Client:
    """Another annotator, who rated demo-turn-2 (which the demo annotator has not rated)."""
    user = UserFactory.create(username="ann2")
    rate(user, "demo-turn-2", SECRET)
    client = Client()
    client.force_login(user)
    return client


def turn_pk(correlation_id: str) -> int:
    return Turn.objects.get(correlation_id=correlation_id).pk


def test_anonymous_visitors_are_sent_to_log_in(seeded: None) -> None:
    for url in ("/explorer/", f"/explorer/turns/{turn_pk('demo-turn-0')}/"):
        response = Client().get(url)
        assert response.status_code == 302 and response["Location"].startswith("/login/")


def test_the_navigation_links_to_the_explorer(annotator: Client) -> None:
    assert 'href="/explorer/"' in annotator.get("/").content.decode()


def test_a_reviewer_sees_every_rating_and_the_export_links(ann2: Client, reviewer: Client) -> None:
    page = reviewer.get("/explorer/", {"polarity": "negative", "source": "human"}).content.decode()
    assert SECRET in page
    assert 'href="/api/exports/trl.jsonl?source=human&amp;polarity=negative"' in page
    for name in ("preferences", "rewards", "openai-dpo", "kto"):
        assert f"/api/exports/{name}.jsonl?" in page


def test_an_annotator_sees_their_own_and_the_machines_feedback_only(
    ann2: Client, annotator: Client
) -> None:
    page = annotator.get("/explorer/", {"limit": "500"}).content.decode()
    assert SECRET not in page
    assert "Point out that add() subtracts." in page  # their own demo correction
    assert ">env</span>" in page  # the demo environment's rewards
    assert "/api/exports/" not in page
    assert SECRET not in annotator.get("/explorer/", {"annotator": "ann2"}).content.decode()


def test_the_filters_narrow_the_list(seeded: None, reviewer: Client) -> None:
    page = reviewer.get("/explorer/", {"polarity": "corrective"}).content.decode()
    assert page.count('class="polarity-tag polarity-corrective"') == 3
    assert 'class="polarity-tag polarity-negative"' not in page
    page = reviewer.get("/explorer/", {"component": "sql_tool"}).content.decode()
    assert "Use now() - interval" in unescape(page) and "Point out that add()" not in page


def test_the_since_picker_takes_a_utc_date_time(seeded: None, reviewer: Client) -> None:
    # The demo's corrections are at 1_700_000_500 + i, i.e. 2023-11-14T22:21:40Z and after.
    page = reviewer.get("/explorer/", {"since": "2023-11-14T22:21", "source": "human"})
    assert page.status_code == 200
    assert page.content.decode().count("polarity-corrective") == 3
    later = reviewer.get("/explorer/", {"since": "2023-11-14T22:30", "source": "human"})
    assert "No feedback matches this filter." in later.content.decode()
    assert 'value="2023-11-14T22:30"' in later.content.decode()


def test_a_bad_filter_is_shown_next_to_its_field(seeded: None, reviewer: Client) -> None:
    response = reviewer.get("/explorer/", {"polarity": "great", "since": "soon"})
    assert response.status_code == 400
    page = response.content.decode()
    assert re.search(r'id="err-polarity">Choose one of &#x27;positive&#x27;', page)
    assert 'id="err-since"' in page


def test_a_time_past_the_year_9999_is_shown_next_to_its_field(
    seeded: None, reviewer: Client
) -> None:
    response = reviewer.get("/explorer/", {"since": "1e20", "until": "10000-01-01T00:00"})
    assert response.status_code == 400
    page = response.content.decode()
    assert 'id="err-since"' in page and 'id="err-until"' in page


def test_a_feedback_stored_past_the_year_9999_still_shows_in_the_explorer(
    seeded: None, reviewer: Client
) -> None:
    legacy = FeedbackRow.objects.order_by("pk")[0]
    FeedbackRow.objects.filter(pk=legacy.pk).update(ts=1e12)  # stored before ts was bounded
    response = reviewer.get("/explorer/", {"correlation_id": legacy.correlation_id})
    assert response.status_code == 200
    assert legacy.feedback_id in response.content.decode()


def test_a_tampered_page_link_says_so(seeded: None, reviewer: Client) -> None:
    response = reviewer.get("/explorer/", {"cursor": "forged"})
    assert response.status_code == 400
    assert "This page link is not valid any more" in response.content.decode()


def test_the_next_link_pages_on_with_the_filter(seeded: None, reviewer: Client) -> None:
    first = reviewer.get("/explorer/", {"source": "env", "limit": "3"}).content.decode()
    match = re.search(r'<a href="(\?[^"]+)" rel="next">', first)
    assert match is not None
    link = unescape(match.group(1))
    assert "source=env" in link and "limit=3" in link and "cursor=" in link
    second = reviewer.get("/explorer/" + link).content.decode()
    rows = re.compile(r'<time datetime="[^"]+">')
    assert len(rows.findall(first)) == 3 and len(rows.findall(second)) == 3
    assert "« Newest" in second


def _link(page: str, rel: str) -> str | None:
    match = re.search(rf'<a href="(\?[^"]+)" rel="{rel}">', page)
    return unescape(match.group(1)) if match else None


ROW_IDS = re.compile(r'data-feedback-id="([^"]+)"')


def test_a_newer_link_walks_back_up_to_the_page_before(seeded: None, reviewer: Client) -> None:
    filters = {"source": "env", "limit": "3"}
    first = reviewer.get("/explorer/", filters).content.decode()
    assert _link(first, "prev") is None  # nothing is newer than the newest page
    older = _link(first, "next")
    assert older is not None
    second = reviewer.get("/explorer/" + older).content.decode()
    third_link = _link(second, "next")
    assert third_link is not None
    third = reviewer.get("/explorer/" + third_link).content.decode()

    newer = _link(third, "prev")
    assert newer is not None and "source=env" in newer and "newer=" in newer
    back = reviewer.get("/explorer/" + newer).content.decode()
    assert ROW_IDS.findall(back) == ROW_IDS.findall(second)
    up = _link(back, "prev")
    assert up is not None
    top = reviewer.get("/explorer/" + up).content.decode()
    assert ROW_IDS.findall(top) == ROW_IDS.findall(first)
    assert _link(top, "prev") is None and _link(top, "next") is not None


def test_the_explorer_counts_what_the_filter_matches(seeded: None, reviewer: Client) -> None:
    env = counted_feedback(default_project_pk()).filter(source="env").count()
    assert env > 3
    page = reviewer.get("/explorer/", {"source": "env", "limit": "3"}).content.decode()
    assert f'id="matches">{env} feedbacks match this filter.</p>' in page  # not only this page
    lone = (
        counted_feedback(default_project_pk())
        .values("correlation_id")
        .annotate(n=Count("id"))
        .filter(n=1)
        .exclude(correlation_id="")
        .order_by("correlation_id")
        .first()
    )
    assert lone is not None
    only = reviewer.get("/explorer/", {"correlation_id": lone["correlation_id"]}).content.decode()
    assert 'id="matches">1 feedback matches this filter.</p>' in only


def test_a_tampered_newer_link_says_so_naming_it(seeded: None, reviewer: Client) -> None:
    response = reviewer.get("/explorer/", {"newer": "forged"})
    assert response.status_code == 400
    body = response.content.decode()
    assert 'data-field="newer">This page link is not valid any more' in body


def test_each_row_links_to_the_detail_of_its_turn(seeded: None, reviewer: Client) -> None:
    page = reviewer.get("/explorer/", {"correlation_id": "demo-turn-1"}).content.decode()
    assert f'href="/explorer/turns/{turn_pk("demo-turn-1")}/"' in page


def test_the_detail_shows_the_turn_and_all_its_ratings_to_a_reviewer(
    ann2: Client, reviewer: Client
) -> None:
    page = reviewer.get(f"/explorer/turns/{turn_pk('demo-turn-2')}/").content.decode()
    turn = Turn.objects.get(correlation_id="demo-turn-2")
    assert turn.prompt in unescape(page) and turn.response in unescape(page)
    assert SECRET in page
    assert "appear once you have rated it" not in page


def test_an_annotator_sees_others_ratings_on_the_detail_only_after_rating_it(
    ann2: Client, annotator: Client
) -> None:
    url = f"/explorer/turns/{turn_pk('demo-turn-2')}/"
    before = annotator.get(url).content.decode()
    assert SECRET not in before
    assert "Other people's ratings of this turn appear once you have rated it yourself." in before
    rate(User.objects.get(username="annotator"), "demo-turn-2", "my own view")
    after = annotator.get(url).content.decode()
    assert SECRET in after and "my own view" in after


def test_the_detail_marks_the_span_a_correction_replaces(seeded: None, reviewer: Client) -> None:
    turn = Turn.objects.get(correlation_id="demo-turn-4")
    rate(
        User.objects.get(username="reviewer"),
        "demo-turn-4",
        "",
        polarity=FeedbackPolarity.CORRECTIVE,
        correction="better words",
        correction_span=(0, 5),
    )
    page = reviewer.get(f"/explorer/turns/{turn.pk}/").content.decode()
    assert f"replaces “<mark>{turn.response[:5]}</mark>”" in page


def test_an_unknown_turn_is_not_found(seeded: None, reviewer: Client) -> None:
    assert reviewer.get("/explorer/turns/999999/").status_code == 404


# --- blind elsewhere: the rating page and the queue --------------------------------------------


def test_the_rating_page_hides_other_peoples_ratings_until_rated(
    ann2: Client, annotator: Client, reviewer: Client
) -> None:
    url = f"/turns/{turn_pk('demo-turn-2')}/"
    assert SECRET not in annotator.get(url).content.decode()
    assert SECRET in reviewer.get(url).content.decode()


def test_the_turn_list_marks_as_rated_only_what_this_annotator_rated(
    ann2: Client, annotator: Client
) -> None:
    # ann2 rated demo-turn-2: to the demo annotator it is not marked rated, to ann2 it is.
    assert turn_pk("demo-turn-2") not in annotator.get("/turns/").context["rated"]
    assert turn_pk("demo-turn-2") in ann2.get("/turns/").context["rated"]
