from __future__ import annotations

from feedback.management.commands._export import ExportCommand


class Command(ExportCommand):
    help = (
        "Write DPO preference pairs from corrective feedback as JSON lines (to_preference_pair's "
        "keys, chosen the corrected response, the bare correction in 'correction'), or another "
        "--format, of the feedback the filters match; '-' for stdout."
    )
    default_format = "preferences"
