"""The workspace's data: realistic turns and feedback rows, generated with one seed."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

import orjson

BATCH = 1000
COMPONENTS = [f"component-{i:02d}" for i in range(50)]
ANNOTATORS = [f"annotator-{i:02d}" for i in range(12)]
DIMENSIONS = ("helpfulness", "correctness", "safety", "tone", "plan_quality")
MODELS = ("agent-v1", "agent-v2", "agent-v3")
DAY = 86_400.0
SPAN_DAYS = 90
SUBJECTS = ("the invoice", "a flight to Lisbon", "the failing test", "this diff", "the refund")
VERBS = ("Summarise", "Find", "Explain", "Fix", "Compare", "Draft a reply about")
CLAUSES = (
    "I looked at the three most recent records and the totals match.",
    "The tool returned an error on the second call, so I retried with a smaller page.",
    "Here is what changed between the two versions, line by line.",
    "According to the policy document, refunds over 30 days need a manager's approval.",
    "The cheapest option leaves at 07:40 and arrives at 10:05, with one stop.",
    "I could not confirm the second figure; the source page no longer lists it.",
    "The function returns early when the list is empty, which hides the real bug.",
)
COMMENTS = ("", "", "", "Too long.", "Missed the edge case.", "Good.", "Wrong figure.")


def turn_text(rng: random.Random, i: int) -> tuple[str, str]:
    prompt = f"{rng.choice(VERBS)} {rng.choice(SUBJECTS)} (request {i})."
    response = " ".join(rng.choice(CLAUSES) for _ in range(rng.randint(2, 6)))
    return prompt, response


def polarity_for(score: float, rng: random.Random) -> str:
    if rng.random() < 0.10:
        return "corrective"
    return "positive" if score > 0.2 else "negative" if score < -0.2 else "neutral"


@dataclass
class Built:
    turns: list[dict[str, Any]] = field(default_factory=list)
    feedback: list[dict[str, Any]] = field(default_factory=list)


def generate(turns: int, feedbacks: int, seed: int = 7) -> Built:
    """`turns` turns and `feedbacks` feedback rows: 20% human ratings (2.4 people a rated turn,
    on average, on the turn's dimension), the rest `self` (65%) and `env` (35%) judgements."""
    rng = random.Random(seed)
    start = time.time() - SPAN_DAYS * DAY
    out = Built()
    weights = [1 / (k + 1) for k in range(len(COMPONENTS))]
    components = rng.choices(COMPONENTS, weights, k=turns)
    for i in range(turns):
        prompt, response = turn_text(rng, i)
        out.turns.append(
            {
                "correlation_id": f"turn-{i:07d}-{rng.getrandbits(48):012x}",
                "session_id": f"session-{i // 10:06d}",
                "component_name": components[i],
                "prompt": prompt,
                "response": response,
                "model": rng.choice(MODELS),
                "environment": None,
                "version": "1.0",
                "submitted_by": "token:bench-agent",
                "created": start + i * (SPAN_DAYS * DAY / turns),
            }
        )
    human_rows = feedbacks // 5
    bias = {a: rng.gauss(0, 0.1) for a in ANNOTATORS}
    noise = {a: rng.uniform(0.1, 0.35) for a in ANNOTATORS}
    activity = [1 / (k + 2) for k in range(len(ANNOTATORS))]
    rows: list[dict[str, Any]] = []
    while len(rows) < human_rows:
        turn = out.turns[rng.randrange(turns)]
        raters = rng.choices((1, 2, 3, 4), (0.15, 0.40, 0.35, 0.10))[0]
        people: set[str] = set()
        while len(people) < raters:
            people.add(rng.choices(ANNOTATORS, activity)[0])
        dimension = rng.choices(DIMENSIONS, (0.35, 0.30, 0.10, 0.15, 0.10))[0]
        truth = rng.uniform(-1, 1)
        for person in sorted(people):
            score = max(-1.0, min(1.0, truth + bias[person] + rng.gauss(0, noise[person])))
            rows.append(_feedback(rng, turn, round(score * 20) / 20, dimension, "human", person))
    rows = rows[:human_rows]
    for _ in range(feedbacks - len(rows)):
        turn = out.turns[rng.randrange(turns)]
        source = "self" if rng.random() < 0.65 else "env"
        score = round(rng.uniform(-1, 1), 3)
        dimension = rng.choices(DIMENSIONS, (0.6, 0.25, 0.05, 0.05, 0.05))[0]
        rows.append(_feedback(rng, turn, score, dimension, source, ""))
    rng.shuffle(rows)
    now = time.time()
    for n, row in enumerate(rows):
        row["feedback_id"] = f"b_{n:08d}_{rng.getrandbits(32):08x}"
        row["ts"] = start + n * (SPAN_DAYS * DAY / len(rows))
        row["received"] = min(row["ts"] + 1, now)
        row["content_hash"] = f"{rng.getrandbits(128):032x}"
    out.feedback = rows
    return out


def _feedback(
    rng: random.Random,
    turn: dict[str, Any],
    score: float,
    dimension: str,
    source: str,
    person: str,
) -> dict[str, Any]:
    polarity = polarity_for(score, rng)
    correction = ""
    span: tuple[int | None, int | None] = (None, None)
    if polarity == "corrective":
        correction = "Say that the second figure could not be confirmed."
        if rng.random() < 0.7:
            length = len(turn["response"])
            a = rng.randrange(length)
            span = (a, min(length, a + rng.randint(5, 60)))
    # The rating page stores the rated turn with each human rating; agents send it now and then.
    rated = source == "human" or rng.random() < 0.1
    rated_turn = (
        orjson.dumps(
            {"prompt": turn["prompt"], "response": turn["response"], "model": turn["model"]}
        ).decode()
        if rated
        else None
    )
    return {
        "correlation_id": turn["correlation_id"],
        "session_id": turn["session_id"],
        "component_name": turn["component_name"],
        "rated_turn": rated_turn,
        "polarity": polarity,
        "score": score,
        "dimension": dimension,
        "confidence": round(rng.uniform(0.3, 1.0), 2),
        "comment": rng.choice(COMMENTS),
        "correction": correction,
        "span_start": span[0],
        "span_end": span[1],
        "source": source,
        "annotator_id": person,
        "submitted_by": f"user:{person}" if person else f"token:bench-{source}",
    }


def rated_turns(n: int, seed: int = 11) -> list[dict[str, Any]]:
    """n turns with one human rating each, the same for both sides."""
    built = generate(n, 0, seed)
    rng = random.Random(seed)
    out = []
    for turn in built.turns:
        score = round(rng.uniform(-1, 1), 2)
        polarity = polarity_for(score, rng)
        out.append(
            {
                "turn": turn,
                "rating": {
                    "polarity": polarity,
                    "score": score,
                    "dimension": rng.choice(DIMENSIONS),
                    "confidence": round(rng.uniform(0.5, 1), 2),
                    "comment": rng.choice(COMMENTS),
                    "correction": "Say so plainly." if polarity == "corrective" else "",
                },
            }
        )
    return out
