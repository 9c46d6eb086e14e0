"""Reading a file of turns as rows of named values: JSON lines, CSV with a header, or a Hugging
Face dataset saved with `datasets.save_to_disk`. What the rows mean is feedback.turn_import's.

A row is the file's own record, numbered from 1 (a CSV's header is not a row); a nested object
(Label Studio's `data`, Argilla's `metadata`) is read as dotted columns (`data.prompt`). A line
that is not a JSON object is a row refused on its own; a file that is too large, holds too many
rows, or is not UTF-8 is refused whole (`invalid` or `too_large`, naming `file`).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from django.conf import settings

from learnportal_protocol.errors import ErrorCode, LearnError, detail, invalid

if TYPE_CHECKING:
    from collections.abc import Iterator

PREVIEW_ROWS = 5
# Columns are the keys of the first rows: a key that first appears later is still read, but is
# not offered in the mapping.
COLUMN_SCAN_ROWS = 100


class FileFormat(StrEnum):
    JSONL = "jsonl"
    CSV = "csv"
    DATASET = "dataset"


SUFFIXES = {".jsonl": FileFormat.JSONL, ".ndjson": FileFormat.JSONL, ".csv": FileFormat.CSV}


@dataclass(frozen=True)
class Row:
    number: int
    values: dict[str, Any] = field(default_factory=dict)
    # Why the row could not be read at all (a line that is not a JSON object), or "".
    unreadable: str = ""


def format_of(name: str, *, is_dir: bool = False) -> FileFormat:
    """The format a file's name says (a directory is a saved dataset), or `invalid`."""
    if is_dir:
        return FileFormat.DATASET
    found = SUFFIXES.get(Path(name).suffix.lower())
    if found is None:
        raise invalid(
            f"{name!r} is neither .jsonl nor .csv.",
            [detail(["file"], "a .jsonl (JSON lines) or .csv (with a header row) file")],
        )
    return found


def size_checked(size: int) -> None:
    limit = settings.LEARNPORTAL_IMPORT_MAX_BYTES
    if size > limit:
        raise LearnError(
            ErrorCode.TOO_LARGE,
            f"The file has {size} bytes; at most {limit} are allowed "
            "(LEARNPORTAL_IMPORT_MAX_BYTES). Split it, and import the parts one after another.",
            [detail(["file"], f"at most {limit} bytes")],
        )


def _too_many_rows() -> LearnError:
    limit = settings.LEARNPORTAL_IMPORT_MAX_ROWS
    return LearnError(
        ErrorCode.TOO_LARGE,
        f"The file has more than {limit} rows (LEARNPORTAL_IMPORT_MAX_ROWS). Split it, and "
        "import the parts one after another.",
        [detail(["file"], f"at most {limit} rows")],
    )


def flattened(values: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """One level of nesting as dotted columns: {"data": {"q": 1}} is {"data.q": 1}."""
    flat: dict[str, Any] = {}
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and not prefix:
            flat.update(flattened(value, f"{name}."))
        else:
            flat[name] = value
    return flat


def _jsonl_rows(stream: io.BufferedReader) -> Iterator[Row]:
    number = 0
    for line in stream:
        if not line.strip():
            continue
        number += 1
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            yield Row(number, unreadable=f"not JSON: {exc}")
            continue
        if not isinstance(value, dict):
            yield Row(number, unreadable="not a JSON object")
            continue
        yield Row(number, flattened(value))


def _csv_rows(stream: io.BufferedReader) -> Iterator[Row]:
    text = io.TextIOWrapper(stream, encoding="utf-8-sig", newline="")
    # A cell may hold a whole response: as large as the file may be.
    csv.field_size_limit(settings.LEARNPORTAL_IMPORT_MAX_BYTES)
    try:
        for number, record in enumerate(csv.DictReader(text), start=1):
            # An empty cell is CSV's "no value"; cells beyond the header have no column.
            yield Row(number, {k: v for k, v in record.items() if k is not None and v != ""})
    except UnicodeDecodeError:
        raise invalid(
            "The file is not UTF-8 text; save the CSV as UTF-8 and upload it again.",
            [detail(["file"], "not UTF-8 text")],
        ) from None
    except csv.Error as exc:
        raise invalid(f"The CSV cannot be read: {exc}.", [detail(["file"], str(exc))]) from None


def _dataset_rows(path: Path) -> Iterator[Row]:
    try:
        import datasets
    except ImportError:
        raise invalid(
            "Reading a saved dataset needs the `datasets` package (pip install datasets).",
            [detail(["file"], "the datasets package is not installed")],
        ) from None
    try:
        loaded = datasets.load_from_disk(str(path))
    except (FileNotFoundError, ValueError) as exc:
        raise invalid(
            f"{path} is not a dataset saved with save_to_disk: {exc}",
            [detail(["file"], "not a saved dataset")],
        ) from None
    if isinstance(loaded, datasets.DatasetDict):
        splits = list(loaded)
        loaded = loaded["train"] if "train" in loaded else loaded[splits[0]]
    for number, record in enumerate(loaded, start=1):
        yield Row(number, flattened(dict(record)))


def read_rows(path: Path, fmt: FileFormat) -> Iterator[Row]:
    """The rows of the file at `path`, refusing it whole past LEARNPORTAL_IMPORT_MAX_ROWS."""
    if fmt is FileFormat.DATASET:
        rows = _dataset_rows(path)
        yield from _bounded(rows)
        return
    size_checked(path.stat().st_size)
    with path.open("rb") as stream:
        reader = _jsonl_rows(stream) if fmt is FileFormat.JSONL else _csv_rows(stream)
        yield from _bounded(reader)


def _bounded(rows: Iterator[Row]) -> Iterator[Row]:
    limit = settings.LEARNPORTAL_IMPORT_MAX_ROWS
    for row in rows:
        if row.number > limit:
            raise _too_many_rows()
        yield row


@dataclass(frozen=True)
class Survey:
    """What a file holds, read once before anything is stored: its columns, its first rows,
    and how many rows it has (which also checks every limit)."""

    columns: list[str]
    preview: list[Row]
    rows: int


def survey(path: Path, fmt: FileFormat) -> Survey:
    columns: dict[str, None] = {}
    preview: list[Row] = []
    count = 0
    for row in read_rows(path, fmt):
        count = row.number
        if row.number <= COLUMN_SCAN_ROWS:
            columns.update(dict.fromkeys(row.values))
        if len(preview) < PREVIEW_ROWS:
            preview.append(row)
    return Survey(list(columns), preview, count)
