"""A file uploaded on the import page, kept between its preview and its import: under
VAR_DIR/imports/, beside a JSON note of who uploaded it, what it holds and how far its import
has come, so that each batch of the import (one request each, for the progress bar) goes on
where the last one stopped, in whichever server process. The rows are feedback.turn_import's.
"""

from __future__ import annotations

import dataclasses
import itertools
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from django.conf import settings
from django.http import Http404

from feedback.turn_files import FileFormat, format_of, read_rows, size_checked, survey
from feedback.turn_import import ColumnMapping, ImportReport, RefusedRow, turns_import_batch

if TYPE_CHECKING:
    from django.core.files.uploadedfile import UploadedFile

    from core.accounts.principals import Principal
    from feedback.turn_files import Row

# An upload nobody imported is deleted this long after it came (at the next upload).
STAGED_SECONDS = 24 * 3600
TOKEN_BYTES = 16


def _folder() -> Path:
    folder = Path(settings.VAR_DIR) / "imports"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@dataclass
class Staged:
    token: str
    owner: int
    name: str
    format: FileFormat
    rows: int
    columns: list[str]
    preview: list[dict[str, Any]]
    created: float
    done: int = 0  # rows imported so far
    report: ImportReport = field(default_factory=ImportReport)

    @property
    def path(self) -> Path:
        return _folder() / f"{self.token}.{self.format.value}"

    @property
    def finished(self) -> bool:
        return self.done >= self.rows

    def save(self) -> None:
        note = dataclasses.asdict(self)
        (_folder() / f"{self.token}.json").write_bytes(orjson.dumps(note))


def staged_upload(upload: UploadedFile[bytes], *, owner: int) -> Staged:
    """Keep an uploaded file and survey it; a file refused (format, size, rows, encoding) is
    not kept, and its LearnError names `file`."""
    _prune()
    name = upload.name or "upload"
    fmt = format_of(name)
    size_checked(upload.size or 0)
    token = secrets.token_hex(TOKEN_BYTES)
    path = _folder() / f"{token}.{fmt.value}"
    with path.open("wb") as out:
        for chunk in upload.chunks():
            out.write(chunk)
    try:
        found = survey(path, fmt)
    except Exception:
        path.unlink(missing_ok=True)
        raise
    staged = Staged(
        token=token,
        owner=owner,
        name=Path(name).name,
        format=fmt,
        rows=found.rows,
        columns=found.columns,
        preview=[row.values for row in found.preview],
        created=time.time(),
    )
    staged.save()
    return staged


def staged_file(token: str, *, owner: int) -> Staged:
    """The upload `token` names, of this person (anyone else's is not found, as no upload)."""
    if len(token) != 2 * TOKEN_BYTES or not all(c in "0123456789abcdef" for c in token):
        raise Http404
    note = _folder() / f"{token}.json"
    if not note.exists():
        raise Http404
    data = orjson.loads(note.read_bytes())
    if data["owner"] != owner:
        raise Http404
    report = data.pop("report")
    return Staged(
        **{**data, "format": FileFormat(data["format"])},
        report=ImportReport(
            rows=report["rows"],
            created=report["created"],
            duplicates=report["duplicates"],
            refused=[RefusedRow(**r) for r in report["refused"]],
        ),
    )


def staged_import_next(staged: Staged, *, principal: Principal, mapping: ColumnMapping) -> None:
    """Import the next batch of the file's rows (LEARNPORTAL_MAX_BATCH), and note it; the file
    goes once every row is in."""
    if staged.finished:
        return
    batch: list[Row] = list(
        itertools.islice(
            read_rows(staged.path, staged.format),
            staged.done,
            staged.done + settings.LEARNPORTAL_MAX_BATCH,
        )
    )
    staged.report.add(turns_import_batch(principal=principal, rows=batch, mapping=mapping))
    staged.done += len(batch) or staged.rows  # a file shorter than surveyed ends here
    if staged.finished:
        staged.path.unlink(missing_ok=True)
    staged.save()


def _prune() -> None:
    cutoff = time.time() - STAGED_SECONDS
    for note in _folder().glob("*.json"):
        if note.stat().st_mtime < cutoff:
            for path in _folder().glob(f"{note.stem}.*"):
                path.unlink(missing_ok=True)
