"""A session page: the turns of one conversation of the project, first queued first, linked
from the turn list and the rating page; another project's session is not found, as one that
does not exist, whatever the id holds."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from django.urls import reverse

from core.projects.services import project_add
from feedback.models import Feedback, Turn
from feedback.sessions import SESSION_STEP
from tests.builders import turn
from tests.harness import Actor, token_actor

pytestmark = pytest.mark.django_db

ODD_SESSION = "conv/../7 ?#%20é"


def queue(agent: Actor, session: str, *keys: str) -> None:
    body = {
        "turns": [
            {"correlation_id": key, "session_id": session, "rated_turn": turn(prompt=f"Q {key}")}
            for key in keys
        ]
    }
    assert agent.rest("post", "/api/turns/", body).status_code == 201


def test_the_turns_of_a_session_are_shown_first_first_with_their_steps_counted(
    agent: Actor, ann: Actor
) -> None:
    queue(agent, "conv-1", "t-2", "t-1")
    queue(agent, "conv-1", "t-3")
    queue(agent, "conv-2", "t-9")
    page = ann.browser().get(reverse("portal:session") + "?id=conv-1")
    assert page.status_code == 200
    html = page.content.decode()
    assert html.index("Q t-2") < html.index("Q t-1") < html.index("Q t-3")
    assert "Q t-9" not in html


def test_an_id_of_any_characters_links_to_its_own_session(agent: Actor, ann: Actor) -> None:
    queue(agent, ODD_SESSION, "t-1")
    browser = ann.browser()
    listed = browser.get("/turns/").content.decode()
    url = reverse("portal:session") + "?id=" + quote(ODD_SESSION, safe="")
    assert f'href="{url}"' in listed
    assert "Q t-1" in browser.get(url).content.decode()


@pytest.mark.parametrize("session", ["nothing-here", "x" * 201, ""])
def test_a_session_with_no_turns_here_is_not_found(ann: Actor, session: str) -> None:
    project_add(slug="beta", name="Beta")
    queue(token_actor("beta-agent", "agent", project="beta"), "nothing-here", "b-1")
    assert ann.browser().get("/sessions/", {"id": session}).status_code == 404


def _session_form(**fields: str) -> dict[str, str]:
    return {
        "do": "rate",
        "feedback_id": "fb-session-1",
        "polarity": "negative",
        "score": "-0.5",
        "dimension": "helpfulness",
        "confidence": "1",
        "comment": "It asked the same question twice.",
        "correction": "",
        "span_start": "",
        "span_end": "",
        "step_id": SESSION_STEP,
        **fields,
    }


def test_the_queue_in_sessions_mode_shows_a_session_whole_and_stores_its_rating(
    agent: Actor, ann: Actor
) -> None:
    queue(agent, "conv-1", "t-1", "t-2")
    queue(agent, "", "t-3")
    browser = ann.browser()
    page = browser.get("/queue/?sessions=1")
    html = page.content.decode()
    assert page.context["rated_session"] is True
    assert html.index("Q t-1") < html.index("Q t-2")
    assert f'name="step_id" value="{SESSION_STEP}"' in html
    assert 'value="corrective"' not in html  # a session corrects no one response
    opener = Turn.objects.get(correlation_id="t-1")
    sent = browser.post("/queue/?sessions=1", _session_form(turn=str(opener.pk)))
    assert sent.status_code == 302
    assert sent.headers["Location"] == "/queue/?sessions=1"
    stored = Feedback.objects.get()
    assert (stored.correlation_id, stored.step_id, stored.rated_turn) == ("t-1", SESSION_STEP, None)
    assert browser.get("/queue/?sessions=1").context["turn"] is None  # no other session


def test_a_correction_of_a_session_sent_anyway_is_refused_on_the_page(
    agent: Actor, ann: Actor
) -> None:
    queue(agent, "conv-1", "t-1")
    browser = ann.browser()
    assert browser.get("/queue/?sessions=1").status_code == 200
    opener = Turn.objects.get(correlation_id="t-1")
    form = _session_form(turn=str(opener.pk), polarity="corrective", correction="Ask once.")
    refused = browser.post("/queue/?sessions=1", form)
    assert refused.status_code == 400
    assert "corrects no one response" in refused.content.decode()
    assert not Feedback.objects.exists()


def test_a_sessions_ratings_are_hidden_from_an_annotator_until_they_rate_it(
    agent: Actor, ann: Actor, rev: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 2
    queue(agent, "conv-1", "t-1", "t-2")
    opener = str(Turn.objects.get(correlation_id="t-1").pk)
    rated = rev.browser().post(
        "/queue/?sessions=1", _session_form(turn=opener, comment="rev-was-here")
    )
    assert rated.status_code == 302
    url = reverse("portal:session") + "?id=conv-1"
    before = ann.browser().get(url).content.decode()
    assert "rev-was-here" not in before
    assert "stay hidden until you have rated it" in before
    assert "rev-was-here" in rev.browser().get(url).content.decode()
    mine = ann.browser().post(
        "/queue/?sessions=1",
        _session_form(turn=opener, feedback_id="fb-2"),
    )
    assert mine.status_code == 302
    after = ann.browser().get(url).content.decode()
    assert "rev-was-here" in after
    assert after.count('class="rated-part small">the session<') == 2
