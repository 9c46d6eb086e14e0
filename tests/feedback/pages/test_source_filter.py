"""The pages for people show a component's average score from people's ratings by default,
and from env, self or all sources when asked (feedback.source_scores); a wrong source is a
400 that names the field, never a blend passed off as people's view."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from core.accounts.roles import Role
from feedback.services.feedbacks import feedback_record
from tests.factories import PrincipalFactory
from tests.feedback.test_buckets import scores

if TYPE_CHECKING:
    from django.test import Client

pytestmark = pytest.mark.django_db

AGENT = PrincipalFactory.build(role=Role.AGENT, name="agent-1")
ANN = PrincipalFactory.build(role=Role.ANNOTATOR, name="ann")
PROBE = "qa_probe"
PAGES = ["/", "/components/", f"/components/{PROBE}/"]


@pytest.fixture
def probe_scores(seeded: None) -> None:
    """People say -0.5 of it, the agent itself 1.0, more than twice as sure."""
    feedback_record(principal=AGENT, feedbacks=scores((PROBE, 10.0, 1.0, 0.9)))
    feedback_record(principal=ANN, feedbacks=scores((PROBE, 20.0, -0.5, 0.4)))


def _probe_score(html: str) -> str:
    """The average score shown for the probe component (its row, or its page's header)."""
    row = re.search(rf"<tr>(?:(?!</tr>).)*{PROBE}(?:(?!</tr>).)*</tr>", html, re.S)
    found = re.search(r'class="[^"]*source-score[^"]*">([^<]*)<', row[0] if row else html)
    assert found, "no source score shown"
    return found[1].strip()


@pytest.mark.parametrize("url", PAGES)
def test_it_shows_peoples_average_by_default_not_the_blend(
    url: str, reviewer: Client, probe_scores: None
) -> None:
    response = reviewer.get(url)

    assert response.status_code == 200
    html = response.content.decode()
    assert _probe_score(html) == "-0.50"
    assert '<a href="?source=human" class="chip current" aria-current="true">People</a>' in html


@pytest.mark.parametrize("url", PAGES)
@pytest.mark.parametrize(
    ("source", "shown"),
    [("self", "1.00"), ("env", "—"), ("all", "0.54")],
)
def test_it_shows_the_source_asked_for(
    url: str, source: str, shown: str, reviewer: Client, probe_scores: None
) -> None:
    html = reviewer.get(url, {"source": source}).content.decode()

    assert _probe_score(html) == shown


@pytest.mark.parametrize("url", PAGES)
def test_an_unknown_source_is_a_400_naming_the_field(
    url: str, reviewer: Client, probe_scores: None
) -> None:
    response = reviewer.get(url, {"source": "robots"})

    assert response.status_code == 400
    html = response.content.decode()
    assert "source: &#x27;robots&#x27; is not one of human, env, self, all" in html
    assert _probe_score(html) == "-0.50"


def test_sorting_the_components_keeps_the_source(reviewer: Client, probe_scores: None) -> None:
    html = reviewer.get("/components/", {"source": "self"}).content.decode()

    assert 'href="?sort=score&amp;order=desc&amp;source=self"' in html
