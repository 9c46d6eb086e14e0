"""Training data from stored feedback: the derivation shapes of the spec
(docs/learning-capability-spec.txt) and the export formats of docs/contract.md ("Exports"), one
module for `GET /api/exports/<format>.jsonl`, the explorer and the export commands.

Stored rows become protocol objects in one place (`as_items`), which the explorer's answers use
too. An export reads in keyset batches on `id`, so its memory stays flat however many rows match.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson
from django.db import connection
from pydantic import ValidationError

from feedback.answers import StoredFeedback, StoredRatedTurn
from feedback.models import Feedback, Turn, TurnStep, project_of
from feedback.rating_rows import RatedRow, rated_rows
from feedback.selectors.ratings import counted_ratings
from feedback.services.rubrics import rubric_current
from learnportal_protocol import Feedback as FeedbackItem
from learnportal_protocol import FeedbackDimension, FeedbackPolarity, FeedbackSource

if TYPE_CHECKING:
    from collections.abc import Callable, Generator, Iterator

    from django.db.models import QuerySet

BATCH = 2000
# SQLite's page cache while an export reads (KiB, as PRAGMA cache_size takes it when negative).
STREAMING_CACHE_KIB = 2048
Record = dict[str, Any]


TurnKey = tuple[int, str]  # a turn's project and correlation_id


StepKey = tuple[int, str, str]  # a step's turn's project and correlation_id, and its step_id


def stored_turn(row: Feedback) -> StoredRatedTurn | None:
    """The turn stored with the row; None when it stores none, or one that cannot be read (a
    row the service did not write), which then counts as none."""
    if not row.rated_turn:
        return None
    try:
        return StoredRatedTurn.model_validate_json(row.rated_turn)
    except ValidationError:
        return None


def _stored_turn(
    row: Feedback,
    stored: StoredRatedTurn | None,
    turns: dict[TurnKey, StoredRatedTurn],
    steps: dict[StepKey, StoredRatedTurn],
) -> StoredRatedTurn | None:
    if stored is not None:
        return stored
    if row.step_id:
        return steps.get((project_of(row), row.correlation_id, row.step_id))
    return turns.get((project_of(row), row.correlation_id))


def as_items(rows: list[Feedback]) -> list[StoredFeedback]:
    """Stored feedback as the spec's Feedback, each with its rated turn: stored with it, or
    else the queued turn of its project with its correlation_id, or for a feedback that names
    a step, that step's input and output as the prompt and response; in three queries at most
    whatever the number of rows."""
    kept = [stored_turn(r) for r in rows]
    bare = [r for r, turn in zip(rows, kept, strict=True) if turn is None and r.correlation_id]
    projects = {project_of(r) for r in rows}
    keys = {r.correlation_id for r in bare if not r.step_id}
    turns = (
        {
            (project_of(t), t.correlation_id): StoredRatedTurn(
                prompt=t.prompt, response=t.response, model=t.model, version=t.version
            )
            for t in Turn.objects.filter(project_id__in=projects, correlation_id__in=keys)
        }
        if keys
        else {}
    )
    steps = _stored_steps(projects, [r for r in bare if r.step_id])
    items = []
    for row, turn in zip(rows, kept, strict=True):
        # The host stores a span's two ends together, or neither.
        start, end = row.span_start, row.span_end
        span = (start, end) if start is not None and end is not None else None
        items.append(
            StoredFeedback.model_construct(
                feedback_id=row.feedback_id,
                correlation_id=row.correlation_id,
                session_id=row.session_id,
                rated_turn=_stored_turn(row, turn, turns, steps),
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
                step_id=row.step_id,
            )
        )
    return items


def _stored_steps(projects: set[int], rows: list[Feedback]) -> dict[StepKey, StoredRatedTurn]:
    """The steps these feedback rows name, as what they rate: the step's input and output."""
    if not rows:
        return {}
    found = TurnStep.objects.filter(
        turn__project_id__in=projects,
        turn__correlation_id__in={r.correlation_id for r in rows},
        step_id__in={r.step_id for r in rows},
    ).values_list(
        "turn__project_id",
        "turn__correlation_id",
        "step_id",
        "input",
        "output",
        "turn__model",
        "turn__version",
    )
    return {
        (project, key, step_id): StoredRatedTurn(
            prompt=prompt, response=output, model=model, version=version
        )
        for project, key, step_id, prompt, output, model, version in found
    }


def feedback_items(
    rows: QuerySet[Feedback], *, batch: int | None = None
) -> Generator[list[StoredFeedback], None, None]:
    """The rows (a project's counted feedback, feedback.selectors.explorer.feedback_matching)
    as protocol objects, oldest first, one list a batch: keyset batches on `id`, never OFFSET
    and never every row at once."""
    for page in _pages(rows, batch=batch):
        yield as_items(page)


def _pages(rows: QuerySet[Feedback], *, batch: int | None) -> Iterator[list[Feedback]]:
    rows = rows.order_by("id")
    size = batch or BATCH
    last_id = 0
    with _small_page_cache():
        while page := list(rows.filter(id__gt=last_id)[:size]):
            last_id = page[-1].id
            yield page


