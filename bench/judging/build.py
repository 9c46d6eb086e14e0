"""The comparisons bench's database, inside the app's process: the project and its people
through the product's services (bench/teams' `teams_make`); comparisons, candidates, judgments
and skips in bulk, each judgment made by the judgment service's own pieces (the order its judge
is shown the candidates, the request model, the ranks), so that they are the rows it would
store, and each comparison's `judgments_needed` what the service keeps.

`child_build` writes a chunk of comparisons at a time (memory bounded by the chunk); `verify`
checks the result against the services themselves.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import orjson

from bench.annotation.build import analyze, bulk_load
from bench.annotation.data import DAY
from bench.harness.databases import BenchError
from bench.harness.report import log
from bench.judging.data import (
    JUDGES,
    NEEDED,
    SPAN_S,
    ComparisonDraw,
    draw,
    draws,
    judgment_body,
    plan_of,
)
from bench.teams.build import teams_make

if TYPE_CHECKING:
    from bench.teams.build import Team

SUBMITTER = "bench-agent"
# The fields of a judgment that do not depend on when and under which id it was stored.
JUDGED_FIELDS = (
    "annotator",
    "shown",
    "ranks",
    "preference",
    "rationale",
    "answers",
    "rubric_version",
)


def judgment_row(
    project: int,
    comparison: int,
    candidates: list[str],
    judge: str,
    body: dict[str, Any],
    *,
    judgment_id: str,
    ts: float,
    rubric_version: int,
) -> dict[str, Any]:
    """The Judgment row that `judgment_record` stores for this body (but its id and time, given
    here), by the service's own pieces; its JSON columns as the text the database keeps."""
    from feedback.comparisons.judgments import JudgmentRequest, ranks_of
    from feedback.comparisons.queue import shown_order

    shown = shown_order(comparison, candidates, judge)
    request = JudgmentRequest.model_validate(body)
    return {
        "judgment_id": judgment_id,
        "project_id": project,
        "comparison_id": comparison,
        "annotator": judge,
        "shown": orjson.dumps(shown).decode(),
        "ranks": orjson.dumps(ranks_of(request, shown)).decode(),
        "preference": request.preference,
        "rationale": request.rationale,
        "answers": orjson.dumps({}).decode(),  # the bench's rubric asks nothing of candidates
        "rubric_version": rubric_version,
        "ts": ts,
    }


def _comparisons_load(project: int, chunk: list[ComparisonDraw], start: float) -> list[int]:
    """The chunk's comparisons written; their ids, in the chunk's order."""
    from feedback.comparisons.models import Comparison

    rows = [
        {
            "project_id": project,
            "comparison_id": c.comparison_id,
            "prompt": c.prompt,
            "submitted_by": SUBMITTER,
            "created": start + c.sent_s,
            "judgments_needed": c.judgments_needed,
            "priority": c.priority,
        }
        for c in chunk
    ]
    bulk_load(Comparison, rows)
    stored = Comparison.objects.filter(
        project_id=project, comparison_id__in=[c.comparison_id for c in chunk]
    )
    ids = dict(stored.values_list("comparison_id", "id"))
    if len(ids) != len(chunk):
        raise BenchError(f"wrote {len(chunk)} comparisons, read back {len(ids)}")
    return [ids[c.comparison_id] for c in chunk]


def _chunk_load(project: int, chunk: list[ComparisonDraw], start: float) -> dict[str, int]:
    from feedback.comparisons.models import Candidate, ComparisonSkip, Judgment
    from feedback.comparisons.queue import shown_order
    from feedback.services.rubrics import rubric_current

    version = rubric_current(project).version
    candidates: list[dict[str, Any]] = []
    judgments: list[dict[str, Any]] = []
    skips: list[dict[str, Any]] = []
    for comparison, pk in zip(chunk, _comparisons_load(project, chunk, start), strict=True):
        ids = [c.candidate_id for c in comparison.candidates]
        for position, c in enumerate(comparison.candidates):
            candidates.append(
                {"comparison_id": pk, "candidate_id": c.candidate_id, "position": position,
                 "response": c.response, "component_name": c.component_name, "model": c.model}
            )  # fmt: skip
        for judge in comparison.judges:
            body = judgment_body(comparison, shown_order(pk, ids, judge))
            judgments.append(
                judgment_row(
                    project,
                    pk,
                    ids,
                    judge,
                    body,
                    judgment_id=f"{comparison.rng.getrandbits(128):032x}",
                    ts=start + comparison.judged_at(),
                    rubric_version=version,
                )
            )
        if comparison.skipped_by:
            skips.append(
                {"comparison_id": pk, "username": comparison.skipped_by,
                 "created": start + comparison.judged_at()}
            )  # fmt: skip
    bulk_load(Candidate, candidates)
    bulk_load(Judgment, judgments)
    bulk_load(ComparisonSkip, skips)
    return {
        "comparisons": len(chunk),
        "of_three": sum(len(c.candidates) == 3 for c in chunk),
        "candidates": len(candidates),
        "judgments": len(judgments),
        "skips": len(skips),
    }


