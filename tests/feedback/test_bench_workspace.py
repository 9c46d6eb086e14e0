"""Smoke tests of bench.workspace's library (bench/annotation) on tiny sizes (the bench itself is `make bench`)."""

from __future__ import annotations

from collections import Counter

import orjson
import pytest
from django.core.cache import cache

from bench import workspace
from bench.annotation import build, compare, data, label_studio, probes, report
from core.projects.models import DEFAULT_PROJECT
from feedback.models import Feedback, Turn
from feedback.selectors.agreement import agreement_read
from learnportal_protocol import Feedback as FeedbackItem
from learnportal_protocol import parse_request
from learnportal_protocol.messages import LearnFeedbackRequest


def test_the_generated_feedback_is_valid_protocol_feedback_in_the_stated_shares() -> None:
    built = data.generate(500, 5000, seed=3)
    turns = {t["correlation_id"]: t for t in built.turns}
    for row in built.feedback:
        span = None if row["span_start"] is None else (row["span_start"], row["span_end"])
        response = turns[row["correlation_id"]]["response"]
        item = {
            **{k: row[k] for k in ("polarity", "score", "dimension", "confidence", "source")},
            "correction": row["correction"],
            "correction_span": span,
            "rated_turn": {"prompt": "p", "response": response, "model": "m"},
        }
        FeedbackItem.model_validate_json(orjson.dumps(item))  # as the wire parses it
    sources = Counter(row["source"] for row in built.feedback)
    assert sources["human"] == 1000
    assert 0.6 < sources["self"] / (sources["self"] + sources["env"]) < 0.7
    raters = Counter(r["correlation_id"] for r in built.feedback if r["source"] == "human")
    assert sum(raters.values()) / len(raters) > 2  # most rated turns have several people
    assert len({r["feedback_id"] for r in built.feedback}) == 5000


@pytest.mark.django_db
def test_the_bulk_build_loads_every_row_and_agreement_reads_them() -> None:
    cache.clear()
    built = build.child_build(turns=300, feedback=3000, seed=5)
    assert (Turn.objects.count(), Feedback.objects.count()) == (300, 3000)
    assert built["human"] == Feedback.objects.filter(source="human").count() == 600
    report = agreement_read(DEFAULT_PROJECT)
    rated = sum(row.ratings for row in report.agreement.dimensions)
    assert 0 < rated <= 600
    assert all(row.alpha is None or -1 < row.alpha <= 1 for row in report.agreement.dimensions)


def test_only_paths_with_a_view_of_their_own_count_as_routed() -> None:
    assert probes.routed("/api/agreement/")
    assert probes.routed("/agreement/")
    assert not probes.routed("/api/no-such-endpoint/")  # the JSON 404 catch-all
    assert not probes.routed("/no-such-page/")


def test_both_sides_of_the_comparison_get_the_same_rated_turns() -> None:
    items = data.rated_turns(1500)
    one_call = compare.learnportal_bodies(items, split=False)
    split = compare.learnportal_bodies(items, split=True)
    tasks = label_studio.ls_tasks(items)
    assert [len(b) for b in tasks] == [1000, 500]
    assert [[who for who, _ in batch] for batch in split] == [["agent", "annotator"]] * 2
    request = parse_request(one_call[1][0][1], max_batch=1000)
    assert isinstance(request, LearnFeedbackRequest)
    sent = request.feedbacks[0]
    first = items[1000]
    assert sent.rated_turn is not None and sent.rated_turn.response == first["turn"]["response"]
    assert (
        sent.score
        == first["rating"]["score"]
        == tasks[1][0]["annotations"][0]["result"][1]["value"]["number"]
    )
    turns = orjson.loads(split[1][0][1])["turns"]
    assert (
        turns[0]["correlation_id"] == tasks[1][0]["data"]["correlation_id"] == sent.correlation_id
    )


def test_a_comparison_only_run_reports_the_comparison_and_no_workspace() -> None:
    side = {
        "rows": 10_000,
        "rows_s": 13_000.0,
        "batch_ms_p50": 75.0,
        "requests": "learn/feedback/req",
        "server": "uvicorn",
    }
    ls = {"version": "1.23.2", "rows_s": 650.0, "batch_ms_p50": 1500.0, "server": "its own"}
    meta = {
        "database": "sqlite",
        "started": "today",
        "command": "c",
        "seconds": 60,
        "load": [1, 2],
        "db_version": "SQLite",
        "nproc": 2,
        "cpu": "cpu",
        "python": "3.11",
    }
    results = {"meta": meta, "compare": {"learnportal": side, "label_studio": ls}}
    text = report.summary(results)
    assert text.startswith("Comparison only.")
    assert "= **20.0x** MISS" in text
    assert "Server time" not in text
    assert workspace.parse_args(["--compare-only"]).compare_only
