"""The projects bench's data, generated from one seed: 20 projects, each with a rubric of its own,
members, turns and ratings, and each rating's answers as a person might give them.

Pure Python, no database: `plan` says what each project holds, `ProjectData` draws its turns
and ratings chunk by chunk (each project's from a random stream of its own, so that a chunk
size changes nothing), and `answers_for` the answers a person gives a turn on a rubric.
"""

from __future__ import annotations

import random
import time
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bench.annotation.data import (
    COMMENTS,
    COMPONENTS,
    DAY,
    DIMENSIONS,
    MODELS,
    SPAN_DAYS,
    turn_text,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

# Each rubric kind in use somewhere; None is the default rubric (the five dimensions, numeric).
RUBRICS: dict[str, dict[str, Any] | None] = {
    "dimensions": None,
    "likert": {
        "questions": [
            {"key": "quality", "kind": "numeric", "label": "Quality", "min": 1, "max": 5,
             "step": 1, "required": True, "hotkeys": ["1"]},
            {"key": "factual", "kind": "boolean", "label": "Factual", "required": True},
            {"key": "notes", "kind": "text", "label": "Notes", "max_length": 500},
        ]
    },
    "graded": {
        "questions": [
            {"key": "overall", "kind": "categorical", "label": "Overall", "ordered": True,
             "options": ["bad", "poor", "fair", "good", "great"], "required": True},
            {"key": "issues", "kind": "categorical", "label": "Issues", "multiple": True,
             "options": ["verbose", "rude", "off_topic", "unsafe", "wrong_tool"]},
            {"key": "marks", "kind": "spans", "label": "Marks",
             "options": ["error", "hallucination"]},
        ]
    },
    "mixed": {
        "questions": [
            {"key": "correctness", "kind": "numeric", "label": "Correctness", "min": -1,
             "max": 1, "step": 0.25, "required": True},
            {"key": "helpfulness", "kind": "numeric", "label": "Helpfulness", "min": -1,
             "max": 1},
            {"key": "safe", "kind": "boolean", "label": "Safe"},
            {"key": "evidence", "kind": "spans", "label": "Evidence", "options": ["source"]},
        ]
    },
    "triage": {
        "questions": [
            {"key": "acceptable", "kind": "boolean", "label": "Acceptable", "required": True},
            {"key": "category", "kind": "categorical", "label": "Category",
             "options": ["billing", "travel", "code", "other"]},
            {"key": "why", "kind": "text", "label": "Why"},
        ]
    },
}  # fmt: skip
ANSWERED = 0.85  # the share of a rating's optional questions answered
COMMENTED = 0.10
CORRECTED = 0.04


@dataclass(frozen=True)
class ProjectPlan:
    """What one project holds: its rubric, people, ratings and how many each turn needs."""

    index: int
    slug: str
    rubric: str  # a key of RUBRICS
    ratings: int
    ratings_per_turn: int
    blind: bool
    annotators: tuple[str, ...]  # most active first
    reviewer: str
    manager: str

    @property
    def questions(self) -> list[dict[str, Any]] | None:
        rubric = RUBRICS[self.rubric]
        return None if rubric is None else rubric["questions"]


def plan(projects: int, ratings: int, seed: int, people: int = 80) -> list[ProjectPlan]:
    """`projects` projects sharing `ratings` ratings by Zipf's law (the largest about 28% of 1M
    over 20, the smallest 1.4%), each with 4 to 16 annotators drawn from one pool of `people`
    (so that people sit in several projects), a reviewer and a manager of its own."""
    rng = random.Random(seed)
    weights = [1 / (k + 1) for k in range(projects)]
    shares = [int(ratings * w / sum(weights)) for w in weights]
    shares[0] += ratings - sum(shares)
    pool = [f"annotator-{i:03d}" for i in range(people)]
    kinds = list(RUBRICS)
    out = []
    for k in range(projects):
        team = rng.sample(pool, rng.randint(4, 16))
        out.append(
            ProjectPlan(
                index=k,
                slug=f"team-{k + 1:02d}",
                rubric=kinds[k % len(kinds)],
                ratings=shares[k],
                ratings_per_turn=1 + k % 3,
                blind=k % 4 != 3,
                annotators=tuple(team),
                reviewer=f"reviewer-{k + 1:02d}",
                manager=f"manager-{k + 1:02d}",
            )
        )
    return out


@dataclass
class TurnDraw:
    """A turn to store and the people who rate it, with its own truth (what they perceive)."""

    fields: dict[str, Any]
    raters: list[str]
    truth: float  # 0..1, the quality every rater sees through their own noise
    flavour: int  # the option people lean to on unordered questions


@dataclass
class ProjectData:
    """A project's turns and ratings drawn chunk by chunk, reproducibly (its own stream)."""

    spec: ProjectPlan
    seed: int
    rng: random.Random = field(init=False)
    start: float = field(init=False)
    made: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed * 1000 + self.spec.index)
        self.start = time.time() - SPAN_DAYS * DAY

    def turns(self, chunk: int) -> Iterator[list[TurnDraw]]:
        """Turns until the project's ratings are given out: most have every rating they need,
        one in four fewer (0 to needed - 1), so that each queue has open turns."""
        spec, rng = self.spec, self.rng
        activity = [1 / (k + 1) for k in range(len(spec.annotators))]
        expected = spec.ratings / max(1.0, spec.ratings_per_turn * 0.85) + 1
        left = spec.ratings
        batch: list[TurnDraw] = []
        while left > 0:
            n = self.made
            self.made += 1
            need = min(spec.ratings_per_turn, len(spec.annotators))
            count = need if rng.random() < 0.75 else rng.randrange(need)
            count = min(count, left)
            raters: set[str] = set()
            while len(raters) < count:
                raters.add(rng.choices(spec.annotators, activity)[0])
            left -= count
            prompt, response = turn_text(rng, n)
            created = self.start + min(n / expected, 1.0) * SPAN_DAYS * DAY * 0.95
            batch.append(
                TurnDraw(
                    fields={
                        "correlation_id": f"{spec.slug}-turn-{n:07d}-{rng.getrandbits(40):010x}",
                        "session_id": f"session-{n // 10:06d}",
                        "component_name": rng.choice(COMPONENTS[:12]),
                        "prompt": prompt,
                        "response": response,
                        "model": rng.choice(MODELS),
                        "environment": None,
                        "version": "1.0",
                        "submitted_by": f"token:{spec.slug}-agent",
                        "created": created,
                        "ratings_needed": max(0, spec.ratings_per_turn - count),
                        "priority": 0,
                    },
                    raters=sorted(raters),
                    truth=rng.random(),
                    flavour=rng.randrange(8),
                )
            )
            if len(batch) == chunk:
                yield batch
                batch = []
        if batch:
            yield batch

    def rated_at(self, turn: TurnDraw) -> float:
        """When a rating of `turn` was given: within a few days of the turn, never ahead of now."""
        created = float(turn.fields["created"])
        return min(created + self.rng.expovariate(1 / (2 * DAY)), time.time())

    def remarks(self, response: str) -> tuple[str, str, tuple[int, int] | None]:
        """(comment, correction, correction_span) of one rating."""
        rng = self.rng
        comment = rng.choice(COMMENTS[3:]) if rng.random() < COMMENTED else ""
        if rng.random() >= CORRECTED:
            return comment, "", None
        a = rng.randrange(len(response))
        span = (a, min(len(response), a + rng.randint(5, 60))) if rng.random() < 0.7 else None
        return comment, "Say that the second figure could not be confirmed.", span


