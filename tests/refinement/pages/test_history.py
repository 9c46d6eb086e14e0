from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from learnportal.demo import DEMO_AGENT
from refinement.adapt import adapt_run
from refinement.history import history_record
from refinement.models import HistoryEntry, HistoryPath, Plan, Proposal, Refinement
from refinement.services.rollback import refinement_rollback

if TYPE_CHECKING:
    from django.test import Client

pytestmark = pytest.mark.django_db

REPR = re.compile(r"\bNone\b|(?<!/dev/)\bnull\b|→ &#x27;")  # what a repr of a value shows


def test_annotators_may_not_read_the_history(annotator: Client) -> None:
    assert annotator.get("/history/").status_code == 403


def test_the_history_is_a_newest_first_timeline_with_actor_time_and_diff(reviewer: Client) -> None:
    history_record(
        "apply",
        "user:someone",
        project="default",
        message="newest entry",
        diff=[{"path": "learnings/_global/SKILL.md", "before": "old\n", "after": "new\n"}],
    )
    page = reviewer.get("/history/").content.decode()
    assert page.index("newest entry") < page.index("7 proposals for all components")
    assert '<a class="actor" href="?actor=user%3Asomeone">user:someone</a>' in page
    assert '<a class="change-path" href="?path=router.weights.code_review">' in page
    assert '<span class="change">0.5 →' in page
    assert '<details class="entry-diff"><summary>diff</summary>' in page  # a learnings file's
    assert 'data-live-region="history"' in page


def test_the_history_pages_by_keyset_both_ways(reviewer: Client) -> None:
    for i in range(30):
        history_record("review", "user:bot", project="default", message=f"entry {i:02d}")
    first = reviewer.get("/history/").content.decode()
    assert "entry 29" in first and "entry 05" in first and "entry 04" not in first
    older = first.split('<a href="?&amp;before=')[1].split('"')[0]
    second = reviewer.get(f"/history/?before={older}").content.decode()
    assert "entry 05" not in second and "entry 04" in second and "entry 00" in second
    assert "data-live-region" not in second  # only the newest page follows live events
    assert "« Newest" in second
    newer = second.split('<a href="?&amp;after=')[1].split('"')[0]
    back = reviewer.get(f"/history/?after={newer}").content.decode()
    assert "entry 29" in back and "entry 04" not in back


def test_a_page_of_history_never_counts_or_offsets_the_table(reviewer: Client) -> None:
    for i in range(30):
        history_record("review", "user:bot", project="default", message=f"entry {i:02d}")
    with CaptureQueriesContext(connection) as queries:
        reviewer.get("/history/", {"kind": "review"})
    sql = " ".join(q["sql"] for q in queries.captured_queries if "history" in q["sql"])
    assert "OFFSET" not in sql.upper() and "COUNT(" not in sql.upper()


def test_a_malformed_cursor_shows_the_newest_page(reviewer: Client) -> None:
    history_record("review", "user:bot", project="default", message="the newest")
    for cursor in ("nan_1", "x", "1e999_2", "1.0_x"):
        response = reviewer.get("/history/", {"before": cursor})
        assert response.status_code == 200 and "the newest" in response.content.decode()


def test_the_history_filters_by_kind_and_actor(reviewer: Client) -> None:
    history_record("reject", "user:rev", project="default", message="a rejection")
    history_record("approve", "token:bot", project="default", message="an approval")
    rejects = reviewer.get("/history/", {"kind": "reject"}).content.decode()
    assert "a rejection" in rejects and "an approval" not in rejects
    assert '<option value="reject" selected>' in rejects
    by_bot = reviewer.get("/history/", {"actor": "bot"}).content.decode()  # a bare name
    assert "an approval" in by_bot and "a rejection" not in by_bot
    exact = reviewer.get("/history/", {"actor": "user:rev"}).content.decode()
    assert "a rejection" in exact and "an approval" not in exact
    nothing = reviewer.get("/history/", {"actor": "nobody", "kind": "plan"}).content.decode()
    assert "Nothing in the history matches these filters" in nothing


