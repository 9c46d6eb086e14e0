"""The trust region over time: what machines may move one routing weight by in all within
LEARNPORTAL_TRUST_WINDOW_SECONDS is the step of the auto-apply risk (refinement.trust_region),
however many applies or adapts it takes; so five low-risk applies in a second move a weight no
further than one would. Read from the weight's revisions (one range of their path index).
"""

from __future__ import annotations

from django.conf import settings

from refinement.models import Revision
from refinement.trust_region import MOVED, max_step

MACHINE_ACTORS = "token:"  # a principal's key: a person's is "user:<name>"


def machine_moved(path: str, *, now: float) -> float:
    """How far machines moved the weight at `path` in all within the window up to `now`."""
    since = now - settings.LEARNPORTAL_TRUST_WINDOW_SECONDS
    changes = Revision.objects.filter(
        path=path, ts__gte=since, actor__startswith=MACHINE_ACTORS
    ).values_list("before", "after")
    return sum(abs(_number(after) - _number(before)) for before, after in changes)


def window_room(path: str, *, now: float) -> float:
    """How much further machines may move the weight at `path` now (never below 0)."""
    allowed = max_step(settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK)
    return max(0.0, allowed - machine_moved(path, now=now))


def window_wait(path: str, current: float, new: float, *, now: float) -> str:
    """Why a machine's move of this weight from `current` to `new` waits for a person ("" when
    the window has room for it)."""
    step = abs(new - current)
    room = window_room(path, now=now)
    if step <= room + MOVED:
        return ""
    window = settings.LEARNPORTAL_TRUST_WINDOW_SECONDS
    allowed = max_step(settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK)
    return (
        f"awaits approval by a reviewer: machines moved {path} by {allowed - room:.3f} in the "
        f"last {window} seconds, and {step:.3f} more would exceed the {allowed} the auto-apply "
        "limit allows in that time"
    )


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0
