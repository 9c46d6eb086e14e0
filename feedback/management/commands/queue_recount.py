from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from core.projects.models import Project
from feedback.queue_state import project_recount


class Command(BaseCommand):
    help = (
        "Recount every turn's ratings still needed and priority from its stored feedback: run it "
        "after changing LEARNPORTAL_RATINGS_PER_TURN (a project's own setting recounts its turns "
        "when it changes)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--project", help="only this project's turns (its slug)")

    def handle(self, *args: Any, **options: Any) -> None:
        projects = Project.objects.order_by("pk")
        if options["project"]:
            projects = projects.filter(slug=options["project"])
            if not projects.exists():
                self.stderr.write(f"No project {options['project'][:50]!r}; nothing recounted.")
                raise SystemExit(2)
        done = sum(project_recount(pk) for pk in projects.values_list("pk", flat=True))
        self.stderr.write(f"Recounted {done} turns.")
