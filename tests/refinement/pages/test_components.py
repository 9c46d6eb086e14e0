"""The components pages: records with their weights, sortable; a component's charts and numbers."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.accounts import roles
from core.accounts.roles import Action, Role
from feedback.services.experiences import experience_store
from feedback.services.feedbacks import feedback_record
from learnportal.demo import COMPONENTS
from learnportal_protocol import Feedback as FeedbackItem
from learnportal_protocol import FeedbackPolarity
from refinement.models import Plan, Proposal
from refinement.store import behaviour_policy, routing_weights
from tests.factories import ExperienceItemFactory, PrincipalFactory, UserFactory
from tests.harness import default_pk
from tests.refinement.helpers import corrections, plan_of

if TYPE_CHECKING:
    from django.test import Client
    from pytest_django import DjangoAssertNumQueries

    from tests.harness import Actor

pytestmark = pytest.mark.django_db

AGENT = PrincipalFactory.build(role=Role.AGENT, name="agent-1")
HOSTILE = '<script>alert("x")</script>&<b>'


def _calls(component: str, n: int, *, ts: float = 1_700_000_000.0, hours: int = 1) -> None:
    experience_store(
        principal=AGENT,
        experiences=[
            ExperienceItemFactory.build(
                experience_id=f"{component}-{ts}-{i}",
                reward=1.0 if i % 3 else -1.0,
                ts=ts + 3600 * (i % hours),
                action__component_name=component,
                action__duration_ms=10.0 + i,
            )
            for i in range(n)
        ],
        policy=behaviour_policy,
    )


def _names_in_order(html: str) -> list[str]:
    return re.findall(r'<th scope="row" class="component-name"><a href="[^"]*">([^<]*)</a>', html)


def _weight_proposal() -> Proposal:
    plan = Plan.objects.get(requested_by="token:demo-agent")
    proposal = plan.proposals.filter(target="router_weight").order_by("id").first()
    assert proposal is not None
    return proposal


def test_every_component_is_listed_with_its_routing_weight(reviewer: Client) -> None:
    page = reviewer.get("/components/")
    assert page.status_code == 200
    html = page.content.decode()
    assert sorted(_names_in_order(html)) == sorted(COMPONENTS)
    assert "(never set)" in html  # the demo's weights are all still 0.5
    assert 'href="/components/"' in html  # in the navigation


def test_the_list_sorts_on_the_server_by_the_column_asked_for(reviewer: Client) -> None:
    _calls("busy", 300)
    _calls("quiet", 2)
    html = reviewer.get("/components/", {"sort": "calls", "order": "desc"}).content.decode()
    names = _names_in_order(html)
    assert names[0] == "busy" and names[-1] == "quiet"
    assert re.search(r'<th scope="col" aria-sort="descending"[^>]*>\s*<a href="\?sort=calls', html)
    assert html.count("aria-sort=") == 1
    # The sorted column's link turns the order round; the others start at their own.
    assert 'href="?sort=calls&amp;order=asc"' in html
    assert 'href="?sort=name&amp;order=asc"' in html

    ascending = reviewer.get("/components/", {"sort": "calls", "order": "asc"}).content.decode()
    assert _names_in_order(ascending)[0] == "quiet"
    assert _names_in_order(ascending)[-1] == "busy"


def test_an_unknown_sort_is_refused_naming_the_parameter(reviewer: Client) -> None:
    page = reviewer.get("/components/", {"sort": "password", "order": "sideways"})
    assert page.status_code == 400
    html = page.content.decode()
    assert "sort: &#x27;password&#x27; is not one of name, weight" in html
    assert "order: &#x27;sideways&#x27; is not asc or desc" in html
    assert sorted(_names_in_order(html)) == _names_in_order(html)  # by name instead


def test_a_component_page_draws_each_chart_with_its_numbers(reviewer: Client) -> None:
    page = reviewer.get("/components/code_review/")
    assert page.status_code == 200
    html = page.content.decode()
    for chart in ("score-chart", "duration-chart"):
        assert f'aria-labelledby="{chart}-title {chart}-desc"' in html
        assert f'<title id="{chart}-title">' in html
    assert html.count("<summary>The numbers</summary>") == 2
    assert "p50 <b>" in html and "p95 <b>" in html
    assert 'class="marker-label marker-1"' in html  # p50 and p95 drawn on the histogram
    assert "The weight has never changed." in html
    # The CSP allows neither inline: no style attribute, no script without a src.
    assert "style=" not in html and not re.search(r"<script(?![^>]*\bsrc=)", html)


def test_a_weight_applied_by_a_reviewer_shows_on_the_list_and_in_its_chart(
    reviewer: Client, second_reviewer: Client
) -> None:
    proposal = _weight_proposal()
    component = proposal.path.removeprefix("router.weights.")
    base = f"/plans/{plan_of(proposal).plan_id}/proposals/{proposal.proposal_id}"
    assert reviewer.post(f"{base}/approve/", {"note": "ok"}).status_code == 302
    assert reviewer.post(f"{base}/apply/").status_code == 302
    weight = routing_weights(default_pk())[component]
    assert weight == proposal.new_value

    listed = reviewer.get("/components/", {"sort": "weight", "order": "desc"}).content.decode()
    row = re.search(rf">{component}</a></th>\s*<td class=\"num\">([0-9.]+)", listed)
    assert row is not None and float(row.group(1)) == pytest.approx(weight, abs=1e-3)

    html = reviewer.get(f"/components/{component}/").content.decode()
    assert 'aria-labelledby="weight-chart-title weight-chart-desc"' in html
    assert f"now {weight:.3f}" in html
    after = re.findall(r'<td class="num weight-after">([0-9.]+)</td>', html)
    assert [float(a) for a in after] == [pytest.approx(weight, abs=1e-3)]
    assert f'href="/plans/{plan_of(proposal).plan_id}/"' in html  # the refinement's plan


def test_agent_supplied_component_names_are_text(reviewer: Client) -> None:
    _calls(HOSTILE, 3)
    listed = reviewer.get("/components/").content.decode()
    assert HOSTILE not in listed
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&lt;b&gt;" in listed
    link = re.search(r'<a href="(/components/[^"]*script[^"]*/)">', listed)
    assert link is not None
    page = reviewer.get(link.group(1).replace("&amp;", "&"))
    assert page.status_code == 200
    html = page.content.decode()
    assert HOSTILE not in html
    assert "<title>&lt;script&gt;" in html
    assert '<title id="duration-chart-title">Call durations of &lt;script&gt;' in html


def test_annotators_read_stats_but_not_the_refinements_nor_other_peoples_ratings(
    annotator: Client,
) -> None:
    feedback_record(
        principal=PrincipalFactory.build(role=Role.REVIEWER, name="reviewer"),
        feedbacks=[
            FeedbackItem(
                feedback_id="someone-elses",
                component_name="code_review",
                score=0.9,
                comment="reviewer's own opinion",
                polarity=FeedbackPolarity.POSITIVE,
            )
        ],
    )
    assert annotator.get("/components/").status_code == 200
    html = annotator.get("/components/code_review/").content.decode()
    assert "Refinements of its weight" not in html
    assert "reviewer&#x27;s own opinion" not in html
    assert "Missed the bug" in html  # the annotator's own correction


def test_a_role_that_may_not_read_stats_gets_the_403_page(
    annotator: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(roles.ALLOWED, Action.STATS, frozenset({Role.REVIEWER, Role.ADMIN}))
    for path in ("/components/", "/components/code_review/"):
        page = annotator.get(path)
        assert page.status_code == 403
        assert "Not for your role" in page.content.decode()
    assert 'href="/components/"' not in annotator.get("/").content.decode()


def test_visitors_not_logged_in_are_sent_to_log_in(client: Client, seeded: None) -> None:
    page = client.get("/components/code_review/")
    assert page.status_code == 302 and page["Location"].startswith("/login/")


def test_an_unknown_component_is_not_found(reviewer: Client) -> None:
    assert reviewer.get("/components/no-such-thing/").status_code == 404


def test_an_empty_portal_says_how_an_agent_sends_its_first_call(client: Client) -> None:
    client.force_login(UserFactory.create(role="reviewer"))
    html = client.get("/components/").content.decode()
    assert "No component has reported yet" in html
    assert "learn/experience/req" in html and "createtoken" in html


def test_a_component_page_reads_as_many_rows_at_many_hours_as_at_one(
    reviewer: Client, django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    """Its cost is flat: the same queries whether the calls span one hour or three hundred."""
    _calls("flat-one", 300, hours=1)
    _calls("flat-many", 300, hours=300)
    reviewer.get("/components/flat-one/")  # warm the session and the principal's caches

    with CaptureQueriesContext(connection) as one:
        assert reviewer.get("/components/flat-one/").status_code == 200
    with django_assert_num_queries(len(one.captured_queries)):
        assert reviewer.get("/components/flat-many/").status_code == 200


def test_a_component_page_reads_its_newest_feedback_as_a_walk_of_its_index(
    reviewer: Client,
) -> None:
    """The newest feedback stops after the page: an anti-join against the retractions (never a
    LEFT JOIN filtered on `retraction.id IS NULL`, which PostgreSQL cannot prove to be one and
    so sorts all of the component's feedback), in the order of the (component_name, ts, id)
    index."""
    with CaptureQueriesContext(connection) as page:
        assert reviewer.get("/components/code_review/").status_code == 200
    newest = [
        q["sql"]
        for q in page.captured_queries
        if 'FROM "feedback_feedback"' in q["sql"] and "ORDER BY" in q["sql"]
    ]
    assert len(newest) == 1, newest
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"EXPLAIN {newest[0]}")
            plan = "\n".join(row[0] for row in cursor.fetchall())
            # A plan's structure, not its costs: NOT EXISTS is pulled up into an anti-join
            # whatever the statistics say; the LEFT JOIN form never is.
            assert "Anti Join" in plan, plan
        else:
            cursor.execute(f"EXPLAIN QUERY PLAN {newest[0]}")
            plan = "\n".join(str(row[-1]) for row in cursor.fetchall())
            assert "feedback_component_newest" in plan and "TEMP B-TREE" not in plan, plan


def test_a_component_without_calls_shows_dashes_not_zero_percent_or_zero_ms(
    reviewer: Client, agent: Actor
) -> None:
    corrections(agent, "rated-only", ["say which file"])  # rated, never called
    row = re.compile(r'<a href="/components/rated-only/">rated-only</a></th>(.*?)</tr>', re.S)
    listed = row.search(reviewer.get("/components/").content.decode())
    assert listed is not None
    cells = re.findall(r'<td class="num[^"]*">(.*?)</td>', listed.group(1), re.S)
    # weight, calls, success, score, avg ms, p95 ms, last call
    assert [cells[1], cells[2], cells[4], cells[5]] == ["0", "—", "—", "—"]
    assert "0%" not in listed.group(1)
    overview = reviewer.get("/").content.decode()
    home_row = re.search(r"<td>rated-only</td>(.*?)</tr>", overview, re.S)
    assert home_row is not None and "0%" not in home_row.group(1)
    assert home_row.group(1).count("<td>—</td>") == 3
    page = reviewer.get("/components/rated-only/").content.decode()
    assert "0 calls" in page and "% succeeded" not in page and "p95 —" in page