def answers_for(
    questions: list[dict[str, Any]] | None,
    turn: TurnDraw,
    person: str,
    rng: random.Random,
) -> dict[str, Any]:
    """A person's answers to a rubric (`None`: the default one) on a turn, as sent: the truth
    seen through the person's own bias and noise; the first question always answered, the
    required ones too, the others most of the time. The default rubric: one to three of the
    five dimensions, as the rating page rates one or several."""
    seen = random.Random(f"{person}").gauss(0, 0.08)  # a person's bias, the same everywhere
    noise = 0.05 + (zlib.crc32(person.encode()) % 7) / 40

    def perceived() -> float:
        return min(1.0, max(0.0, turn.truth + seen + rng.gauss(0, noise)))

    if questions is None:
        chosen = rng.sample(DIMENSIONS, rng.choice((1, 1, 2, 3)))
        return {key: round(perceived() * 2 - 1, 2) for key in chosen}
    answers: dict[str, Any] = {}
    for place, question in enumerate(questions):
        if place and not question.get("required") and rng.random() > ANSWERED:
            continue
        value = _answer(question, turn, perceived, rng)
        if value is not None:
            answers[question["key"]] = value
    return answers


def _answer(question: dict[str, Any], turn: TurnDraw, perceived: Any, rng: random.Random) -> Any:
    kind = question["kind"]
    if kind == "numeric":
        low, high, step = question["min"], question["max"], question.get("step")
        value = low + (high - low) * perceived()
        return low + step * round((value - low) / step) if step else round(value, 3)
    if kind == "boolean":
        return bool(perceived() > 0.5)
    if kind == "text":
        return "Reads well." if rng.random() < 0.3 else None
    options = question["options"]
    if kind == "categorical" and question.get("ordered"):
        return options[min(len(options) - 1, int(perceived() * len(options)))]
    if kind == "categorical" and question.get("multiple"):
        leaning = {options[turn.flavour % len(options)]}
        return [o for o in options if (o in leaning) == (rng.random() < 0.8)]
    if kind == "categorical":
        return options[turn.flavour % len(options) if rng.random() < 0.7 else rng.randrange(len(options))]  # fmt: skip
    if kind == "spans":
        return _spans(options, turn, rng)
    raise ValueError(f"no answers drawn for a {kind} question")


def _spans(options: list[str], turn: TurnDraw, rng: random.Random) -> list[dict[str, Any]]:
    """Zero to two spans near the turn's own marks (people agree roughly on where)."""
    length = len(turn.fields["response"])
    out = []
    for k in range(turn.flavour % 3):
        centre = (turn.flavour * 37 + k * 101) % max(1, length - 20)
        start = max(0, centre + rng.randint(-4, 4))
        end = min(length, start + 12 + rng.randint(-3, 6))
        if start < end:
            out.append({"start": start, "end": end, "label": options[(turn.flavour + k) % len(options)]})  # fmt: skip
    return out
