"""The trust region over time, read from a path's revisions (one range of their path index).

Distance: what machines' applies may move one routing weight by in all within
LEARNPORTAL_TRUST_WINDOW_SECONDS is the step of the auto-apply risk (refinement.trust_region),
however many applies it takes; so five low-risk applies in a second move a weight no further
than one would. Adapt's own steps are not held to it, or repeated adapts would not converge.

Count: machines (applies and adapts alike) change one path at most LEARNPORTAL_PATH_CHANGES_MAX
times within LEARNPORTAL_PATH_CHANGES_SECONDS; past that a person must approve the next change.
"""

from __future__ import annotations

from django.conf import settings
from django.db.models import Count

from refinement.models import Revision
from refinement.trust_region import MOVED, max_step

MACHINE_ACTORS = "token:"  # a principal's key: a person's is "user:<name>"


def machine_changes(project: int, path: str, *, now: float) -> list[tuple[float, object, object]]:
    """Machines' changes of the project's `path` (ts, before, after) within the longer of the
    two windows."""
    since = now - max(
        settings.LEARNPORTAL_TRUST_WINDOW_SECONDS, settings.LEARNPORTAL_PATH_CHANGES_SECONDS
    )
    return list(
        Revision.objects.filter(
            project=project, path=path, ts__gte=since, actor__startswith=MACHINE_ACTORS
        ).values_list("ts", "before", "after")
    )


def machine_moved(changes: list[tuple[float, object, object]], *, now: float) -> float:
    """How far these changes moved a weight in all within the distance window up to `now`."""
    since = now - settings.LEARNPORTAL_TRUST_WINDOW_SECONDS
    return sum(
        abs(_number(after) - _number(before)) for ts, before, after in changes if ts >= since
    )


def machine_wait(project: int, path: str, moves: tuple[float, float] | None, *, now: float) -> str:
    """Why a machine's change of `path` waits for a person ("" when it need not): the path was
    changed as often as the count window allows, or, for a weight's move `moves` (from, to),
    the distance window has no room for it. One read of the path's revisions."""
    changes = machine_changes(project, path, now=now)
    recent = now - settings.LEARNPORTAL_PATH_CHANGES_SECONDS
    if sum(1 for ts, *_ in changes if ts >= recent) >= settings.LEARNPORTAL_PATH_CHANGES_MAX:
        return changes_wait(path)
    if moves is None:
        return ""
    current, new = moves
    step = abs(new - current)
    allowed = max_step(settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK)
    moved = machine_moved(changes, now=now)
    if step <= max(0.0, allowed - moved) + MOVED:
        return ""
    window = settings.LEARNPORTAL_TRUST_WINDOW_SECONDS
    return (
        f"awaits approval by a reviewer: machines moved {path} by {moved:.3f} in the "
        f"last {window} seconds, and {step:.3f} more would exceed the {allowed} the auto-apply "
        "limit allows in that time"
    )


def changes_exhausted(project: int, paths: list[str], *, now: float) -> set[str]:
    """Those of the project's `paths` that machines changed as often as the count window
    allows, up to `now`."""
    since = now - settings.LEARNPORTAL_PATH_CHANGES_SECONDS
    counts = (
        Revision.objects.filter(
            project=project, path__in=paths, ts__gte=since, actor__startswith=MACHINE_ACTORS
        )
        .values("path")
        .annotate(changes=Count("id"))
        .filter(changes__gte=settings.LEARNPORTAL_PATH_CHANGES_MAX)
        .values_list("path", flat=True)
    )
    return set(counts)


def changes_wait(path: str) -> str:
    """Why a machine's next change of `path` waits for a person, once the count is exhausted."""
    return (
        f"awaits approval by a reviewer: machines changed {path} "
        f"{settings.LEARNPORTAL_PATH_CHANGES_MAX} times in the last "
        f"{settings.LEARNPORTAL_PATH_CHANGES_SECONDS} seconds"
    )


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0
