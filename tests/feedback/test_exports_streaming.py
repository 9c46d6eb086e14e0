"""Exports stream with flat memory, and every format loads in Hugging Face `datasets` with the
columns its trainer reads (TRL's DPOTrainer: prompt, chosen, rejected; KTOTrainer: prompt,
completion, label)."""

from __future__ import annotations

import gc
import time
import tracemalloc
import warnings
from typing import TYPE_CHECKING

import orjson
import pytest
from django.db import connection
from django.http import StreamingHttpResponse

from core.projects.selection import default_project_pk
from feedback import exports
from feedback.bulk import insert_rows
from feedback.exports import FORMATS
from feedback.models import Feedback
from feedback.selectors.visibility import counted_feedback
from feedback.services.rows import FEEDBACK_COLUMNS

if TYPE_CHECKING:
    from pathlib import Path

    from tests.harness import Actor

POLARITIES = ("corrective", "positive", "negative", "neutral")


def store(count: int, *, start: int = 0) -> None:
    """`count` rated feedbacks, a quarter of each polarity, half the corrections on a span.

    Prompts and responses are longer than 64 characters, as real ones are: pydantic's JSON parser
    keeps shorter strings in a process-wide cache (16,384 of them), which would fill as unique
    short turns stream by; memory that is bounded, but not the export's, and which rows of a
    tenfold export would show as growth."""
    now = time.time()
    rows = []
    for i in range(start, start + count):
        polarity = POLARITIES[i % 4]
        response = f"Response number {i}: the answer is {i % 97}, as computed by the model today."
        prompt = f"Prompt {i}: what is the answer, and how did the model compute it, in short?"
        turn = {"prompt": prompt, "response": response, "model": "m", "version": None}
        corrective = polarity == "corrective"
        span = (18, 19) if corrective and i % 8 == 0 else (None, None)
        rows.append(
            (
                f"bulk-{i}",
                f"turn-{i}",
                "",
                "m",
                orjson.dumps(turn).decode(),
                polarity,
                0.5 if polarity == "positive" else -0.5,
                "correctness",
                1.0,
                "",
                f"Correction {i}" if corrective else "",
                span[0],
                span[1],
                "human",
                "someone",
                "",
                float(i),
                "user:someone",
                "",
                now,
                default_project_pk(),
            )
        )
    insert_rows(Feedback, FEEDBACK_COLUMNS, rows)


def streamed_peak(actor: Actor, kind: str) -> tuple[int, int]:
    """(lines, peak bytes the export held) of reading a whole export, one chunk at a time.

    What the export holds, not garbage the collector has not reached yet: a full collection
    after each chunk (cheap, the objects alive before the stream frozen out of it) keeps the
    peak from depending on when CPython happens to collect, which grows with the number of
    batches read, whatever the export keeps."""
    gc.collect()
    gc.freeze()
    tracemalloc.start()
    try:
        response = actor.client.get(f"/api/exports/{kind}.jsonl")
        assert isinstance(response, StreamingHttpResponse)
        lines = 0
        for chunk in response.streaming_content:
            lines += chunk.count(b"\n")
            gc.collect()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        gc.unfreeze()
    return lines, peak


