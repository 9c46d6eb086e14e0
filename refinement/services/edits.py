"""The one write path of every change of a path (`edits_apply`): apply, adapt and rollback
alike, with its compare-and-swap, and the row locks every writer takes.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from django.db import models

from learnportal_protocol.errors import conflict, detail
from refinement import store
from refinement.history import history_record
from refinement.models import Plan, Proposal, Refinement, RefinementStatus
from refinement.review import describe, same_value

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from django.db.models import QuerySet

    from core.accounts.principals import Principal
    from refinement.paths import Location


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


_Row = TypeVar("_Row", bound=models.Model)


def locked(rows: QuerySet[_Row]) -> QuerySet[_Row]:
    """Rows locked until the transaction ends (PostgreSQL; SQLite serializes writers anyway)."""
    return rows.select_for_update(of=("self",), no_key=True)


@dataclass(frozen=True)
class Edit:
    """One change of one path: from the value it expects to find there (`before`) to `after`."""

    location: Location
    before: Any
    after: Any

    @property
    def path(self) -> str:
        return self.location.path


STALE = "Changed since it was read; nothing was applied."


def edits_apply(
    principal: Principal,
    plan: Plan | None,
    edits: Sequence[Edit],
    *,
    message: str,
    refinement: Refinement | None = None,
    proposal: Proposal | None = None,
    rollback_of: Refinement | None = None,
    current: Mapping[str, Any] | None = None,
    stale: str = STALE,
    stale_loc: tuple[str, ...] = ("proposal", "old_value"),
) -> Refinement:
    """Apply edits as one refinement: the one write path of apply (1 edit), adapt (up to a
    thousand) and rollback, in a handful of statements however many edits there are.

    Compare-and-swap: every path must still hold its edit's `before`, else `conflict` (`stale`)
    and nothing is written. `current` is what the caller's review read of these paths under
    lock in this transaction (`assess_all(..., lock=True)`); without it, they are locked and read
    here. Then, once each: the refinement (`refinement`, a queued one this completes, or a new
    one) with the before-snapshot as its edits, a revision per path, and one history entry,
    broadcast after commit (`rollback` when it undoes `rollback_of`, else `apply`).

    The caller holds the locks that come earlier in the one order (the proposal row, the
    refinement rolled back) and settles plans after (`plan_settle`).
    """
    if current is None:
        current = store.read_many([edit.location for edit in edits], lock=True)
    changed = [
        detail(
            list(stale_loc),
            f"{edit.path}: expected {describe(edit.before)}, found {describe(current[edit.path])}",
        )
        for edit in edits
        if not same_value(current[edit.path], edit.before)
    ]
    if changed:
        raise conflict(stale, changed)
    snapshot = [
        {
            "path": edit.path,
            "target": edit.location.target.value,
            "before": current[edit.path],
            "after": edit.after,
        }
        for edit in edits
    ]
    refinement = refinement or Refinement(refinement_id=new_id("ref"))
    refinement.plan, refinement.proposal, refinement.rollback_of = plan, proposal, rollback_of
    refinement.status, refinement.actor = RefinementStatus.APPLIED, principal.key
    refinement.edits, refinement.error, refinement.ts = snapshot, "", time.time()
    refinement.save()
    store.write_many(
        [(edit.location, edit.after) for edit in edits], actor=principal.key, refinement=refinement
    )
    history_record(
        "rollback" if rollback_of else "apply",
        principal.key,
        project=principal.project,
        plan_id=plan.plan_id if plan else "",
        proposal=proposal,
        refinement_id=refinement.refinement_id,
        message=message,
        diff=snapshot,
    )
    return refinement
