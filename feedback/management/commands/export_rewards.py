from __future__ import annotations

from feedback.management.commands._export import ExportCommand


class Command(ExportCommand):
    help = (
        "Write reward model samples from every rated feedback (to_reward_sample) as JSON "
        "lines, or another --format, of the feedback the filters match; '-' for stdout."
    )
    default_format = "rewards"
