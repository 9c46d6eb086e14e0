"""Read-only queries over refinements that pages may use; the services own every write."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db.models import Case, Count, Exists, IntegerField, Max, OuterRef, Q, Value, When

from learnportal_protocol.models import INT64
from refinement import store
from refinement.answers import Routing
from refinement.models import (
    APPLIED_REFINEMENT,
    AWAITING_REVIEW,
    OPEN_PROPOSAL,
    HistoryEntry,
    HistoryPath,
    Plan,
    Proposal,
    ProposalStatus,
    Refinement,
    RefinementStatus,
    Revision,
)
from refinement.paths import UNWEIGHTED, WEIGHT_PREFIX
from refinement.proposal_ids import stored_proposal
from refinement.vocabulary import RiskLevel

if TYPE_CHECKING:
    from collections.abc import Mapping

    from django.db.models import QuerySet

CHAIN_LIMIT = 50


def routing_read(project: int) -> Routing:
    """The project's current routing weights, as a runtime's component selection reads them.

    Relative traffic shares (the most favoured component at 1.0, `refinement.adapt.targets_for`):
    a runtime picks among its candidates in proportion to them (README, "Routing weights").
    """
    return Routing(weights=store.routing_weights(project), updated=store.routing_updated(project))


def rollback_chain(refinement: Refinement) -> list[Refinement]:
    """The refinement, its rollback, the rollback of that and so on, oldest first.

    The last one may be a rollback queued for a reviewer.
    """
    chain = [refinement]
    while len(chain) < CHAIN_LIMIT:
        undo = Refinement.objects.filter(rollback_of=chain[-1]).first()
        if undo is None:
            break
        chain.append(undo)
    return chain


def plan_refinements(project: int, plan_id: str) -> list[Refinement]:
    """A plan's refinements that no one proposal stands for (an adapt's bulk step), oldest first."""
    return list(
        Refinement.objects.filter(
            project=project, plan__plan_id=plan_id, proposal__isnull=True, rollback_of__isnull=True
        ).order_by("ts", "id")
    )


def queued_rollbacks(project: int, *, limit: int = 50) -> list[Refinement]:
    """Machines' rollbacks in the project waiting for a reviewer, oldest first, whatever plan
    they belong to."""
    return list(
        Refinement.objects.filter(
            project=project, status=RefinementStatus.QUEUED, rollback_of__isnull=False
        )
        .select_related("rollback_of", "plan")
        .order_by("ts", "id")[:limit]
    )


def proposal_refinements(proposals: list[Proposal]) -> dict[str, Refinement]:
    """Each proposal's latest applied or rolled-back refinement, by proposal id (the proposals
    of one plan, whose ids are unique within it)."""
    found: dict[str, Refinement] = {}
    rows = (
        Refinement.objects.filter(proposal__in=proposals, status__in=APPLIED_REFINEMENT)
        .select_related("proposal")
        .order_by("ts", "id")
    )
    for refinement in rows:
        if refinement.proposal is not None:  # as filtered: said again for the type checker
            found[refinement.proposal.proposal_id] = refinement
    return found


RISK_ORDER = list(RiskLevel)


def plan_rows(project: int, *, status: str = "", limit: int) -> list[dict[str, Any]]:
    """The project's newest plans (of one status, if given) with their proposals counted and
    their highest risk, in one query."""
    risk_rank = Case(
        *[When(proposals__risk_level=r.value, then=Value(i)) for i, r in enumerate(RISK_ORDER)],
        default=Value(0),
        output_field=IntegerField(),
    )
    plans = Plan.objects.filter(project=project).order_by("-created", "-id")
    if status:
        plans = plans.filter(status=status)
    rows = plans.annotate(
        proposal_count=Count("proposals"),
        open_count=Count("proposals", filter=Q(proposals__status__in=OPEN_PROPOSAL)),
        applied_count=Count("proposals", filter=Q(proposals__status=ProposalStatus.APPLIED)),
        risk_rank=Max(risk_rank),
    ).values(
        "plan_id",
        "origin",
        "component_name",
        "status",
        "requested_by",
        "summary",
        "created",
        "proposal_count",
        "open_count",
        "applied_count",
        "risk_rank",
    )[:limit]
    return [
        {**row, "risk_level": RISK_ORDER[row["risk_rank"]].value if row["proposal_count"] else ""}
        for row in rows
    ]


def plan_proposals(project: int, plan_id: str) -> list[Proposal]:
    """A plan's proposals in the order they were filed, with their plan."""
    return list(
        Proposal.objects.filter(project=project, plan__plan_id=plan_id)
        .select_related("plan")
        .order_by("id")
    )


def plan_proposal(
    project: int, plan_id: str, proposal_id: str, *, requested_by: str = ""
) -> Proposal:
    """One proposal of a plan (`NO_PLAN` for a proposal of none, which its requester names
    where several principals use the id); refused `not_found` or `invalid` as
    `proposal_ids.stored_proposal` says."""
    rows = Proposal.objects.select_related("plan")
    return stored_proposal(rows, project, proposal_id, requested_by=requested_by, plan_id=plan_id)


def refinement_get(project: int, refinement_id: str) -> Refinement | None:
    """The project's refinement of this id, if it has one."""
    return (
        Refinement.objects.select_related("plan", "proposal", "rollback_of")
        .filter(project=project, refinement_id=refinement_id)
        .first()
    )


def queued_rollback_of(refinement: Refinement) -> Refinement | None:
    """The rollback of this refinement that waits for a reviewer, if one does."""
    return Refinement.objects.filter(rollback_of=refinement, status=RefinementStatus.QUEUED).first()


