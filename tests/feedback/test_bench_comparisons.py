"""Smoke tests of bench.comparisons' library (bench/judging) on tiny sizes (the bench itself is
`make bench`): its data in the stated shares, its bulk build stored as the services store, its
rounds timed, its report against the issue's target."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

import pytest
from django.core.cache import cache

from bench import comparisons
from bench.judging import build, data, probes, report
from feedback.comparisons.judgments import JudgmentRequest
from feedback.comparisons.leaderboard import RankedBy, leaderboard_read
from feedback.comparisons.models import Candidate, Comparison, ComparisonLease, Judgment

if TYPE_CHECKING:
    from pathlib import Path


def test_the_comparisons_are_the_same_whatever_the_chunk_in_the_stated_shares() -> None:
    whole = [c for batch in data.draws(2000, seed=3, chunk=5000) for c in batch]
    chunked = [c for batch in data.draws(2000, seed=3, chunk=7) for c in batch]
    assert [(c.comparison_id, c.candidates, c.judges) for c in whole] == [
        (c.comparison_id, c.candidates, c.judges) for c in chunked
    ]
    sizes = Counter(len(c.candidates) for c in whole)
    assert 0.07 < sizes[3] / len(whole) < 0.13 and set(sizes) == {2, 3}
    assert Counter(c.judgments_needed for c in whole) == {0: 1200, 1: 200, 2: 600}
    ids = [candidate.candidate_id for c in whole for candidate in c.candidates]
    assert len(set(ids)) == len(ids)
    assert all(len(set(c.judges)) == len(c.judges) for c in whole)
    assert all(c.skipped_by not in c.judges for c in whole)
    judged = Counter(j for c in whole for j in c.judges)
    assert judged.most_common(1)[0][0] == data.JUDGES[0]  # the most active first


def test_a_drawn_judgment_is_one_the_judgment_service_takes() -> None:
    for comparison in next(data.draws(200, seed=5, chunk=200)):
        shown = [c.candidate_id for c in reversed(comparison.candidates)]
        request = JudgmentRequest.model_validate(data.judgment_body(comparison, shown))
        if len(shown) == 2:
            assert request.preference is not None and request.ranking is None
        else:
            assert request.ranking is not None and sorted(request.ranking) == sorted(shown)


@pytest.mark.django_db
def test_the_bulk_build_stores_what_the_services_would_and_the_rounds_are_timed() -> None:
    cache.clear()
    built = build.child_build(comparisons=90, seed=4, chunk=40)
    assert (built["comparisons"], Comparison.objects.count()) == (90, 90)
    assert Candidate.objects.count() == built["candidates"] == 180 + built["of_three"]
    assert Judgment.objects.count() == built["judgments"] == 54 * 2 + 9
    assert built["verified"]["stages"] == {"0": 54, "1": 9, "2": 27}
    assert built["verified"]["needed"] == 90 and len(built["verified"]["by_service"]) == 2
    for judgment in Judgment.objects.all():
        assert sorted(judgment.shown) == sorted(
            Candidate.objects.filter(comparison=judgment.comparison).values_list(
                "candidate_id", flat=True
            )
        )
        assert len(judgment.ranks) == len(judgment.shown)
    project = Comparison.objects.values_list("project_id", flat=True)[0]
    board = leaderboard_read(project, RankedBy.COMPONENT)
    assert board.pairs >= built["judgments"] and board.entries

    measured = probes.child_measure(rounds=3, seed=4)
    figures = measured["figures"]
    assert [figures[label]["n"] for label in probes.TARGETED] == [3, 3, 3]
    assert all(figures[label]["n"] >= 3 for label in probes.READS)
    assert measured["others_leased"] == len(data.JUDGES) - 1
    assert ComparisonLease.objects.count() == len(data.JUDGES) - 1  # the timed one judged its own
    assert Judgment.objects.count() == built["judgments"] + 4  # the warm-up judged too


def _results(slow: dict[str, Any]) -> dict[str, Any]:
    fast = {"ms_p50": 5.0, "ms_p95": 9.0, "n": 200}
    figures = dict.fromkeys((*probes.TARGETED, *probes.READS), fast) | slow
    built = {"comparisons": 10, "of_three": 1, "candidates": 21, "judgments": 13, "judges": 6,
             "skips": 0, "insert_s": 1.0, "rows_s": 44.0,
             "verified": {"stages": {"0": 6, "1": 1, "2": 3}, "needed": 10, "drawn_again": 10}}  # fmt: skip
    meta = {"started": "now", "command": "python -m bench.comparisons", "db_version": "SQLite",
            "nproc": 2, "cpu": "x", "python": "3.11", "database": "sqlite", "load": [1.0, 1.2]}  # fmt: skip
    requests = {"figures": figures, "others_leased": 5, "load": [1.1, 1.0, 0.9]}
    return {"built": built, "requests": requests, "meta": meta}


def test_the_report_says_each_target_and_writes_its_block_once(tmp_path: Path) -> None:
    slow = {probes.PAGE: {"ms_p50": 80.0, "ms_p95": 120.0, "n": 200}}
    verdicts = {row[0]: row[3] for row in report.targets(_results(slow))}
    assert verdicts == {
        f"{probes.NEXT}, p95": "PASS",
        f"{probes.PAGE}, p95": "MISS",
        f"{probes.JUDGE}, p95": "PASS",
        f"{probes.LEADERBOARD}, p95": "",
        f"{probes.AGREEMENT}, p95": "",
    }
    skipped = {probes.PAGE: {"skipped": "/compare/ is not routed on this branch"}}
    assert report.targets(_results(skipped))[1][3] == ""
    out = tmp_path / "BENCHMARKS.md"
    out.write_text("# Benchmarks\n\n### Traces over OTLP (issue 25)\n\nText.\n")
    report.write(out, _results(slow))
    report.write(out, _results({}))
    text = out.read_text()
    assert text.count(report.HEADING) == 1 and text.count("bench:comparisons-sqlite:start") == 1
    assert text.index("Text.") < text.index(report.HEADING)
    assert "| page /compare/ (the leased comparison) | 5.0 / 9.0 (200) | PASS |" in text
    assert comparisons.parse_args(["--quick"]).quick
