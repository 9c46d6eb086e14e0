"""The queue page, /queue/: one leased turn at a time, rated, skipped, undone or given back.

The demo (`seeded`) has six turns; its annotator rated 0, 1 and 3, so with one rating needed
per turn (the default) 2, 4 and 5 are left, offered in that order.
"""

from __future__ import annotations

import itertools
import json
import time
from typing import TYPE_CHECKING, Any

import pytest
from django.test import Client

from core.accounts.models import User
from core.accounts.roles import ALLOWED, Action, Role
from core.projects.services import project_add
from feedback.lease_notes import LATE_KEPT, LEASE_WARNING_SECONDS
from feedback.models import Feedback, Lease, Retraction, Skip, Turn
from learnportal import demo
from tests.factories import TurnFactory, UserFactory

if TYPE_CHECKING:
    from tests.harness import ClientResponse

pytestmark = pytest.mark.django_db

_ids = itertools.count(1)


def _turn(correlation_id: str) -> Turn:
    return Turn.objects.get(correlation_id=correlation_id)


def _leased(client: Client) -> Turn:
    """The turn the queue page shows this person."""
    page = client.get("/queue/")
    assert page.status_code == 200
    return Turn.objects.get(pk=page.context["turn"].pk)


def _rate(client: Client, turn: Turn, /, **fields: object) -> ClientResponse:
    data = {
        "do": "rate",
        "turn": str(turn.pk),
        "feedback_id": f"fb-queue-{next(_ids)}",
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
    return client.post("/queue/", data)


def _leased_until(client: Client, correlation_id: str) -> Turn:
    """Skip what the queue offers until it offers this turn."""
    while (turn := _leased(client)).correlation_id != correlation_id:
        client.post("/queue/", {"do": "skip", "turn": str(turn.pk)})
    return turn


def _logged_in(username: str, role: str = "annotator") -> Client:
    user = UserFactory.create(username=username, role=role)
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def two_ratings_each(settings: Any, db: None) -> None:
    """The demo, with two people's ratings needed on every turn."""
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    demo.seed_demo()


def test_it_sends_anonymous_visitors_to_log_in(seeded: None) -> None:
    response = Client().get("/queue/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_it_leases_the_first_open_turn_and_keeps_it_for_its_holder(annotator: Client) -> None:
    turn = _leased(annotator)
    assert turn.correlation_id == "demo-turn-2"
    assert Lease.objects.get(username="annotator").turn == turn
    assert _leased(annotator) == turn  # asking again: the same turn, not a second lease
    assert Lease.objects.filter(username="annotator").count() == 1


def test_it_shows_the_whole_turn_as_escaped_text(annotator: Client) -> None:
    TurnFactory.create(
        by=demo.DEMO_AGENT,
        correlation_id="a-turn-with-context",
        session_id="session-7",
        component_name="web_search",
        rated_turn__prompt="<script>alert(1)</script> Where?",
        rated_turn__response="In <b>Lyon</b>.",
        rated_turn__model="web_search-v2",
        rated_turn__environment={"os": "linux", "note": "<i>x</i>"},
    )
    Turn.objects.exclude(correlation_id="a-turn-with-context").update(ratings_needed=0)
    page = annotator.get("/queue/").content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt; Where?" in page
    assert 'aria-describedby="response-hint">In &lt;b&gt;Lyon&lt;/b&gt;.</div>' in page
    assert "web_search-v2" in page and "session-7" in page and "a-turn-with-context" in page
    assert "&quot;note&quot;: &quot;&lt;i&gt;x&lt;/i&gt;&quot;" in page  # the context, indented
    assert "<script>alert" not in page


def test_rating_records_human_feedback_and_opens_the_next_turn(annotator: Client) -> None:
    turn = _leased(annotator)
    response = _rate(annotator, turn, comment="Sourced.", span_start="0", span_end="4")
    assert response.status_code == 302 and response["Location"] == "/queue/"
    feedback = Feedback.objects.get(correlation_id=turn.correlation_id)
    assert (feedback.source, feedback.annotator_id, feedback.polarity) == (
        "human",
        "annotator",
        "positive",
    )
    assert (feedback.score, feedback.confidence, feedback.comment) == (0.5, 0.9, "Sourced.")
    assert (feedback.span_start, feedback.span_end) == (0, 4)
    assert feedback.rated_turn is not None
    assert json.loads(feedback.rated_turn)["model"] == turn.model
    following = _leased(annotator)
    assert following.correlation_id == "demo-turn-4"
    assert Lease.objects.get(username="annotator").turn == following


def test_after_a_submit_the_next_turn_is_the_raters_own_lease_never_anothers(
    annotator: Client,
) -> None:
    other = _logged_in("annotator2")
    held = _leased(other)
    turn = _leased(annotator)

    response = _rate(annotator, turn)
    following = _leased(annotator)

    assert response["Location"] == "/queue/"
    assert following not in (turn, held)
    assert Lease.objects.get(username="annotator").turn == following
    assert Lease.objects.get(username="annotator2").turn == held


def test_a_corrective_rating_without_a_correction_stays_on_the_turn_with_the_error(
    annotator: Client,
) -> None:
    turn = _leased(annotator)
    response = _rate(annotator, turn, polarity="corrective", comment="Wrong figure")
    assert response.status_code == 400
    page = response.content.decode()
    assert 'data-field="correction">corrective feedback must include a correction' in page
    assert "Wrong figure</textarea>" in page  # what was typed is kept
    assert response.context["turn"] == turn
    assert not Feedback.objects.filter(correlation_id=turn.correlation_id).exists()
    assert Lease.objects.get(username="annotator").turn == turn


def test_a_rating_without_a_polarity_is_the_protocols_refusal_next_to_it(
    annotator: Client,
) -> None:
    turn = _leased(annotator)
    response = _rate(annotator, turn, polarity="")
    assert response.status_code == 400
    assert (
        'data-field="polarity">Required: fill this in, or choose one.' in response.content.decode()
    )
    assert not Feedback.objects.filter(correlation_id=turn.correlation_id).exists()


def test_a_span_outside_the_response_is_refused_next_to_the_span(annotator: Client) -> None:
    turn = _leased(annotator)
    end = len(turn.response) + 1
    response = _rate(
        annotator, turn, polarity="corrective", correction="x", span_start="0", span_end=str(end)
    )
    assert response.status_code == 400
    assert f'data-field="correction_span">correction_span [0, {end}]' in response.content.decode()


def test_a_skipped_turn_is_never_offered_again(annotator: Client) -> None:
    turn = _leased(annotator)
    response = annotator.post("/queue/", {"do": "skip", "turn": str(turn.pk)})
    assert response["Location"] == "/queue/"
    assert Skip.objects.filter(turn=turn, username="annotator").exists()
    offered = [_leased(annotator)]
    _rate(annotator, offered[0])
    offered.append(_leased(annotator))
    assert turn not in offered


def test_undo_retracts_the_last_rating_and_leases_the_turn_back(annotator: Client) -> None:
    turn = _leased(annotator)
    _rate(annotator, turn)
    page = annotator.get("/queue/")
    rating = Feedback.objects.get(correlation_id=turn.correlation_id)
    assert page.context["undoable"] == rating
    assert 'id="undo-form"' in page.content.decode()

    response = annotator.post("/queue/", {"do": "undo", "feedback_id": rating.feedback_id})
    assert response["Location"] == "/queue/"
    assert Retraction.objects.get(feedback=rating).by == "annotator"
    again = annotator.get("/queue/")
    assert again.context["turn"] == turn  # to rate anew
    assert f"Your rating of {turn.correlation_id} is undone" in again.content.decode()
    assert again.context["undoable"] is None  # never the rating before it
    assert Feedback.objects.filter(pk=rating.pk).exists()  # kept, beside its retraction


def test_the_rating_offered_to_undo_is_the_persons_newest_in_the_project(
    annotator: Client,
) -> None:
    turn = _leased(annotator)
    _rate(annotator, turn)
    rating = Feedback.objects.get(correlation_id=turn.correlation_id)
    later = {"received": rating.received + 1, "pk": None}
    elsewhere = project_add(slug="beta", name="Beta")
    for changes in (
        {"project": elsewhere, "feedback_id": "fb-beta"},  # theirs, in another project
        {"annotator_id": "annotator2", "feedback_id": "fb-other"},  # another person's
        {"correlation_id": "", "feedback_id": "fb-no-turn"},  # about no turn
    ):
        copy = Feedback.objects.get(pk=rating.pk)
        for field, value in (later | changes).items():
            setattr(copy, field, value)
        copy.save()
    assert annotator.get("/queue/").context["undoable"] == rating


def test_an_undo_past_the_minute_says_why_and_changes_nothing(annotator: Client) -> None:
    turn = _leased(annotator)
    _rate(annotator, turn)
    rating = Feedback.objects.get(correlation_id=turn.correlation_id)
    Feedback.objects.update(received=rating.received - 61)  # and the demo's, older still
    page = annotator.get("/queue/")
    assert page.context["undoable"] is None
    assert 'id="undo-form"' not in page.content.decode()
    annotator.post("/queue/", {"do": "undo", "feedback_id": rating.feedback_id})
    assert "can be undone for 60 seconds" in annotator.get("/queue/").content.decode()
    assert not Retraction.objects.exists()


def test_nobody_undoes_another_persons_rating(annotator: Client) -> None:
    other = _logged_in("annotator2")
    turn = _leased(other)
    _rate(other, turn)
    rating = Feedback.objects.get(correlation_id=turn.correlation_id)
    annotator.post("/queue/", {"do": "undo", "feedback_id": rating.feedback_id})
    assert "You have no rating with feedback_id" in annotator.get("/queue/").content.decode()
    assert not Retraction.objects.exists()


def test_stop_rating_gives_the_turn_back(annotator: Client) -> None:
    turn = _leased(annotator)
    response = annotator.post("/queue/", {"do": "release", "turn": str(turn.pk)})
    assert response["Location"] == "/"
    assert not Lease.objects.filter(username="annotator").exists()
    assert _leased(_logged_in("annotator2")) == turn  # free for the next person


def test_a_bad_queue_action_is_said_and_changes_nothing(annotator: Client) -> None:
    turn = _leased(annotator)
    annotator.post("/queue/", {"do": "skip", "turn": "not-a-number"})
    annotator.post("/queue/", {"do": "skip", "turn": str(turn.pk + 1000)})
    page = annotator.get("/queue/").content.decode()
    assert "missing or not a number" in page
    assert f"You hold no lease on turn {turn.pk + 1000}" in page
    assert not Skip.objects.exists()
    assert _rate(annotator, turn, turn="nope").status_code == 302
    assert not Feedback.objects.filter(correlation_id=turn.correlation_id).exists()


def test_the_empty_queue_says_so_and_what_to_do(annotator: Client) -> None:
    for _ in range(3):
        _rate(annotator, _leased(annotator))
    page = annotator.get("/queue/")
    html = page.content.decode()
    assert page.context["turn"] is None
    assert "Nothing left for you to rate" in html
    assert 'href="/turns/"' in html and "Look again" in html
    assert 'id="rating-form"' not in html


def test_progress_counts_todays_ratings_and_what_is_left(annotator: Client) -> None:
    first = annotator.get("/queue/").context["progress"]
    assert (first.rated_today, first.left_for_me) == (3, 3)  # the demo's ratings are today's
    _rate(annotator, _leased(annotator))
    page = annotator.get("/queue/")
    assert (page.context["progress"].rated_today, page.context["progress"].left_for_me) == (4, 2)
    assert "<b>4</b> rated today" in page.content.decode()


def test_two_annotators_are_leased_different_turns(annotator: Client) -> None:
    other = _logged_in("annotator2")
    assert _leased(annotator) != _leased(other)


def test_an_annotator_sees_no_other_persons_rating_until_they_rated(
    two_ratings_each: None,
) -> None:
    first, second = _logged_in("ann1"), _logged_in("ann2")
    turn = _leased_until(first, "demo-turn-2")  # one nobody rated yet
    _rate(first, turn, comment="SECRET-OPINION of ann1")
    assert _leased_until(second, turn.correlation_id) == turn  # it needs a second rating

    assert "SECRET-OPINION" not in second.get("/queue/").content.decode()
    page = second.get(f"/turns/{turn.pk}/").content.decode()
    assert "SECRET-OPINION" not in page
    assert "stay hidden until you have rated it yourself" in page

    _rate(second, turn)
    assert "SECRET-OPINION" in second.get(f"/turns/{turn.pk}/").content.decode()


def test_an_agents_own_feedback_is_hidden_from_annotators_until_they_rated(
    annotator: Client,
) -> None:
    from feedback.services.feedbacks import feedback_record
    from learnportal_protocol import Feedback as FeedbackItem
    from learnportal_protocol import FeedbackPolarity

    turn = _turn("demo-turn-2")
    feedback_record(
        principal=demo.DEMO_AGENT,
        feedbacks=[
            FeedbackItem(
                correlation_id=turn.correlation_id,
                polarity=FeedbackPolarity.NEGATIVE,
                score=-0.9,
                comment="AGENT-SELF-DOUBT",
            )
        ],
    )
    assert "AGENT-SELF-DOUBT" not in annotator.get(f"/turns/{turn.pk}/").content.decode()
    assert "AGENT-SELF-DOUBT" not in annotator.get("/queue/").content.decode()


def test_reviewers_and_admins_see_every_rating(two_ratings_each: None) -> None:
    ann = _logged_in("ann1")
    turn = _leased_until(ann, "demo-turn-2")
    _rate(ann, turn, comment="SECRET-OPINION of ann1")
    for role in ("reviewer", "admin"):
        client = _logged_in(f"a-{role}", role)
        assert _leased_until(client, turn.correlation_id) == turn
        assert "SECRET-OPINION" in client.get("/queue/").content.decode()
        assert "SECRET-OPINION" in client.get(f"/turns/{turn.pk}/").content.decode()
        client.post("/queue/", {"do": "release", "turn": str(turn.pk)})  # for the next one


def test_the_navigation_leads_each_person_to_the_queue(annotator: Client) -> None:
    for client in (annotator, _logged_in("rev9", "reviewer"), _logged_in("adm9", "admin")):
        page = client.get("/").content.decode()
        assert '<a href="/queue/">Rate</a>' in page
        assert '<a class="button tile-button" href="/queue/">Start rating</a>' in page
    assert (
        '<a href="/queue/" aria-current="page">Rate</a>'
        in annotator.get("/queue/").content.decode()
    )


def test_a_role_that_may_not_take_turns_gets_the_403_page(
    annotator: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(ALLOWED, Action.QUEUE, frozenset({Role.ADMIN}))
    response = annotator.get("/queue/")
    assert response.status_code == 403
    assert "Not for your role" in response.content.decode()
    assert 'href="/queue/"' not in annotator.get("/").content.decode()  # nor in the navigation
    assert _rate(annotator, _turn("demo-turn-2")).status_code == 403
    assert not Lease.objects.exists() and not Feedback.objects.filter(annotator_id="x").exists()


def test_the_forms_need_the_csrf_token(seeded: None) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(User.objects.get(username="annotator"))
    turn = _leased(client)
    assert _rate(client, turn).status_code == 403
    assert client.post("/queue/", {"do": "skip", "turn": str(turn.pk)}).status_code == 403
    assert not Feedback.objects.filter(correlation_id=turn.correlation_id).exists()
    assert not Skip.objects.exists()


def test_progress_past_the_cap_says_at_least(
    annotator: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    from feedback import queue

    monkeypatch.setattr(queue, "PROGRESS_CAP", 2)
    assert "<b>2+</b> left for you" in annotator.get("/queue/").content.decode()


def _lease_ended(username: str) -> None:
    Lease.objects.filter(username=username).update(expires=time.time() - 1)


def test_the_rating_form_counts_down_the_lease_and_warns_in_its_last_minute(
    annotator: Client,
) -> None:
    page = annotator.get("/queue/")
    clock = page.context
    assert 599 <= clock["lease_remaining"] <= 600
    assert clock["lease_warning"] == LEASE_WARNING_SECONDS
    assert 'id="lease-clock"' in page.content.decode()


def test_a_rating_after_the_lease_went_to_someone_else_is_refused_saying_so(
    annotator: Client,
) -> None:
    turn = _leased(annotator)
    _lease_ended("annotator")
    other = _logged_in("annotator2")
    assert _leased(other) == turn  # the lease moved on
    response = _rate(annotator, turn)
    assert response.status_code == 302
    page = annotator.get(response["Location"]).content.decode()
    assert f"Your hold on {turn.correlation_id} ended before you submitted" in page
    assert "went to someone else: your rating was not stored" in page
    assert not Feedback.objects.filter(correlation_id=turn.correlation_id).exists()
    _rate(other, turn)  # the new holder's is the one rating the turn needs
    assert Feedback.objects.get(correlation_id=turn.correlation_id).annotator_id == "annotator2"


def test_a_rating_after_the_lease_ended_is_kept_if_the_turn_still_needs_one_saying_so(
    annotator: Client,
) -> None:
    turn = _leased(annotator)
    _lease_ended("annotator")
    response = _rate(annotator, turn)
    page = annotator.get(response["Location"]).content.decode()
    assert LATE_KEPT.format(turn=turn.correlation_id) in page
    assert Feedback.objects.get(correlation_id=turn.correlation_id).annotator_id == "annotator"


def test_a_rating_after_the_lease_ended_on_a_turn_rated_since_is_refused_saying_so(
    annotator: Client,
) -> None:
    turn = _leased(annotator)
    _lease_ended("annotator")
    other = _logged_in("annotator2")
    _rate(other, _leased(other))
    response = _rate(annotator, turn)
    page = annotator.get(response["Location"]).content.decode()
    assert "has had the ratings it needs since: your rating was not stored" in page
    assert Feedback.objects.get(correlation_id=turn.correlation_id).annotator_id == "annotator2"
