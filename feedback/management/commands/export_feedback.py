from __future__ import annotations

from feedback.management.commands._export import ExportCommand


class Command(ExportCommand):
    help = (
        "Write the feedback the filters match in one --format (preferences, rewards, trl, "
        "openai-dpo, kto) as JSON lines; '-' for stdout."
    )
    default_format = None
