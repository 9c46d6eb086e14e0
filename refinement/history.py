"""The audit trail of a project: who did what to which plan, proposal and refinement, and the
diff."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import orjson
from django.conf import settings
from django.db.models import Q

from core.accounts.roles import Action
from core.events import broadcast_on_commit
from core.projects.selection import project_pk
from core.timing import staged
from learnportal_protocol.errors import ErrorCode, LearnError, detail
from learnportal_protocol.messages import HISTORY_PAGE_MAX, History
from refinement.models import HistoryEntry, HistoryPath, Proposal
from refinement.selectors import HistoryCursor, awaiting_review_count

if TYPE_CHECKING:
    from core.accounts.principals import Principal

HISTORY_LIMIT = HISTORY_PAGE_MAX
HISTORY_CHUNK = 20  # entries read at once: each may hold whole files


@staged("`history_record`")
def history_record(
    kind: str,
    principal: Principal,
    *,
    plan_id: str = "",
    proposal_id: str = "",
    proposal: Proposal | None = None,
    refinement_id: str = "",
    message: str = "",
    diff: list[dict[str, Any]] | None = None,
) -> HistoryEntry:
    """One entry of the trail of the project `principal` acts in, by them, broadcast in that
    project; `proposal` is the stored proposal it is about, if any (its id alone would not do:
    ids are each principal's own)."""
    if proposal is not None:
        proposal_id = proposal.proposal_id
    project = project_pk(principal.project)
    entry = HistoryEntry.objects.create(
        project_id=project,
        kind=kind,
        actor=principal.key,
        ts=time.time(),
        plan_id=plan_id,
        proposal_id=proposal_id,
        refinement_id=refinement_id,
        message=message,
        diff=diff or [],
    )
    paths = entry_paths(entry.diff)
    if not paths and proposal is not None:  # a review or a decision names its proposal only
        paths = [proposal.path]
    HistoryPath.objects.bulk_create([HistoryPath(entry=entry, path=path) for path in paths])
    broadcast_on_commit(
        f"refinement.{kind}",
        entry.as_entry(),
        project=principal.project,
        audience=Action.HISTORY,
        totals=lambda: {"pending_proposals": awaiting_review_count(project)},
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


def history_entries(
    project: int, *, limit: int = HISTORY_LIMIT, offset: int = 0
) -> list[dict[str, Any]]:
    """The project's, newest first; `offset` pages further back."""
    entries = HistoryEntry.objects.filter(project=project).order_by("-ts", "-id")
    entries = entries[offset : offset + limit]
    return [entry.as_entry() for entry in entries]


def history_read(*, principal: Principal, limit: int = HISTORY_LIMIT, cursor: str = "") -> History:
    """The history's newest entries from `cursor` on: what learn/refinement/history and REST
    answer (to a role that may read it). At most `limit` of them, and no more than LEARNPORTAL_HISTORY_REPLY_BYTES of JSON
    (but always one, which the skill file limit bounds): a short request never costs a reply
    of every file ever written. `next_cursor` is where the next page starts, if any."""
    principal.require(Action.HISTORY)
    rows = HistoryEntry.objects.filter(project=project_pk(principal.project)).order_by("-ts", "-id")
    if cursor:
        before = HistoryCursor.parse(cursor)
        if before is None:
            raise LearnError(
                ErrorCode.INVALID,
                "The cursor names no page of the history.",
                [detail(["cursor"], "not a cursor of the history")],
            )
        rows = rows.filter(Q(ts__lt=before.ts) | Q(ts=before.ts, id__lt=before.id))
    budget = settings.LEARNPORTAL_HISTORY_REPLY_BYTES
    entries: list[dict[str, Any]] = []
    size, last, more = 0, None, False
    for row in rows[: limit + 1].iterator(chunk_size=HISTORY_CHUNK):
        entry = row.as_entry()
        cost = len(orjson.dumps(entry))
        if len(entries) == limit or (entries and size + cost > budget):
            more = True
            break
        entries.append(entry)
        size, last = size + cost, row
    following = str(HistoryCursor.of(last)) if more and last is not None else None
    return History(entries=entries, next_cursor=following)
