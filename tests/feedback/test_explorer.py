"""GET /api/feedback/ (docs/contract.md, "Explorer"): filters, keyset cursor, blind annotators."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlparse

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.projects.models import DEFAULT_PROJECT
from feedback.filters import FeedbackFilters
from feedback.models import Feedback
from feedback.selectors.explorer import feedback_page_rows
from tests.builders import feedback, feedback_req, turn
from tests.harness import token_actor

if TYPE_CHECKING:
    from tests.harness import Actor

URL = "/api/feedback/"


@pytest.fixture(autouse=True)
def _several_raters_a_turn(settings: Any) -> None:
    # Several people rate each turn here: a turn takes as many as it needs, no more
    # (feedback.raters), so it needs them.
    settings.LEARNPORTAL_RATINGS_PER_TURN = 8


def send(actor: Actor, *items: dict[str, Any]) -> None:
    response = actor.learn(feedback_req(*items))
    assert response.status_code == 200, response.json()


@pytest.fixture
def four(ann: Actor, rev: Actor, agent: Actor, env: Actor) -> None:
    """One feedback from each kind of sender, each different in every filtered field."""
    send(
        ann,
        feedback(
            feedback_id="by-ann",
            correlation_id="c-1",
            component_name="search",
            polarity="positive",
            dimension="tone",
            ts=100.0,
            rated_turn=turn(),
        ),
    )
    send(
        rev,
        feedback(
            feedback_id="by-rev",
            correlation_id="c-1",
            component_name="code",
            polarity="corrective",
            dimension="correctness",
            correction="42, as computed",
            correction_span=[14, 16],
            ts=200.0,
            score=-0.5,
            rated_turn=turn(),
        ),
    )
    send(
        agent,
        feedback(
            feedback_id="by-agent",
            correlation_id="c-2",
            component_name="search",
            polarity="neutral",
            dimension="helpfulness",
            source="self",
            ts=300.0,
        ),
    )
    send(
        env,
        feedback(
            feedback_id="by-env",
            correlation_id="c-3",
            component_name="code",
            polarity="negative",
            dimension="safety",
            source="env",
            ts=400.0,
            score=-1.0,
        ),
    )


def ids(actor: Actor, **params: Any) -> list[str]:
    response = actor.client.get(URL, params)
    assert response.status_code == 200, response.json()
    return [item["feedback_id"] for item in response.json()["results"]]


def test_it_lists_every_feedback_newest_first_to_a_reviewer(four: None, rev: Actor) -> None:
    assert ids(rev) == ["by-env", "by-agent", "by-rev", "by-ann"]


def test_each_item_is_the_stored_feedback_with_its_component(four: None, rev: Actor) -> None:
    (item,) = rev.client.get(
        URL, {"correlation_id": "c-1", "source": "human", "polarity": "corrective"}
    ).json()["results"]
    assert item == {
        "feedback_id": "by-rev",
        "correlation_id": "c-1",
        "session_id": "",
        "rated_turn": {**turn(), "environment": None, "version": None},
        "polarity": "corrective",
        "score": -0.5,
        "dimension": "correctness",
        "confidence": 1.0,
        "comment": "",
        "correction": "42, as computed",
        "correction_span": [14, 16],
        "source": "human",
        "annotator_id": "rev",
        "ts": 200.0,
        "component_name": "code",
        "step_id": "",
    }


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"source": "human"}, ["by-rev", "by-ann"]),
        ({"source": "self"}, ["by-agent"]),
        ({"source": "env"}, ["by-env"]),
        ({"polarity": "negative"}, ["by-env"]),
        ({"polarity": "corrective"}, ["by-rev"]),
        ({"dimension": "tone"}, ["by-ann"]),
        ({"dimension": "safety"}, ["by-env"]),
        ({"component": "search"}, ["by-agent", "by-ann"]),
        ({"annotator": "rev"}, ["by-rev"]),
        ({"since": "200"}, ["by-env", "by-agent", "by-rev"]),
        ({"until": "300"}, ["by-rev", "by-ann"]),
        ({"since": "150.5", "until": "300.0"}, ["by-rev"]),
        ({"has_correction": "true"}, ["by-rev"]),
        ({"has_correction": "false"}, ["by-env", "by-agent", "by-ann"]),
        ({"correlation_id": "c-1"}, ["by-rev", "by-ann"]),
        ({"component": "code", "source": "env"}, ["by-env"]),
        ({"component": "nothing-rated"}, []),
        ({"source": "", "component": ""}, ["by-env", "by-agent", "by-rev", "by-ann"]),
    ],
    ids=lambda value: (
        "&".join(f"{k}={v}" for k, v in value.items()) if isinstance(value, dict) else None
    ),
)
def test_each_filter_keeps_only_what_it_names(
    four: None, boss: Actor, params: dict[str, str], expected: list[str]
) -> None:
    assert ids(boss, **params) == expected


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"source": "robot"}, "source"),
        ({"polarity": "great"}, "polarity"),
        ({"dimension": "vibes"}, "dimension"),
        ({"since": "yesterday"}, "since"),
        ({"since": "-1"}, "since"),
        ({"until": "nan"}, "until"),
        ({"until": "1e400"}, "until"),
        ({"since": "1e20"}, "since"),
        ({"until": "253402300800"}, "until"),  # a second past the year 9999
        ({"has_correction": "maybe"}, "has_correction"),
        ({"limit": "0"}, "limit"),
        ({"limit": "501"}, "limit"),
        ({"limit": "ten"}, "limit"),
        ({"component": "a\x00b"}, "component"),
        ({"cursor": "not-a-cursor"}, "cursor"),
    ],
)
def test_a_bad_filter_value_is_invalid_naming_it(
    four: None, rev: Actor, params: dict[str, str], field: str
) -> None:
    response = rev.client.get(URL, params)
    body = response.json()
    assert (response.status_code, body["code"]) == (400, "invalid"), body
    assert [d["loc"] for d in body["details"]] == [[field]]


def test_a_tampered_cursor_is_invalid_naming_the_cursor(four: None, rev: Actor) -> None:
    next_url = rev.client.get(URL, {"limit": 1}).json()["next"]
    cursor = parse_qs(urlparse(next_url).query)["cursor"][0]
    # The position is readable (signed, not encrypted): change it and keep the signature.
    forged = cursor.replace(cursor[2], "A" if cursor[2] != "A" else "B", 1)
    body = rev.client.get(URL, {"cursor": forged}).json()
    assert body["code"] == "invalid"
    assert body["details"] == [{"loc": ["cursor"], "msg": "not a cursor of this list"}]


def test_an_annotator_sees_their_own_human_feedback_and_the_machines_only(
    four: None, ann: Actor
) -> None:
    assert ids(ann) == ["by-env", "by-agent", "by-ann"]
    assert ids(ann, annotator="rev") == []
    assert ids(ann, correlation_id="c-1") == ["by-ann"]
    assert ids(ann, has_correction="true") == []


def test_an_annotator_stays_blind_after_rating_the_same_turn(four: None, ann: Actor) -> None:
    # ann rated c-1 too; the list still never shows rev's rating of it (the contract's rule
    # for the explorer: their own human feedback, and self/env).
    assert "by-rev" not in ids(ann, correlation_id="c-1", limit=500)


def test_an_agent_or_an_environment_lists_only_the_feedback_it_sent(
    four: None, agent: Actor, env: Actor
) -> None:
    assert ids(agent) == ["by-agent"]
    assert ids(env) == ["by-env"]
    assert ids(agent, source="env") == []
    assert ids(env, component="code", polarity="negative") == ["by-env"]


def test_another_agent_lists_none_of_an_agents_feedback(four: None) -> None:
    other = token_actor("other-agent", "agent")
    assert ids(other) == []


def test_nobody_unauthenticated_reads_it(four: None, anonymous: Actor) -> None:
    response = anonymous.client.get(URL)
    assert (response.status_code, response.json()["code"]) == (401, "unauthenticated")


# --- the cursor --------------------------------------------------------------------------------


def many(agent: Actor, count: int, *, ts: float | None = None, prefix: str = "m") -> list[str]:
    """`count` feedbacks; with `ts`, all at that one time (ties the cursor must break by id)."""
    items = [
        feedback(
            feedback_id=f"{prefix}-{i}", source="self", ts=ts if ts is not None else 1000.0 + i % 17
        )
        for i in range(count)
    ]
    for start in range(0, count, 1000):
        send(agent, *items[start : start + 1000])
    return [item["feedback_id"] for item in items]


def walk(actor: Actor, between_pages: Any = None, **params: Any) -> list[str]:
    seen: list[str] = []
    body = actor.client.get(URL, params).json()
    while True:
        seen += [item["feedback_id"] for item in body["results"]]
        if body["next"] is None:
            return seen
        assert f"limit={params['limit']}" in body["next"]
        if between_pages is not None:
            between_pages(len(seen))
        body = actor.client.get(body["next"]).json()


def test_cursor_pages_cover_every_row_once_in_order(agent: Actor, rev: Actor) -> None:
    made = many(agent, 60) + many(agent, 25, ts=1005.0, prefix="tie")
    seen = walk(rev, limit=7, source="self")
    assert sorted(seen) == sorted(made)
    assert len(seen) == len(set(seen))
    stored = {f.feedback_id: (f.ts, f.id) for f in Feedback.objects.all()}
    assert seen == sorted(seen, key=lambda key: stored[key], reverse=True)


def test_rows_inserted_while_paging_cause_no_repeat_and_no_gap(agent: Actor, rev: Actor) -> None:
    made = many(agent, 50)
    extra = iter(range(1000))

    def insert(_: int) -> None:
        n = next(extra)
        # One newer than everything, one among the rows already listed, one ahead of the cursor.
        send(
            agent,
            feedback(feedback_id=f"new-{n}", source="self", ts=5000.0 + n),
            feedback(feedback_id=f"mid-{n}", source="self", ts=1016.0),
            feedback(feedback_id=f"old-{n}", source="self", ts=10.0),
        )

    seen = walk(rev, between_pages=insert, limit=6)
    assert len(seen) == len(set(seen)), "a row was listed twice"
    assert set(made) <= set(seen), "a row present from the start was skipped"


def test_a_deep_cursor_page_is_exact_and_reads_no_offset(agent: Actor, rev: Actor) -> None:
    many(agent, 3000)
    ordered = list(Feedback.objects.order_by("-ts", "-id").values_list("feedback_id", flat=True))
    body = rev.client.get(URL, {"limit": 500}).json()
    for _ in range(4):
        body = rev.client.get(body["next"]).json()
    with CaptureQueriesContext(connection) as queries:
        deep = rev.client.get(body["next"]).json()
    assert [i["feedback_id"] for i in deep["results"]] == ordered[2500:3000]
    assert deep["next"] is None
    assert not any("OFFSET" in q["sql"].upper() for q in queries.captured_queries)


def test_the_next_link_keeps_the_filters(four: None, agent: Actor, rev: Actor) -> None:
    many(agent, 5)
    first = rev.client.get(URL, {"source": "self", "since": "0", "limit": "2"}).json()
    query = parse_qs(urlparse(first["next"]).query)
    assert query["source"] == ["self"] and query["since"] == ["0.0"] and query["limit"] == ["2"]
    assert walk(rev, source="self", limit=2) == ids(rev, source="self", limit=500)


# --- the query plans ---------------------------------------------------------------------------

PLANNED = [
    {},
    {"source": "human"},
    {"polarity": "negative"},
    {"dimension": "tone"},
    {"component": "search"},
    {"annotator": "ann"},
    {"correlation_id": "c-1"},
    {"has_correction": "true"},
    {"since": "100", "until": "300"},
    {"source": "env", "since": "100"},
]


def page_sql(params: dict[str, str]) -> tuple[str, tuple[Any, ...]]:
    """The SQL of a page after a cursor, as the explorer reads it."""
    filters = FeedbackFilters.model_validate(params)
    rows = feedback_page_rows(filters, viewer=None, after=(1e12, 10**9), project=DEFAULT_PROJECT)[
        :51
    ]
    sql, sql_params = rows.query.sql_with_params()
    return sql, sql_params


@pytest.mark.parametrize("params", PLANNED, ids=lambda p: ",".join(p) or "no-filter")
def test_every_filter_is_served_by_an_index_in_its_order(
    four: None, params: dict[str, str]
) -> None:
    sql, sql_params = page_sql(params)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # A tiny table's statistics favour a scan and a sort; forbid them, so that the plan
            # shows whether an index can serve the filter in its order.
            for setting in ("enable_seqscan", "enable_bitmapscan", "enable_sort"):
                cursor.execute(f"SET LOCAL {setting} = off")
            cursor.execute(f"EXPLAIN {sql}", sql_params)
            plan = "\n".join(row[0] for row in cursor.fetchall())
            assert "Index" in plan and "Sort" not in plan, plan
            # The cursor's bound is a condition of the index, not a filter after it.
            assert re.search(r"Index Cond: .*\bts <=", plan), plan
        else:
            cursor.execute(f"EXPLAIN QUERY PLAN {sql}", sql_params)
            plan = "\n".join(str(row[-1]) for row in cursor.fetchall())
            assert "feedback_" in plan and "TEMP B-TREE" not in plan, plan
            assert "ts<?" in plan, plan  # the cursor's bound is a range of the index


def test_the_turns_list_tells_an_annotator_only_what_they_rated(
    agent: Actor, ann: Actor, rev: Actor, settings: Any
) -> None:
    settings.LEARNPORTAL_RATINGS_PER_TURN = 1
    queued = {"turns": [{"correlation_id": c, "rated_turn": turn()} for c in ("t-1", "t-2")]}
    assert agent.rest("post", "/api/turns/", queued).status_code == 201
    send(rev, feedback(correlation_id="t-1"))

    def unrated(actor: Actor) -> list[str]:
        body = actor.client.get("/api/turns/", {"unrated": "true"}).json()
        return sorted(t["correlation_id"] for t in body["results"])

    assert unrated(rev) == ["t-2"]
    assert unrated(ann) == ["t-1", "t-2"]  # rev's rating of t-1 is not ann's to know
    send(ann, feedback(correlation_id="t-2"))
    assert unrated(ann) == ["t-1"]