@contextmanager
def _small_page_cache() -> Iterator[None]:
    """On SQLite, a small page cache for the connection while it reads: an export reads each
    page once, and the connection's usual cache (64 MB, learnportal/settings.py) would only keep
    pages that are never read again, in the serving process's memory. Restored afterwards, also
    when the download is abandoned (the generator is closed)."""
    if connection.vendor != "sqlite":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size")
        (usual,) = cursor.fetchone()
        cursor.execute(f"PRAGMA cache_size=-{STREAMING_CACHE_KIB}")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA cache_size={int(usual)}")


# --- the formats --------------------------------------------------------------------------------
# What `chosen` means (docs/contract.md, "Exports"): in every format that has one, the corrected
# response. A correction with a span replaces that range of the response; without one it is the
# whole corrected response. Only `spec-preferences`, the spec's to_preference_pair() as written,
# puts the bare correction there.


def spliced(item: FeedbackItem) -> str:
    """The response with its correction put in: the span [start, end) replaced by the
    correction, or the correction alone when the feedback names no span."""
    assert item.rated_turn is not None
    if item.correction_span is None:
        return item.correction
    start, end = item.correction_span
    response = item.rated_turn.response
    return response[:start] + item.correction + response[end:]


def _one(record: Record | None) -> list[Record]:
    return [] if record is None else [record]


@dataclass(frozen=True)
class Exported:
    """One stored feedback as an export reads it: the protocol's object, the rating it was
    stored for (if a rating on a rubric made it), and its project's preference question (empty:
    the feedback's own score)."""

    item: FeedbackItem
    rated: RatedRow | None = None
    preference: str = ""

    @property
    def speaks(self) -> bool:
        """Whether this row gives the lines of a format that takes one a rating: any row not a
        rating's, and of a rating's rows its lead, once the project names a preference question."""
        return self.rated is None or not self.preference or self.rated.lead

    @property
    def preferred_score(self) -> float:
        """The score that says how good the response was: the answer to the preference question
        where the rating gave one, else the feedback's own."""
        if self.rated is None or not self.preference:
            return self.item.score
        return self.rated.scores.get(self.preference, self.item.score)


def _spec_preferences(row: Exported) -> list[Record]:
    return _one(row.item.to_preference_pair()) if row.speaks else []


def _preferences(row: Exported) -> list[Record]:
    """The spec's pair with `chosen` the corrected response; the bare correction kept beside."""
    item = row.item
    pair = item.to_preference_pair() if row.speaks else None
    if pair is None:
        return []
    return [{**pair, "chosen": spliced(item), "correction": item.correction}]


def _trl(row: Exported) -> list[Record]:
    item = row.item
    if not row.speaks or item.to_preference_pair() is None:
        return []
    assert item.rated_turn is not None
    return [
        {
            "prompt": item.rated_turn.prompt,
            "chosen": spliced(item),
            "rejected": item.rated_turn.response,
        }
    ]


def openai_dpo_line(pair: Record) -> Record:
    """A `trl` pair as OpenAI's preference fine-tuning reads one."""
    return {
        "input": {"messages": [{"role": "user", "content": pair["prompt"]}]},
        "preferred_output": [{"role": "assistant", "content": pair["chosen"]}],
        "non_preferred_output": [{"role": "assistant", "content": pair["rejected"]}],
    }


def _openai_dpo(row: Exported) -> list[Record]:
    return [openai_dpo_line(pair) for pair in _trl(row)]


def kto_label(polarity: FeedbackPolarity, score: float) -> bool | None:
    """Whether the rated response is a desirable completion: positive yes, negative no, and a
    neutral observation by the sign of its score (None, no line, at 0: it prefers nothing)."""
    if polarity is FeedbackPolarity.POSITIVE:
        return True
    if polarity is FeedbackPolarity.NEGATIVE:
        return False
    if polarity is FeedbackPolarity.NEUTRAL and score != 0:
        return score > 0
    return None


def _kto(row: Exported) -> list[Record]:
    """One line a rating; a corrective rating is two: the response as undesirable and the
    corrected response as desirable. A rating on a rubric whose project names a preference
    question is one line, labelled by the sign of that answer."""
    item = row.item
    turn = item.rated_turn
    if turn is None or not row.speaks:
        return []
    if item.to_preference_pair() is not None:
        return [
            {"prompt": turn.prompt, "completion": turn.response, "label": False},
            {"prompt": turn.prompt, "completion": spliced(item), "label": True},
        ]
    if row.rated is not None and row.preference:
        label = kto_label(FeedbackPolarity.NEUTRAL, row.preferred_score)
    else:
        label = kto_label(item.polarity, item.score)
    if label is None:
        return []
    return [{"prompt": turn.prompt, "completion": turn.response, "label": label}]


