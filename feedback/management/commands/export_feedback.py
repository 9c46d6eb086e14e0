from __future__ import annotations

from feedback.exports import FORMATS
from feedback.management.commands._export import ExportCommand


class Command(ExportCommand):
    help = (
        f"Write the feedback the filters match in one --format ({', '.join(FORMATS)}) as JSON "
        "lines; '-' for stdout."
    )
    default_format = None
