"""Write the current `learnings/` tree to a directory, for a runtime or for editing by hand."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.projects.options import add_project_option, project_option
from learnportal_protocol.errors import LearnError
from refinement.learning_store import skills_export


class Command(BaseCommand):
    help = "Write every current learnings file under DIR (DIR/learnings/...)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", type=Path)
        add_project_option(parser, "learning store to write")

    def handle(self, *args: Any, directory: Path, project: str, **options: Any) -> None:
        pk = project_option(project)
        try:
            written = skills_export(project=pk, directory=directory)
        except LearnError as error:
            raise CommandError(error.message) from None
        self.stdout.write(f"wrote {len(written)} learnings files under {directory.resolve()}")
