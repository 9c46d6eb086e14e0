"""`python -m bench.child TASK JSON`: one task of a bench in a Django process of its own.

bench.harness.children.run_child starts it with a section's environment, so that Django is set
up on that section's fresh database; the task's keyword arguments come as JSON, and its result
goes back as JSON on the last line of stdout (progress goes to stderr).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

import orjson

if TYPE_CHECKING:
    from collections.abc import Callable


def tasks() -> dict[str, Callable[..., Any]]:
    """Every task, imported once Django is set up (they read the app's models)."""
    from bench.annotation import build, probes
    from bench.live import asgi_probe, inproc
    from bench.pages import measure
    from bench.strategies import e2e
    from bench.teams import build as teams_build
    from bench.teams import probes as teams_probes

    return {
        "meta": inproc.meta,
        "seed_calls": inproc.seed_calls,
        "calls_total": inproc.calls_total,
        "profile": inproc.profile,
        "insert_variants": inproc.insert_variants,
        "asgi_probe": asgi_probe.asgi_probe,
        "adapt_e2e": e2e.worker,
        "workspace_build": build.child_build,
        "workspace_measure": probes.child_measure,
        "workspace_export": probes.child_export,
        "components": measure.child_run,
        "projects_build": teams_build.child_build,
        "projects_only": teams_build.child_projects,
        "projects_measure": teams_probes.child_measure,
    }


def main() -> int:
    import django

    from bench.harness.children import child_answer

    task, raw = sys.argv[1], sys.argv[2]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "learnportal.settings")
    django.setup()
    result = tasks()[task](**orjson.loads(raw))
    sys.stdout.write(child_answer(result) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
