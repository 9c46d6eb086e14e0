"""Queue turns from a file: JSON lines, CSV, or a Hugging Face dataset saved on disk, through
the import page's service (feedback.turn_import)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.accounts.models import User
from core.accounts.principals import Principal, principal_for_user
from core.accounts.roles import Role
from feedback.turn_files import FileFormat, format_of, read_rows, survey
from feedback.turn_import import (
    TARGETS,
    ColumnMapping,
    ImportReport,
    guessed_mapping,
    mapping_checked,
    turns_import,
)
from learnportal_protocol.errors import LearnError

# Who a file's turns are submitted by without --user: the operator at the server's console.
OPERATOR = Principal(role=Role.ADMIN, name="import_turns", is_human=False)
REFUSALS_SHOWN = 50


class Command(BaseCommand):
    help = (
        "Queue the turns of FILE (.jsonl, .csv, or a directory saved by datasets' save_to_disk) "
        "for annotators. Columns are found by name (prompt, response, model, ...) unless named "
        "with the options; refused rows are listed by row and field, the others stored."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", type=Path)
        parser.add_argument("--format", choices=list(FileFormat), help="default: from the name")
        for target in TARGETS:
            option = target.replace("_", "-")
            parser.add_argument(
                f"--{option}", dest=target, default=None, help=f"the column of the {target}"
            )
        parser.add_argument(
            "--metadata",
            action="append",
            default=[],
            help="a column kept in the turn's environment (repeat for several)",
        )
        parser.add_argument(
            "--user", default="", help="a reviewer or admin the turns are submitted as"
        )

    def handle(self, *args: Any, file: Path, **options: Any) -> None:
        if not file.exists():
            raise CommandError(f"{file} does not exist.")
        principal = self._principal(options["user"])
        try:
            fmt = FileFormat(options["format"] or format_of(file.name, is_dir=file.is_dir()))
            found = survey(file, fmt)
            guessed = guessed_mapping(found.columns)
            chosen = {
                t: options[t] if options[t] is not None else guessed.get(t, "") for t in TARGETS
            }
            mapping = mapping_checked(
                ColumnMapping(**chosen, metadata=tuple(options["metadata"])), found.columns
            )
            self.stderr.write(
                f"{found.rows} rows; "
                + ", ".join(f"{t} <- {mapping.column(t)!r}" for t in TARGETS if mapping.column(t))
            )
            report = turns_import(
                principal=principal,
                rows=read_rows(file, fmt),
                mapping=mapping,
                progress=lambda total: self.stderr.write(f"{total.rows}/{found.rows} rows read"),
            )
        except LearnError as error:
            fields = ", ".join(".".join(map(str, d["loc"])) for d in error.details)
            raise CommandError(f"{error.message}{f' ({fields})' if fields else ''}") from None
        self._report(report)

    def _principal(self, username: str) -> Principal:
        if not username:
            return OPERATOR
        user = User.objects.filter(username=username, is_active=True).first()
        if user is None:
            raise CommandError(f"No active user {username!r}.")
        return principal_for_user(user)

    def _report(self, report: ImportReport) -> None:
        for refused in report.refused[:REFUSALS_SHOWN]:
            column = f" (column {refused.column!r})" if refused.column else ""
            self.stderr.write(f"row {refused.row}: {refused.field}{column}: {refused.message}")
        if len(report.refused) > REFUSALS_SHOWN:
            self.stderr.write(f"... and {len(report.refused) - REFUSALS_SHOWN} more refusals")
        refused_rows = len({r.row for r in report.refused})
        self.stdout.write(
            f"{report.created} turns queued, {report.duplicates} already queued, "
            f"{refused_rows} rows refused, of {report.rows}."
        )
