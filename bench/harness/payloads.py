"""Realistic request bodies, all built (and serialized with orjson) before any clock starts."""

from __future__ import annotations

import random
import time
import uuid
from typing import Any

import orjson

COMPONENTS = [f"component-{i:02d}" for i in range(50)]
POLARITIES = ("positive", "negative", "neutral")
COMMENTS = (
    "Missed the edge case in step two.",
    "Clear and to the point.",
    "Sound plan, wrong selector.",
    "Edited the wrong file.",
    "Helpful but a little curt.",
)
PAGES = ("search", "results", "product", "cart", "checkout")


def feedback_item(rng: random.Random, seq: int, run: int) -> dict[str, Any]:
    """One feedback of about 220 bytes of JSON, as an automated judge would send it."""
    polarity = rng.choice(POLARITIES)
    score = {"positive": 1, "negative": -1, "neutral": 0}[polarity] * round(rng.random(), 3)
    return {
        # Time-ordered ids, as the spec's default `b_{ns}` (docs/learning-capability-spec.txt).
        "feedback_id": f"b_{run + seq}",
        "correlation_id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        "polarity": polarity,
        "score": score,
        "confidence": round(0.5 + rng.random() / 2, 3),
        "component_name": rng.choice(COMPONENTS),
        "comment": rng.choice(COMMENTS),
    }


def experience_item(rng: random.Random) -> dict[str, Any]:
    """One experience tuple with small states, a timed component call and its outcome."""
    step = rng.randrange(50)
    page = rng.choice(PAGES)
    return {
        # The spec's default experience_id is a random UUIDv4.
        "experience_id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        "state": {"page": page, "step": step, "items": rng.randrange(10)},
        "action": {
            "component_name": rng.choice(COMPONENTS),
            "input": {"query": f"q{rng.randrange(1000)}"},
            "duration_ms": round(rng.lognormvariate(4.0, 0.8), 2),
            "success": rng.random() > 0.1,
        },
        "reward": round(rng.uniform(-1, 1), 3),
        "next_state": {"page": rng.choice(PAGES), "step": step + 1, "items": rng.randrange(10)},
        "done": rng.random() < 0.05,
        "episode_id": f"ep-{rng.randrange(10**6):06d}",
        "step": step,
    }


def envelope(kind: str, items: list[dict[str, Any]], req_id: str) -> bytes:
    field = {"feedback": "feedbacks", "experience": "experiences"}[kind]
    return orjson.dumps({"type": f"learn/{kind}/req", "id": req_id, field: items})


def batches(kind: str, count: int, size: int, seed: int = 1) -> list[tuple[list[str], bytes]]:
    """`count` request bodies of `size` items each, with the ids of their items."""
    rng = random.Random(seed)
    run = time.time_ns()
    out = []
    seq = 0
    for b in range(count):
        items = []
        for _ in range(size):
            if kind == "feedback":
                items.append(feedback_item(rng, seq, run))
            else:
                items.append(experience_item(rng))
            seq += 1
        id_field = "feedback_id" if kind == "feedback" else "experience_id"
        out.append(([i[id_field] for i in items], envelope(kind, items, f"bench-{kind}-{b}")))
    return out


def stats_body(component: str = "", req_id: str = "s") -> bytes:
    return orjson.dumps({"type": "learn/stats/req", "id": req_id, "component_name": component})
