"""Read a `learnings/` tree from a directory as one plan; nothing applies until reviewed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.projects.options import add_project_option, project_option
from learnportal_protocol.errors import LearnError
from refinement.learning_store import skills_import, skills_read_tree


class Command(BaseCommand):
    help = "File one plan with a create or update proposal per changed file of DIR/learnings/."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("directory", type=Path)
        add_project_option(parser, "learning store the plan is for")

    def handle(self, *args: Any, directory: Path, project: str, **options: Any) -> None:
        project_option(project)
        if not (directory / "learnings").is_dir():
            raise CommandError(f"{directory / 'learnings'} is not a directory.")
        files, skipped = skills_read_tree(directory=directory)
        for why in skipped:
            self.stderr.write(f"skipped {why}")
        try:
            outcome = skills_import(project=project, files=files, source=str(directory.resolve()))
        except LearnError as error:
            raise CommandError(error.message) from None
        if not outcome.plan_id:
            self.stdout.write("nothing to import: every file matches the store")
            return
        self.stdout.write(
            f"filed plan {outcome.plan_id} with {outcome.proposals} proposals; "
            "a reviewer must approve them before they apply"
        )