def _rewards(row: Exported) -> list[Record]:
    """The spec's reward sample; a rating's row adds the question it is of and every answer of
    the rating, and its lead row a sample more for each scored answer with no row of its own."""
    sample = row.item.to_reward_sample()
    rated = row.rated
    if sample is None or rated is None:
        return _one(sample)
    of_rating = {
        "rating_id": rated.rating_id,
        "rubric_version": rated.rubric_version,
        "answers": rated.answers,
    }
    lines = [{**sample, "question": rated.key, **of_rating}]
    if rated.lead:
        # Stored as its question's row would have been: the protocol's default dimension.
        unstored = {"dimension": UNNAMED_DIMENSION, **of_rating}
        lines += [
            {**sample, "score": score, "question": key, **unstored}
            for key, score in rated.unstored_scores.items()
        ]
    return lines


@dataclass(frozen=True)
class Format:
    """One export format: the lines of one feedback (none, one, or for KTO's corrections two),
    and the polarities that can give one (so the database leaves the others out; empty: all)."""

    lines: Callable[[Exported], list[Record]]
    polarities: tuple[FeedbackPolarity, ...] = ()


PAIR_POLARITIES = (FeedbackPolarity.CORRECTIVE,)
FORMATS: dict[str, Format] = {
    "preferences": Format(_preferences, PAIR_POLARITIES),
    "spec-preferences": Format(_spec_preferences, PAIR_POLARITIES),
    "rewards": Format(_rewards),
    "trl": Format(_trl, PAIR_POLARITIES),
    "openai-dpo": Format(_openai_dpo, PAIR_POLARITIES),
    "kto": Format(_kto),
}
UNNAMED_DIMENSION = FeedbackItem.model_fields["dimension"].default.value


def export_records(
    name: str, rows: QuerySet[Feedback], *, batch: int | None = None
) -> Iterator[list[Record]]:
    """The lines of format `name` for these rows (a project's counted feedback), one list a
    batch of rows (a batch may give no line)."""
    fmt = FORMATS[name]
    if fmt.polarities:
        rows = rows.filter(polarity__in=[p.value for p in fmt.polarities])
    for page in _pages(rows, batch=batch):
        yield [record for row in _exported(page) for record in fmt.lines(row)]


def _exported(page: list[Feedback]) -> list[Exported]:
    rated = rated_rows(page)
    preference = {
        project: rubric_current(project).rubric.preference
        for project in {project_of(row) for row in page}
    }
    return [
        Exported(item, rated.get(row.pk), preference[project_of(row)])
        for row, item in zip(page, as_items(page), strict=True)
    ]


def export_chunks(
    name: str, rows: QuerySet[Feedback], *, batch: int | None = None
) -> Iterator[bytes]:
    """JSON lines of format `name`, one bytes chunk a batch: what a streamed response sends."""
    yield from _chunks(export_records(name, rows, batch=batch))


def _chunks(batches: Iterator[list[Record]]) -> Iterator[bytes]:
    for records in batches:
        if records:
            yield b"".join(orjson.dumps(record) + b"\n" for record in records)


# --- ratings on a rubric ------------------------------------------------------------------------
# Not feedback: one line a rating as it was given (feedback.services.ratings), every answer under
# the rubric version it was given on; the explorer's filters other than `project` do not apply.

ANSWERS = "answers"
RATING_FIELDS = (
    *("id", "rating_id", "turn_id", "turn__correlation_id", "turn__session_id", "step_id"),
    "annotator",
    "rubric_version",
    *("answers", "comment", "correction", "span_start", "span_end", "ts"),
)


def rating_records(project_id: int, *, batch: int | None = None) -> Iterator[list[Record]]:
    """The counted ratings of the project, oldest first, one list of lines a keyset batch."""
    rows = counted_ratings(project_id).order_by("id").values_list(*RATING_FIELDS)
    size = batch or BATCH
    last_id = 0
    with _small_page_cache():
        while page := list(rows.filter(id__gt=last_id)[:size]):
            last_id = page[-1][0]
            yield [_rating_line(*row[1:]) for row in page]


def _rating_line(
    rating_id: str,
    turn: int,
    correlation_id: str,
    session_id: str,
    step_id: str,
    annotator: str,
    rubric_version: int,
    answers: dict[str, Any],
    comment: str,
    correction: str,
    span_start: int | None,
    span_end: int | None,
    ts: float,
) -> Record:
    span = None if span_start is None else [span_start, span_end]
    return {
        "rating_id": rating_id,
        "turn": turn,
        "correlation_id": correlation_id,
        "session_id": session_id,
        "step_id": step_id,
        "annotator": annotator,
        "rubric_version": rubric_version,
        "answers": answers,
        "comment": comment,
        "correction": correction,
        "correction_span": span,
        "ts": ts,
    }


def rating_chunks(project_id: int, *, batch: int | None = None) -> Iterator[bytes]:
    """The format `answers` as JSON lines, one bytes chunk a batch."""
    yield from _chunks(rating_records(project_id, batch=batch))


def write_jsonl(chunks: Iterator[bytes], stream: Any) -> int:
    """Write the chunks; the number of lines written."""
    count = 0
    for chunk in chunks:
        stream.write(chunk)
        count += chunk.count(b"\n")
    return count
