"""The comparisons bench's data, drawn from one seed: one project, its judges, and comparisons of
two candidates (some of three), the oldest judged by all the people they need, the next by one,
the newest by nobody yet.

Pure Python, no database. Each comparison is drawn from a random stream of its own (`draw`), so
that a chunk size changes nothing; its judgments are drawn from the same stream once the order
each judge is shown the candidates is known (it depends on the comparison's id, which the
database gives): `judgment_body` is what the judge would send.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bench.annotation.data import COMMENTS, COMPONENTS, DAY, MODELS, turn_text
from bench.teams.data import ProjectPlan

if TYPE_CHECKING:
    from collections.abc import Iterator

SLUG = "comparisons"
JUDGES = tuple(f"judge-{i:02d}" for i in range(1, 7))  # most active first
ACTIVITY = (0.30, 0.22, 0.17, 0.13, 0.10, 0.08)  # each one's share of the judgments
NEEDED = 2  # distinct judgments each comparison needs: the project's ratings per turn
THREE = 0.10  # comparisons of three candidates (the rest of two)
JUDGED = 0.60  # the oldest: every judgment they need
BEGUN = 0.10  # the next: one of the two
SKIPPED = 0.01  # of the others, skipped by one judge
PRIORITISED = 0.05  # sent with a priority above 0 (leased first)
RATIONALE = 0.10  # judgments with a rationale
SPAN_S = 30 * DAY  # the comparisons were sent over a month
# The components compared, each a strength the judges perceive through their own noise; the
# candidate shown first looks a little better (the position bias the leaderboard measures).
COMPARED = COMPONENTS[:8]
STRENGTH = {name: -1.0 + 2.0 * i / (len(COMPARED) - 1) for i, name in enumerate(COMPARED)}
MODEL_OF = {name: MODELS[i % len(MODELS)] for i, name in enumerate(COMPARED)}
NOISE = 0.6
FIRST_SHOWN = 0.15


def plan_of() -> ProjectPlan:
    """The project, as bench/teams makes projects (its default rubric: comparisons use none)."""
    return ProjectPlan(
        index=0,
        slug=SLUG,
        rubric="dimensions",
        ratings=0,
        ratings_per_turn=NEEDED,
        blind=True,
        annotators=JUDGES,
        reviewer="comparisons-reviewer",
        manager="comparisons-manager",
    )


@dataclass(frozen=True)
class CandidateDraw:
    candidate_id: str
    response: str
    component_name: str

    @property
    def model(self) -> str:
        return MODEL_OF[self.component_name]


@dataclass
class ComparisonDraw:
    """A comparison to store, who judged it and who skipped it; `rng` draws its judgments."""

    index: int
    comparison_id: str
    prompt: str
    priority: int
    sent_s: float  # seconds after the first comparison was sent
    candidates: list[CandidateDraw]  # in the order sent
    judges: list[str]  # distinct, each a judgment
    skipped_by: str  # one judge (not of it) who passed on it, or ""
    rng: random.Random

    @property
    def judgments_needed(self) -> int:
        return max(0, NEEDED - len(self.judges))

    def judged_at(self) -> float:
        """Seconds after the first comparison was sent: some minutes to two days after it."""
        return self.sent_s + self.rng.uniform(300.0, 2 * DAY)


def _stage(index: int, comparisons: int) -> int:
    """How many judgments it has: the oldest all, the next one, the newest none."""
    if index < JUDGED * comparisons:
        return NEEDED
    return 1 if index < (JUDGED + BEGUN) * comparisons else 0


def draw(index: int, comparisons: int, seed: int) -> ComparisonDraw:
    """The `index`th of `comparisons`, from its own stream."""
    rng = random.Random((seed << 32) + index)
    prompt, _ = turn_text(rng, index)
    size = 3 if rng.random() < THREE else 2
    candidates = [
        CandidateDraw(f"{rng.getrandbits(128):032x}", turn_text(rng, index)[1], name)
        for name in rng.sample(COMPARED, size)
    ]
    priority = rng.randint(1, 5) if rng.random() < PRIORITISED else 0
    judges: list[str] = []
    while len(judges) < _stage(index, comparisons):
        judge = rng.choices(JUDGES, ACTIVITY)[0]
        if judge not in judges:
            judges.append(judge)
    others = [j for j in JUDGES if j not in judges]
    skipped_by = rng.choice(others) if len(judges) < NEEDED and rng.random() < SKIPPED else ""
    return ComparisonDraw(
        index=index,
        comparison_id=f"bench-{index:07d}",
        prompt=prompt,
        priority=priority,
        sent_s=SPAN_S * index / comparisons,
        candidates=candidates,
        judges=judges,
        skipped_by=skipped_by,
        rng=rng,
    )


def draws(comparisons: int, seed: int, chunk: int) -> Iterator[list[ComparisonDraw]]:
    """Every comparison, `chunk` at a time, oldest first."""
    for begin in range(0, comparisons, chunk):
        yield [draw(i, comparisons, seed) for i in range(begin, min(begin + chunk, comparisons))]


def judgment_body(comparison: ComparisonDraw, shown: list[str]) -> dict[str, Any]:
    """What a judge sends who was shown the candidates in this order (their ids): a preference
    of two, a ranking of three; each candidate perceived as its component's strength through
    the judge's noise, the first shown a little better."""
    rng = comparison.rng
    strength = {c.candidate_id: STRENGTH[c.component_name] for c in comparison.candidates}
    seen = [strength[c] + rng.gauss(0.0, NOISE) + (FIRST_SHOWN if i == 0 else 0.0)
            for i, c in enumerate(shown)]  # fmt: skip
    rationale = rng.choice(COMMENTS[3:]) if rng.random() < RATIONALE else ""
    if len(shown) == 2:
        better = seen[1] - seen[0]  # the second shown over the first
        preference = sum(better > edge for edge in (-1.0, -0.3, 0.3, 1.0)) - 2
        return {"preference": preference, "rationale": rationale}
    best_first = sorted(range(len(shown)), key=lambda i: -seen[i])
    return {"ranking": [shown[i] for i in best_first], "rationale": rationale}