@dataclass(frozen=True)
class HistoryCursor:
    """Where a page of the history starts: an entry's time and id (keyset, never OFFSET)."""

    ts: float
    id: int

    def __str__(self) -> str:
        return f"{self.ts!r}_{self.id}"

    @classmethod
    def of(cls, entry: HistoryEntry) -> HistoryCursor:
        return cls(entry.ts, entry.pk)

    @classmethod
    def parse(cls, text: str) -> HistoryCursor | None:
        """A cursor from a URL; None for none or a malformed one (which shows the newest)."""
        ts, _, pk = text.partition("_")
        try:
            cursor = cls(float(ts), int(pk))
        except ValueError:
            return None
        fits = math.isfinite(cursor.ts) and -INT64 <= cursor.id <= INT64  # what a row id holds
        return cursor if fits else None


FILTER_MAX_LENGTH = 400


@dataclass(frozen=True)
class HistoryFilters:
    """The history page's filters, from its GET parameters; blank means any."""

    path: str = ""  # a path, or the start of one (learnings/_global/)
    actor: str = ""  # user:NAME, token:NAME, or a bare NAME for either
    kind: str = ""
    refinement: str = ""

    @classmethod
    def of(cls, params: Mapping[str, str]) -> HistoryFilters:
        values = {
            name: str(params.get(name, "")).strip()[:FILTER_MAX_LENGTH]
            for name in ("path", "actor", "kind", "refinement")
        }
        return cls(**values)

    def query(self) -> str:
        from urllib.parse import urlencode

        return urlencode({k: v for k, v in self.__dict__.items() if v})

    def apply(self, rows: QuerySet[HistoryEntry]) -> QuerySet[HistoryEntry]:
        if self.path:
            rows = rows.filter(
                Exists(HistoryPath.objects.filter(entry=OuterRef("pk"), path__startswith=self.path))
            )
        if self.actor:
            names = [self.actor]
            if ":" not in self.actor:
                names += [f"user:{self.actor}", f"token:{self.actor}"]
            rows = rows.filter(actor__in=names)
        if self.kind:
            rows = rows.filter(kind=self.kind)
        if self.refinement:
            rows = rows.filter(refinement_id=self.refinement)
        return rows


def history_page(
    project: int,
    filters: HistoryFilters,
    *,
    before: HistoryCursor | None = None,
    after: HistoryCursor | None = None,
    size: int,
) -> tuple[list[HistoryEntry], str, str]:
    """One page of the project's filtered history, newest first, and the cursors of the pages
    older and newer than it ("" where there is none)."""
    rows = filters.apply(HistoryEntry.objects.filter(project=project))
    if after is not None:
        chunk = list(
            rows.filter(Q(ts__gt=after.ts) | Q(ts=after.ts, id__gt=after.id)).order_by("ts", "id")[
                : size + 1
            ]
        )
        newer = str(HistoryCursor.of(chunk[size - 1])) if len(chunk) > size else ""
        page = chunk[:size][::-1]
        return page, str(HistoryCursor.of(page[-1])) if page else "", newer
    if before is not None:
        rows = rows.filter(Q(ts__lt=before.ts) | Q(ts=before.ts, id__lt=before.id))
    chunk = list(rows.order_by("-ts", "-id")[: size + 1])
    page = chunk[:size]
    older = str(HistoryCursor.of(page[-1])) if len(chunk) > size else ""
    newer = str(HistoryCursor.of(page[0])) if before is not None and page else ""
    return page, older, newer


def history_links(refinement_ids: list[str]) -> dict[str, dict[str, str]]:
    """For each refinement, the rollback that undid it and the refinement it undoes, if any."""
    rows = Refinement.objects.filter(refinement_id__in=set(refinement_ids)).values(
        "refinement_id", "rollback_of__refinement_id", "rolled_back_by__refinement_id"
    )
    return {
        row["refinement_id"]: {
            "rolls_back": row["rollback_of__refinement_id"] or "",
            "rolled_back_by": row["rolled_back_by__refinement_id"] or "",
        }
        for row in rows
    }


def awaiting_review_count(project: int) -> int:
    """The project's proposals awaiting review (`AWAITING_REVIEW`): pending, or queued for a
    reviewer."""
    return Proposal.objects.filter(project=project, status__in=AWAITING_REVIEW).count()


@dataclass(frozen=True)
class WeightChange:
    """One applied change of a component's routing weight, and the refinement that made it."""

    ts: float
    before: float
    after: float
    actor: str
    refinement_id: str
    plan_id: str
    is_rollback: bool


def _weight(value: object) -> float:
    return float(value) if isinstance(value, int | float) else UNWEIGHTED


def weight_history(project: int, component_name: str, *, limit: int) -> list[WeightChange]:
    """The newest `limit` changes of the project's component's weight, oldest first: one range
    of the revisions' (project, path, ts) index, however many adapts there were."""
    rows = (
        Revision.objects.filter(project=project, path=WEIGHT_PREFIX + component_name)
        .order_by("-ts", "-id")
        .values_list(
            "ts",
            "before",
            "after",
            "actor",
            "refinement__refinement_id",
            "refinement__plan__plan_id",
            "refinement__rollback_of_id",
        )[:limit]
    )
    changes = [
        WeightChange(
            ts=ts,
            before=_weight(before),
            after=_weight(after),
            actor=actor,
            refinement_id=refinement_id or "",
            plan_id=plan_id or "",
            is_rollback=rollback_of is not None,
        )
        for ts, before, after, actor, refinement_id, plan_id, rollback_of in list(rows)[::-1]
    ]
    return changes


def component_weight(project: int, component_name: str) -> float:
    """The weight in force in the project (0.5 for a component never weighted)."""
    return store.routing_weights_of(project, [component_name]).get(component_name, UNWEIGHTED)
