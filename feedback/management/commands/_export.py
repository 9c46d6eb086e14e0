"""What the export commands share: `--format`, the explorer's filters, and writing the lines
(feedback.exports, as `GET /api/exports/<format>.jsonl` streams them). Not a command itself:
Django skips modules whose name starts with an underscore."""

from __future__ import annotations

import sys
from typing import Any, ClassVar

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.projects.options import add_project_option, project_option
from feedback.exports import FORMATS, export_chunks, write_jsonl
from feedback.filters import FeedbackFilters, parse_filters
from feedback.selectors.explorer import feedback_matching
from learnportal_protocol.errors import LearnError


class ExportCommand(BaseCommand):
    default_format: ClassVar[str | None]

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("out", help="a .jsonl path, or - for stdout")
        parser.add_argument(
            "--format",
            choices=list(FORMATS),
            default=self.default_format,
            required=self.default_format is None,
            help=f"the export format (default: {self.default_format})"
            if self.default_format
            else "the export format",
        )
        add_project_option(parser, "feedback to export")
        for name in FeedbackFilters.model_fields:
            field = FeedbackFilters.model_fields[name]
            parser.add_argument(
                f"--{name.replace('_', '-')}",
                dest=f"filter_{name}",
                default="",
                help=field.description or f"only feedback with this {name}",
            )

    def handle(self, *args: Any, out: str, format: str, project: str, **options: Any) -> None:
        project_option(project)
        params = {
            name: options[f"filter_{name}"]
            for name in FeedbackFilters.model_fields
            if options.get(f"filter_{name}")
        }
        try:
            filters = parse_filters(params)
        except LearnError as error:
            raise CommandError(
                "; ".join(f"--{d['loc'][-1].replace('_', '-')}: {d['msg']}" for d in error.details)
            ) from None
        chunks = export_chunks(format, feedback_matching(filters, viewer=None, project=project))
        if out == "-":
            write_jsonl(chunks, sys.stdout.buffer)
            sys.stdout.flush()
            return
        with open(out, "wb") as stream:
            count = write_jsonl(chunks, stream)
        self.stderr.write(f"Wrote {count} records to {out}.")
