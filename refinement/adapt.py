"""learn/adapt: plan → review → apply → stats inside the host, within a trust region.

Each weight moves toward the strategy's target by at most the step the auto-apply risk allows;
the rest of the way is filed as a plan that a reviewer may apply at once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson
from django.conf import settings
from django.db import connection, models, transaction

from core.accounts.roles import Action
from core.columns import Columns
from core.projects.selection import project_pk
from core.timing import stage, staged
from feedback.selectors import candidate_sets, component_records, spoken_for
from learnportal_protocol.errors import forbidden, not_found
from refinement import store
from refinement.evidence import components, load_evidence_sets, skipped_note
from refinement.history import history_record
from refinement.models import OPEN_PROPOSAL, Plan, Proposal, ProposalStatus, Refinement, Review
from refinement.paths import UNWEIGHTED, Location, Target, weight_path
from refinement.permissions import by_person
from refinement.proposals import ProposalInput
from refinement.review import recently_rolled_back, weight_step_risk
from refinement.services.edits import Edit, edits_apply, locked, new_id
from refinement.services.plans import plan_settle
from refinement.services.register import proposal_wire
from refinement.strategies import validate_target
from refinement.strategies.base import relative_to_best
from refinement.strategy_registry import REPLAY_STRATEGIES, strategy_for, strategy_params
from refinement.trust_region import changes_weight, max_step, step_toward, weight_rounded
from refinement.trust_window import changes_exhausted, changes_wait
from refinement.vocabulary import PlanStatus, ReviewKind

if TYPE_CHECKING:
    from core.accounts.principals import Principal

SETTLED = 1e-3  # a weight this close to its target needs no plan for the rest of the way
NOT_YOURS = (
    "is another principal's component: an agent adapts the components it reported calls of "
    "first; an environment (LEARNPORTAL_SPEAK_FOR_ALL_ROLES) adapts any."
)
NOT_YOURS_ALL = "An agent adapts the components it reported calls of first."


@dataclass(frozen=True)
class WeightStep:
    component: str
    before: float
    after: float
    reason: str

    @property
    def proposal(self) -> ProposalInput:
        return ProposalInput(
            target=Target.ROUTER_WEIGHT,
            op="update",
            path=weight_path(self.component),
            old_value=self.before,
            new_value=self.after,
            reason=self.reason,
        )

    @property
    def edit(self) -> Edit:
        location = Location(
            Target.ROUTER_WEIGHT, weight_path(self.component), component=self.component
        )
        return Edit(location, self.before, self.after)


@dataclass
class AdaptOutcome:
    updated: list[dict[str, Any]] = field(default_factory=list)
    message: str = ""
    plan_id: str = ""


def targets_for(project: int, strategy: str, names: list[str]) -> dict[str, float]:
    """Each component's target weight: the strategy's traffic share over the top share of its
    candidate set.

    A runtime chooses among its own candidates in proportion to their weights, so only ratios
    within one runtime's candidates matter. The strategy answers with a distribution over each
    candidate set (one owner's components, feedback.attribution.candidate_sets), and the host
    stores it relative to that set's most favoured component (which gets 1.0;
    `relative_to_best`): another agent's strong component never squeezes a new agent's
    components together near 0, where their order would be lost to rounding.
    """
    weights = store.routing_weights()
    groups = candidate_sets(project, names)
    with stage("read: the evidence (`load_evidence_sets`)"):
        sets = load_evidence_sets(project, groups, weights, replay=strategy in REPLAY_STRATEGIES)
    targets: dict[str, float] = {}
    for group, evidence in zip(groups, sets, strict=True):
        with stage("strategy"):
            proposed = strategy_for(strategy)(evidence, strategy_params())
        target = validate_target(proposed, len(group))
        targets.update(zip(group, map(float, relative_to_best(target)), strict=True))
    return targets


def adapt_run(*, principal: Principal, component_name: str, strategy: str) -> AdaptOutcome:
    principal.require(Action.ADAPT)
    strategy_for(strategy)  # refuse a disallowed strategy before any work
    project = project_pk(principal.project)
    with stage("read: the components"):
        names, skipped = components(project)
    if component_name and component_name in skipped:
        return AdaptOutcome(message=f"Nothing to adapt. {skipped_note([component_name])}")
    if component_name and component_name not in names:
        raise not_found(f"No component named {component_name!r} has any data yet.")
    note = "" if component_name else skipped_note(skipped)
    if not names:
        nothing = "No component has any calls or feedback yet; nothing to adapt."
        return AdaptOutcome(message=f"{nothing} {note}".strip())
    names = spoken_for(principal, names)
    if component_name and component_name not in names:
        raise forbidden(
            f"{component_name!r} {NOT_YOURS}",
            [{"loc": ["component_name"], "msg": f"not yours: {NOT_YOURS}"}],
        )
    if not names:
        nothing = f"None of the components with data is yours; nothing to adapt. {NOT_YOURS_ALL}"
        return AdaptOutcome(message=f"{nothing} {note}".strip())
    targets = targets_for(project, strategy, names)
    chosen = [component_name] if component_name else names
    limit = settings.LEARNPORTAL_AUTO_APPLY_MAX_RISK
    now = time.time()
    with transaction.atomic():
        plan = Plan.objects.create(
            plan_id=new_id("plan"),
            origin="adapt",
            component_name=component_name,
            scope=strategy,
            requested_by=principal.key,
            status=PlanStatus.READY,
            created=time.time(),
        )
        weights = store.routing_weights()
        # A weight rolled back lately is medium risk at least: above a low limit, no step by itself.
        with stage("apply: `recently_rolled_back`"):
            held = recently_rolled_back([weight_path(name) for name in chosen])
        # A weight machines changed LEARNPORTAL_PATH_CHANGES_MAX times lately waits for a person.
        busy = (
            set()
            if by_person(principal)
            else changes_exhausted([weight_path(name) for name in chosen], now=now)
        )
        steps, rests = [], []
        for name in chosen:
            current, target = weights.get(name, UNWEIGHTED), weight_rounded(targets[name])
            path = weight_path(name)
            step = 0.0 if path in busy else max_step(limit, rolled_back_lately=path in held)
            new = step_toward(current, target, step)
            if changes_weight(current, new):
                steps.append(WeightStep(name, current, new, f"{strategy} step toward {target}"))
            if abs(target - new) > SETTLED:
                why = changes_wait(path) if path in busy else "beyond the auto-apply step"
                rests.append(WeightStep(name, new, target, f"{strategy} target, {why}"))
        superseded = _supersede_pending([weight_path(name) for name in chosen], plan)
        if steps:
            weights_apply(principal, plan, steps)
        proposals_file(principal, plan, rests, status=ProposalStatus.PENDING)
        with stage("apply: `plan_settle` of superseded plans"):
            for older in superseded:  # plans last, in the one lock order (refinement.services)
                plan_settle(older)
        moves = [
            (s.component, s.before, s.after, weight_rounded(targets[s.component])) for s in steps
        ]
        waiting = [(r.component, r.before, r.after) for r in rests]
        plan.status = (
            PlanStatus.READY if waiting else (PlanStatus.DONE if moves else PlanStatus.EMPTY)
        )
        plan.summary = f"{_message(strategy, moves, waiting, plan.plan_id)} {note}".strip()
        plan.save(update_fields=["status", "summary"])
        history_record(
            "adapt",
            principal.key,
            project=principal.project,
            plan_id=plan.plan_id,
            message=plan.summary,
            diff=[{"component": n, "before": c, "after": w, "target": t} for n, c, w, t in moves],
        )
        if rests:  # filed for a reviewer, as every plan is: in the history, and `plan.filed`
            history_record(
                "plan",
                principal.key,
                project=principal.project,
                plan_id=plan.plan_id,
                message=plan.summary,
                diff=[proposal_wire(p) for p in plan.proposals.order_by("id")],
            )
    moved = {name for name, *_ in moves}
    weights = store.routing_weights()
    with stage("apply: `component_records` for the answer"):
        records = component_records(project)
    updated = [
        {**record, "weight": weights.get(record["component_name"], UNWEIGHTED)}
        for record in records
        if record["component_name"] in moved
    ]
    return AdaptOutcome(updated=updated, message=plan.summary, plan_id=plan.plan_id)


@staged("apply: `_supersede_pending`")
def _supersede_pending(paths: list[str], plan: Plan) -> list[Plan]:
    """Older adapts' remaining steps for these weights are stale now; only the newest counts.

    Rejects them, their rows locked first and in id order; returns their plans, to settle last.
    """
    stale = locked(
        Proposal.objects.filter(
            path__in=paths,
            plan__origin="adapt",
            status__in=OPEN_PROPOSAL - {ProposalStatus.QUEUED},
        )
        .exclude(plan=plan)
        .order_by("id")
    )
    ids = list(stale.values_list("id", flat=True))
    plans = list(Plan.objects.filter(proposals__id__in=ids).distinct().order_by("id"))
    Proposal.objects.filter(id__in=ids).update(
        status=ProposalStatus.REJECTED, reason=f"superseded by {plan.plan_id}"
    )
    return plans


def _message(
    strategy: str,
    moves: list[tuple[str, float, float, float]],
    waiting: list[tuple[str, float, float]],
    plan_id: str,
) -> str:
    if not moves and not waiting:
        return f"Adapted routing weights using {strategy.upper()}: every weight is at its target."
    shown = "; ".join(f"{n} {c:.3f}→{w:.3f} (target {t:.3f})" for n, c, w, t in moves[:5])
    more = f" and {len(moves) - 5} more" if len(moves) > 5 else ""
    text = f"Adapted routing weights using {strategy.upper()}: moved {len(moves)}"
    text += f": {shown}{more}." if moves else " (the auto-apply risk allows no step)."
    if waiting:
        text += (
            f" {len(waiting)} weights wait for a reviewer in {plan_id} to go the rest of the way."
        )
    return text


def weights_apply(principal: Principal, plan: Plan, steps: list[WeightStep]) -> Refinement:
    """Apply the steps as one refinement of `plan`, each filed as an applied proposal with its
    automatic review; `conflict` if a weight moved since adapt read it.

    Going through the one-proposal apply for each cost about 26 queries a weight
    (`git show 9ed4347:BENCHMARKS.md`); `edits_apply` does all of them in a handful of statements, and the whole
    adapt rolls back as one refinement.
    """
    with stage("apply: `edits_apply`, its own statements"):
        refinement = edits_apply(
            principal,
            plan,
            [step.edit for step in steps],
            message=f"{len(steps)} routing weights moved within the trust region",
            stale="Routing weights changed while adapting; adapt again.",
            stale_loc=("component_name",),
        )
    proposals_file(principal, plan, steps, status=ProposalStatus.APPLIED)
    return refinement


@staged("apply: `proposals_file` (proposals + reviews)")
def proposals_file(
    principal: Principal, plan: Plan, steps: list[WeightStep], *, status: ProposalStatus
) -> None:
    """Store weight proposals of `plan` with their automatic reviews, in three statements.

    Through the cursor: building a thousand model instances of each and `bulk_create`'s
    per-field preparation were most of an adapt's time (`git show 9ed4347:BENCHMARKS.md`, adapt).
    """
    if not steps:
        return
    now = time.time()
    ids = [new_id("prop") for _ in steps]
    proposals: list[tuple[Any, ...]] = []
    reviews: list[tuple[Any, ...]] = []
    for proposal_id, step in zip(ids, steps, strict=True):
        proposal = step.proposal
        level, reason = weight_step_risk(step.before, step.after)
        proposals.append(
            (
                proposal_id,
                plan.pk,
                proposal.target.value,
                "update",
                proposal.path,
                _json(step.before),
                _json(step.after),
                step.reason,
                "",
                proposal.content_hash,
                level,
                status.value,
                principal.key,
                now,
            )
        )
        reasons = _json([reason] if reason else [])
        auto = (ReviewKind.AUTO.value, True, level, reasons, False, principal.key)
        reviews.append((*auto, proposal.content_hash, "", now))
    _insert(Proposal, PROPOSAL_COLUMNS, proposals)
    found = dict(Proposal.objects.filter(plan=plan).values_list("proposal_id", "pk"))
    _insert(
        Review,
        REVIEW_COLUMNS,
        [(found[proposal_id], *review) for proposal_id, review in zip(ids, reviews, strict=True)],
    )


PROPOSAL_COLUMNS = Columns(Proposal)(
    "proposal_id",
    "plan",
    "target",
    "op",
    "path",
    "old_value",
    "new_value",
    "reason",
    "step_id",
    "content_hash",
    "risk_level",
    "status",
    "requested_by",
    "created",
)
REVIEW_COLUMNS = Columns(Review)(
    "proposal",
    "kind",
    "approved",
    "risk_level",
    "reasons",
    "confidence_adjusted",
    "reviewer",
    "proposal_hash",
    "note",
    "ts",
)


def _json(value: Any) -> str | None:
    """A nullable JSON column's value as the driver takes it (None: SQL NULL, as the ORM saves
    it). Text: SQLite stores it as is, PostgreSQL casts the untyped literal to jsonb."""
    return None if value is None else orjson.dumps(value).decode()


def _insert(model: type[models.Model], columns: tuple[str, ...], rows: list[Any]) -> None:
    qn = connection.ops.quote_name
    names = ", ".join(qn(c) for c in columns)
    marks = ", ".join(["%s"] * len(columns))
    with connection.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {qn(model._meta.db_table)} ({names}) VALUES ({marks})", rows
        )
