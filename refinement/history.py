"""The audit trail: who did what to which plan, proposal and refinement, and the diff."""

from __future__ import annotations

import time
from typing import Any

from learnportal.accounts.roles import Action
from learnportal.events import broadcast_on_commit
from learnportal.protocol.messages import History
from refinement.models import HistoryEntry, HistoryPath, Proposal
from refinement.selectors import open_proposal_count

HISTORY_LIMIT = 500


def history_record(
    kind: str,
    actor: str,
    *,
    plan_id: str = "",
    proposal_id: str = "",
    refinement_id: str = "",
    message: str = "",
    diff: list[dict[str, Any]] | None = None,
) -> HistoryEntry:
    entry = HistoryEntry.objects.create(
        kind=kind,
        actor=actor,
        ts=time.time(),
        plan_id=plan_id,
        proposal_id=proposal_id,
        refinement_id=refinement_id,
        message=message,
        diff=diff or [],
    )
    paths = entry_paths(entry.diff)
    if not paths and proposal_id:  # a review or a decision names its proposal, not its path
        paths = list(
            Proposal.objects.filter(proposal_id=proposal_id).values_list("path", flat=True)
        )
    HistoryPath.objects.bulk_create([HistoryPath(entry=entry, path=path) for path in paths])
    broadcast_on_commit(
        f"refinement.{kind}", entry.as_entry(), audience=Action.HISTORY, totals=_live_counts
    )
    return entry


def entry_paths(diff: list[dict[str, Any]]) -> list[str]:
    """The paths a history entry's diff names, once each: edits' and proposals' `path`, and a
    changed proposal's wire form before and after."""
    paths: list[str] = []
    for item in diff:
        for value in (item, item.get("before"), item.get("after")):
            if isinstance(value, dict) and isinstance(value.get("path"), str):
                paths.append(value["path"])
    return list(dict.fromkeys(paths))


def _live_counts() -> dict[str, int]:
    return {"pending_proposals": open_proposal_count()}


def history_entries(*, limit: int = HISTORY_LIMIT, offset: int = 0) -> list[dict[str, Any]]:
    """Newest first; `offset` pages further back."""
    entries = HistoryEntry.objects.order_by("-ts", "-id")[offset : offset + limit]
    return [entry.as_entry() for entry in entries]


def history_read(*, limit: int = HISTORY_LIMIT) -> History:
    """The history's newest entries: what learn/refinement/history and REST answer."""
    return History(entries=history_entries(limit=limit))
