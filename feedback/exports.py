"""Training data from stored feedback, in the derivation shapes of the spec (docs/learning-capability-spec.txt)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from feedback.models import Feedback, Turn
from learnportal.protocol import Feedback as FeedbackItem
from learnportal.protocol import FeedbackDimension, FeedbackPolarity, FeedbackSource, RatedTurn

if TYPE_CHECKING:
    from collections.abc import Iterator


def _turn_for(row: Feedback, turns: dict[str, RatedTurn]) -> RatedTurn | None:
    if row.rated_turn:
        return RatedTurn.model_validate_json(row.rated_turn)
    return turns.get(row.correlation_id)


def feedback_items(*, corrective_only: bool = False, chunk: int = 2000) -> Iterator[FeedbackItem]:
    """Stored feedback as protocol objects, each with its rated turn (stored or queued)."""
    rows = Feedback.objects.order_by("id")
    if corrective_only:
        rows = rows.filter(polarity="corrective")
    last_id = 0
    while True:
        page = list(rows.filter(id__gt=last_id)[:chunk])
        if not page:
            return
        last_id = page[-1].id
        keys = {r.correlation_id for r in page if not r.rated_turn and r.correlation_id}
        turns = {
            t.correlation_id: RatedTurn(
                prompt=t.prompt, response=t.response, model=t.model, version=t.version
            )
            for t in Turn.objects.filter(correlation_id__in=keys)
        }
        for row in page:
            # The host stores a span's two ends together, or neither.
            start, end = row.span_start, row.span_end
            span = (start, end) if start is not None and end is not None else None
            yield FeedbackItem.model_construct(
                feedback_id=row.feedback_id,
                correlation_id=row.correlation_id,
                session_id=row.session_id,
                rated_turn=_turn_for(row, turns),
                polarity=FeedbackPolarity(row.polarity),
                score=row.score,
                dimension=FeedbackDimension(row.dimension),
                confidence=row.confidence,
                comment=row.comment,
                correction=row.correction,
                correction_span=span,
                source=FeedbackSource(row.source),
                annotator_id=row.annotator_id,
                ts=row.ts,
                component_name=row.component_name,
            )


def preference_pairs() -> Iterator[dict[str, Any]]:
    for item in feedback_items(corrective_only=True):
        if (pair := item.to_preference_pair()) is not None:
            yield pair


def reward_samples() -> Iterator[dict[str, Any]]:
    for item in feedback_items():
        if (sample := item.to_reward_sample()) is not None:
            yield sample


def write_jsonl(records: Iterator[dict[str, Any]], stream: Any) -> int:
    count = 0
    for record in records:
        stream.write(orjson.dumps(record) + b"\n")
        count += 1
    return count