def test_the_history_filters_by_path_or_its_start(reviewer: Client) -> None:
    history_record(
        "apply", "user:a", project="default", message="entry-w", diff=[{"path": "router.weights.x"}]
    )
    history_record(
        "apply",
        "user:a",
        project="default",
        message="entry-f",
        diff=[{"path": "learnings/_global/SKILL.md"}],
    )
    files = reviewer.get("/history/", {"path": "learnings/_global/"}).content.decode()
    assert "entry-f" in files and "entry-w" not in files
    exact = reviewer.get("/history/", {"path": "router.weights.x"}).content.decode()
    assert "entry-w" in exact and "entry-f" not in exact


def test_a_decision_is_found_by_its_proposals_path(reviewer: Client) -> None:
    entry = HistoryEntry.objects.filter(kind="plan").first()
    assert entry is not None
    proposal = Proposal.objects.get(
        plan__plan_id=entry.plan_id, proposal_id=entry.diff[0]["proposal_id"]
    )
    path = entry.diff[0]["path"]
    history_record(
        "approve", "user:rev", project="default", proposal=proposal, message="approved it"
    )
    assert HistoryPath.objects.filter(entry__message="approved it", path=path).exists()
    page = reviewer.get("/history/", {"path": path}).content.decode()
    assert "approved it" in page


def test_a_refinement_and_its_rollback_link_to_each_other(reviewer: Client) -> None:
    outcome = adapt_run(principal=DEMO_AGENT, component_name="", strategy="epsilon_greedy")
    refinement = Refinement.objects.get(plan__plan_id=outcome.plan_id)
    undo = refinement_rollback(principal=DEMO_AGENT, refinement_id=refinement.refinement_id)
    assert undo.rolled_back, undo
    page = reviewer.get("/history/").content.decode()
    rid, uid = refinement.refinement_id, undo.rollback_refinement_id
    assert f'rolled back by <a href="?refinement={uid}">{uid}</a>' in page
    assert f'rolls back <a href="?refinement={rid}">{rid}</a>' in page
    only = reviewer.get("/history/", {"refinement": rid}).content.decode()
    assert f"Only refinement <code>{rid}</code>" in only
    assert "rolled back by" in only and "rolls back" not in only


def test_a_live_refresh_fetches_the_page_itself_with_the_new_entry_in_its_region(
    reviewer: Client,
) -> None:
    # What live.js does on a refinement.* event: the same URL again, and the region swapped.
    before = reviewer.get("/history/", {"kind": "reject"}).content.decode()
    history_record(
        "reject", "user:rev", project="default", message="arrived while the page was open"
    )
    fresh = reviewer.get("/history/", {"kind": "reject"}, headers={"X-Live-Refresh": "1"})
    region = fresh.content.decode().split('data-live-region="history"')[1].split("</section>")[0]
    assert "arrived while the page was open" in region
    assert "arrived while the page was open" not in before
    assert 'data-live-on="refinement."' in before


def test_no_partial_query_is_answered_apart_from_the_page(reviewer: Client) -> None:
    body = reviewer.get("/history/", {"partial": "1"}).content.decode()
    assert "<html" in body and 'data-live-region="history"' in body


def test_an_empty_history_says_what_fills_it(reviewer: Client) -> None:
    HistoryEntry.objects.all().delete()
    page = reviewer.get("/history/").content.decode()
    assert "Nothing has been planned or applied yet" in page and "learn/refinement/plan" in page


def test_a_rollback_and_the_history_show_a_files_change_as_a_diff_not_a_repr(
    reviewer: Client,
) -> None:
    plan = Plan.objects.get(requested_by="token:demo-agent")
    proposal = plan.proposals.filter(target="skill_file").order_by("id").first()
    assert proposal is not None and proposal.old_value is None  # a new learnings file
    lines = len(str(proposal.new_value).splitlines())
    base = f"/plans/{plan.plan_id}"
    reviewer.post(f"{base}/proposals/{proposal.proposal_id}/apply/")
    refinement = Refinement.objects.get(proposal=proposal)

    confirm = reviewer.get(f"{base}/refinements/{refinement.refinement_id}/rollback/")
    body = confirm.content.decode()
    assert f'<span class="change">deletes the file ({lines} lines)</span>' in body
    assert REPR.search(body) is None

    history = reviewer.get("/history/", {"refinement": refinement.refinement_id}).content.decode()
    assert f'<span class="change">creates the file ({lines} lines)</span>' in history
    assert f"{proposal.path}: creates the file ({lines} lines)" in history  # the entry's message
    assert REPR.search(history) is None
