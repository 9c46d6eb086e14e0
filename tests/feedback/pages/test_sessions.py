"""A session page: the turns of one conversation of the project, first queued first, linked
from the turn list and the rating page; another project's session is not found, as one that
does not exist, whatever the id holds."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from django.urls import reverse

from core.projects.services import project_add
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