def child_build(*, comparisons: int, seed: int, chunk: int = 5000) -> dict[str, Any]:
    """The project, its people and every comparison; then fresh statistics, and the checks."""
    t0 = time.perf_counter()
    (team,) = teams_make([plan_of()])
    start = time.time() - SPAN_S - 3 * DAY  # the last judgments two days after their sending
    counts: dict[str, int] = {}
    for batch in draws(comparisons, seed, chunk):
        for key, n in _chunk_load(team.project.pk, batch, start).items():
            counts[key] = counts.get(key, 0) + n
        if counts["comparisons"] % 20_000 < chunk:
            log(f"comparisons: {counts['comparisons']:,} of {comparisons:,} written")
    inserted = time.perf_counter() - t0
    analyze()
    return counts | {
        "slug": team.plan.slug,
        "judges": len(team.plan.annotators),
        "insert_s": inserted,
        "rows_s": (counts["comparisons"] + counts["candidates"] + counts["judgments"]) / inserted,
        "verified": verify(team, comparisons, seed),
    }


def verify(team: Team, comparisons: int, seed: int, sample: int = 40) -> dict[str, Any]:
    """The built data checked through the product: every comparison's `judgments_needed` as the
    queue service works it out again; a sample drawn again from the seed, stored as drawn;
    and a preference of two and a ranking of three given through `judgment_record` (rolled
    back) stored as the rows `judgment_row` makes of the same bodies."""
    from django.db.models import Count

    from feedback.comparisons.models import Comparison

    pk = team.project.pk
    stages = dict(
        Comparison.objects.filter(project_id=pk)
        .order_by()
        .values_list("judgments_needed")
        .annotate(n=Count("id"))
    )
    if sum(stages.values()) != comparisons:
        raise BenchError(f"{sum(stages.values())} comparisons stored, {comparisons} planned")
    return {
        "needed": _needed_as_the_service_counts(pk),
        "stages": {str(needed): n for needed, n in sorted(stages.items())},
        "drawn_again": _stored_as_drawn(pk, comparisons, seed, sample),
        "by_service": [_judged_as_the_service_judges(team, size) for size in (2, 3)],
    }


def _needed_as_the_service_counts(project: int) -> int:
    from django.db import transaction

    from feedback.comparisons.models import Comparison
    from feedback.comparisons.queue import comparisons_recount

    stored = Comparison.objects.filter(project_id=project).values_list("id", "judgments_needed")
    with transaction.atomic():
        before = dict(stored)
        comparisons_recount(project)
        after = dict(stored)
        transaction.set_rollback(True)
    wrong = [pk for pk, needed in before.items() if after[pk] != needed]
    if wrong:
        raise BenchError(f"comparisons {wrong[:5]} need judgments the service disowns")
    return len(before)


def _stored_as_drawn(project: int, comparisons: int, seed: int, sample: int) -> int:
    """Comparisons drawn again, one by one from their own streams: stored as drawn (the
    candidates in the order sent, the judges)."""
    import random

    from feedback.comparisons.models import Candidate, Comparison, Judgment

    rng = random.Random(seed)
    for index in rng.sample(range(comparisons), min(sample, comparisons)):
        drawn = draw(index, comparisons, seed)
        stored = Comparison.objects.get(project_id=project, comparison_id=drawn.comparison_id)
        candidates = Candidate.objects.filter(comparison=stored).order_by("position")
        judges = Judgment.objects.filter(comparison=stored).values_list("annotator", flat=True)
        same = (
            list(candidates.values_list("candidate_id", "response", "component_name"))
            == [(c.candidate_id, c.response, c.component_name) for c in drawn.candidates]
            and sorted(judges) == sorted(drawn.judges)
            and stored.judgments_needed == drawn.judgments_needed
        )
        if not same:
            raise BenchError(f"comparison {drawn.comparison_id} is not stored as drawn")
    return min(sample, comparisons)


def _judged_as_the_service_judges(team: Team, size: int) -> str:
    from django.db import transaction
    from django.db.models import Count

    from feedback.comparisons.judgments import JudgmentRequest, judgment_record
    from feedback.comparisons.models import Candidate, Comparison, Judgment
    from feedback.services.rubrics import rubric_current

    pk, person = team.project.pk, JUDGES[-1]
    untouched = Comparison.objects.filter(project_id=pk, judgments_needed=NEEDED)
    found = untouched.alias(k=Count("candidates")).filter(k=size).order_by("id").first()
    if found is None:
        raise BenchError(f"no comparison of {size} left that nobody judged")
    sent = Candidate.objects.filter(comparison=found).order_by("position")
    ids = list(sent.values_list("candidate_id", flat=True))
    kind = "preference" if size == 2 else "ranking"
    body = {kind: 1 if size == 2 else ids[::-1], "rationale": "Clearer."}
    expected = judgment_row(
        pk,
        found.pk,
        ids,
        person,
        body,
        judgment_id="x",
        ts=0.0,
        rubric_version=rubric_current(pk).version,
    )
    with transaction.atomic():
        judged = judgment_record(
            principal=team.person(person),
            comparison=found.pk,
            judgment=JudgmentRequest.model_validate(body),
        )
        got = Judgment.objects.filter(judgment_id=judged.judgment_id).values(*JUDGED_FIELDS).get()
        needed = Comparison.objects.values_list("judgments_needed", flat=True).get(pk=found.pk)
        transaction.set_rollback(True)
    same = {
        k: orjson.loads(v) if k in ("shown", "ranks", "answers") else v for k, v in expected.items()
    }
    same = {k: same[k] for k in JUDGED_FIELDS}
    if got != same or needed != NEEDED - 1:
        raise BenchError(f"the service stored {got} (needing {needed}), the bench {same}")
    return f"a {kind} of {size} through `judgment_record` stored as the bench's row"