@pytest.mark.parametrize("kind", ["rewards", "trl"])
def test_memory_stays_flat_as_the_export_grows_tenfold(
    rev: Actor, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Batches smaller than the small export, so that both read several.
    monkeypatch.setattr(exports, "BATCH", 200)
    store(2000)
    # Once untimed: the process's first export pays for imports and compiled queries, which
    # would swell the small peak of whichever test runs first and hide any growth.
    streamed_peak(rev, kind)
    small_lines, small_peak = streamed_peak(rev, kind)
    store(18000, start=2000)
    large_lines, large_peak = streamed_peak(rev, kind)
    assert large_lines == 10 * small_lines
    # The peak is one batch of rows, whatever the total. Measured so, the two peaks are within
    # 3% of each other; an export that read every row at once, or kept each batch, peaks at
    # nine times the small one, and one that kept a tenth of each batch's rows at three times.
    assert large_peak < 1.5 * small_peak, (small_peak, large_peak)


def test_the_stream_sends_one_chunk_a_batch_not_one_body(rev: Actor) -> None:
    store(5000)
    response = rev.client.get("/api/exports/rewards.jsonl")
    assert isinstance(response, StreamingHttpResponse)
    chunks = list(response.streaming_content)
    assert len(chunks) >= 3
    assert sum(chunk.count(b"\n") for chunk in chunks) == 5000


@pytest.mark.parametrize(
    ("kind", "columns"),
    [
        (
            "preferences",
            {
                "prompt",
                "chosen",
                "rejected",
                "dimension",
                "model_version",
                "confidence",
                "correction",
            },
        ),
        (
            "spec-preferences",
            {"prompt", "chosen", "rejected", "dimension", "model_version", "confidence"},
        ),
        ("rewards", {"prompt", "response", "score", "dimension", "weight", "source"}),
        ("trl", {"prompt", "chosen", "rejected"}),
        ("openai-dpo", {"input", "preferred_output", "non_preferred_output"}),
        ("kto", {"prompt", "completion", "label"}),
    ],
)
def test_every_format_loads_in_datasets(
    rev: Actor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, columns: set[str]
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    import datasets

    store(40)
    path = tmp_path / f"{kind}.jsonl"
    response = rev.client.get(f"/api/exports/{kind}.jsonl")
    assert isinstance(response, StreamingHttpResponse)
    path.write_bytes(b"".join(response.streaming_content))
    dataset = datasets.load_dataset(
        "json", data_files=str(path), split="train", cache_dir=str(tmp_path / "cache")
    )
    # KTO: a line for each positive, negative and (scored) neutral, two for each correction.
    expected = {
        "preferences": 10,
        "spec-preferences": 10,
        "rewards": 40,
        "trl": 10,
        "openai-dpo": 10,
        "kto": 50,
    }
    assert dataset.num_rows == expected[kind]
    assert set(dataset.column_names) == columns
    if kind == "trl":
        # What DPOTrainer reads of a row: three strings, the chosen one spliced where a span is.
        row = dataset[0]
        assert all(isinstance(row[name], str) for name in ("prompt", "chosen", "rejected"))
        assert (
            row["chosen"]
            == "Response number 0:Correction 0the answer is 0, as computed by the model today."
        )
    if kind == "kto":
        assert dataset.features["label"].dtype == "bool"


def test_the_formats_are_the_contracts_five_and_the_specs_own_pair() -> None:
    assert set(FORMATS) == {
        "preferences",
        "spec-preferences",
        "rewards",
        "trl",
        "openai-dpo",
        "kto",
    }


@pytest.mark.django_db(transaction=True)
async def test_over_asgi_the_export_streams_chunk_by_chunk_without_a_list(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Served by ASGI (as `make run` serves it), a sync iterator would be made into a list
    first, with a warning; the export hands ASGI an async iterator that pulls one batch a time."""
    from asgiref.sync import sync_to_async
    from django.test import AsyncClient

    from tests.harness import human_actor

    monkeypatch.setattr(exports, "BATCH", 100)
    actor = await sync_to_async(human_actor)("asgi-rev", "reviewer")
    await sync_to_async(store)(450)
    client = AsyncClient()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Django's "must consume synchronous iterators"
        response = await client.get(
            "/api/exports/rewards.jsonl", headers={"Authorization": f"Bearer {actor.token}"}
        )
        assert isinstance(response, StreamingHttpResponse) and response.is_async, response
        chunks = [chunk async for chunk in response.streaming_content]
    assert len(chunks) == 5
    assert sum(chunk.count(b"\n") for chunk in chunks) == 450


@pytest.mark.django_db
def test_an_export_reads_sqlite_through_a_small_page_cache_then_restores_the_usual() -> None:
    if connection.vendor != "sqlite":
        pytest.skip("the page cache is SQLite's")
    store(10)

    def cache_size() -> int:
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA cache_size")
            return int(cursor.fetchone()[0])

    usual = cache_size()
    batches = exports.feedback_items(counted_feedback(default_project_pk()), batch=4)
    next(batches)
    assert cache_size() == -exports.STREAMING_CACHE_KIB != usual
    batches.close()  # a download abandoned half way
    assert cache_size() == usual
