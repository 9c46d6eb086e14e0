from __future__ import annotations

from feedback.management.commands._export import ExportCommand


class Command(ExportCommand):
    help = (
        "Write DPO preference pairs from corrective feedback (to_preference_pair) as JSON "
        "lines, or another --format, of the feedback the filters match; '-' for stdout."
    )
    default_format = "preferences"
