from __future__ import annotations

from typing import Any

from django.apps import AppConfig


class FeedbackConfig(AppConfig):
    name = "feedback"
    verbose_name = "Turns, feedback and experiences"

    def ready(self) -> None:
        from core.projects.rules import queue_rules_changed

        queue_rules_changed.connect(_recount, dispatch_uid="feedback.recount")


def _recount(sender: object, *, project_id: int, **kwargs: Any) -> None:
    from feedback.comparisons.queue import comparisons_recount
    from feedback.queue_state import project_recount

    project_recount(project_id)
    comparisons_recount(project_id)
