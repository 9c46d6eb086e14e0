"""The automatic review: risk by the rules of docs/contract.md, and whatever refuses approval."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from feedback.selectors import ComponentEvidence, component_evidence, unmeasured_reliance
from refinement import store
from refinement.models import Revision, Step
from refinement.paths import Location, Target
from refinement.proposals import skill_file_bytes
from refinement.trust_region import STEP_LIMIT
from refinement.vocabulary import NEEDS_OBJECTIVE, LearningsAccess, RiskLevel, lacks_objective

if TYPE_CHECKING:
    from refinement.proposals import ProposalInput

SKILL_INDEX_MAX_LINES = 100
# A skill file's risk grows with its size (every agent that loads it pays for it, and a long
# text hides what it changes): medium over the first, high over the second, in UTF-8 bytes.
# The hard limit is LEARNPORTAL_SKILL_FILE_MAX_BYTES (refinement.proposals).
SKILL_FILE_MEDIUM_BYTES, SKILL_FILE_HIGH_BYTES = 16 * 1024, 64 * 1024
RECENT_ROLLBACK_SECONDS = 7 * 24 * 3600
THIN_CALLS, THIN_FEEDBACK = 20, 5
REFERENCES = "learnings/_global/references/"


@dataclass
class Assessment:
    risk_level: RiskLevel = RiskLevel.LOW
    reasons: list[str] = field(default_factory=list)
    risks: list[str] = field(default_factory=list)  # the reasons that raised the risk
    blocking: list[str] = field(default_factory=list)
    conflict: str = ""
    conflict_path: str = ""  # the path whose value moved, when `conflict` says how
    confidence_adjusted: bool = False
    needs_human: bool = False
    current: Any = None

    @property
    def approved(self) -> bool:
        return not self.blocking and not self.conflict

    def raise_risk(self, level: RiskLevel, reason: str) -> None:
        self.risk_level = max(self.risk_level, level)
        self.reasons.append(reason)
        self.risks.append(reason)

    def raise_risk_one_level(self, reason: str) -> None:
        levels = [RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH]
        self.raise_risk(levels[min(levels.index(self.risk_level) + 1, len(levels) - 1)], reason)


def same_value(a: Any, b: Any) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        return abs(a - b) <= 1e-9
    same: bool = a == b
    return same


def describe(value: Any) -> str:
    if isinstance(value, str) and len(value) > 60:
        return repr(value[:57] + "...")
    return "null" if value is None else repr(value)


def assess(proposal: ProposalInput, *, project: int, lock: bool = False) -> Assessment:
    """The automatic review of one proposal in `project` (whose components' evidence it reads);
    with `lock`, its path stays locked (see store)."""
    return assess_all([proposal], project=project, lock=lock)[0]


@dataclass
class Context:
    """What the rules read besides the current values, loaded once for a whole batch."""

    rolled_back: set[str]
    steps: dict[str, Step]
    evidence: dict[str, ComponentEvidence]
    # The components whose feedback rests on judges not measured yet, with those judges.
    unmeasured: dict[str, list[str]] = field(default_factory=dict)
    # The step settings this batch sets, by step: one refinement's edits land together, so a
    # step's gate is judged on all of them (access back to `read` with its objective cleared).
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)


def assess_all(
    proposals: list[ProposalInput], *, project: int, lock: bool = False
) -> list[Assessment]:
    """The automatic review of each proposal in `project` (whose components' evidence it
    reads), in a handful of queries however many there are."""
    locations = [proposal.location for proposal in proposals]
    current = store.read_many(locations, project=project, lock=lock)
    step_ids = {loc.step_id or p.step_id for p, loc in zip(proposals, locations, strict=True)}
    components = {_component(p, loc) for p, loc in zip(proposals, locations, strict=True)}
    context = Context(
        rolled_back=recently_rolled_back(project, [proposal.path for proposal in proposals]),
        steps={
            s.step_id: s for s in Step.objects.filter(project=project, step_id__in=step_ids - {""})
        },
        evidence=component_evidence(project, components - {""}),
    )
    context.unmeasured = unmeasured_reliance(
        project, {name: e.feedbacks for name, e in context.evidence.items()}
    )
    for proposal, location in zip(proposals, locations, strict=True):
        if location.target is Target.STEP_CONFIG:
            context.settings.setdefault(location.step_id, {})[location.field] = proposal.new_value
    results = []
    for proposal, location in zip(proposals, locations, strict=True):
        result = Assessment(current=current[location.path])
        if not same_value(proposal.old_value, result.current):
            result.conflict_path = proposal.path
            result.conflict = (
                f"{proposal.path}: expected {describe(proposal.old_value)}, "
                f"found {describe(result.current)}"
            )
        _risk(proposal, location, result, context)
        _gates(proposal, location, result, context)
        _evidence(proposal, location, result, context)
        results.append(result)
    return results


def weight_step_risk(before: float, after: float) -> tuple[RiskLevel, str]:
    """The risk of moving a routing weight, and why when it is above low."""
    # Rounded so that 0.5 → 0.8 is a step of 0.3, not 0.30000000000000004.
    step = round(abs(after - before), 9)
    for level, over in ((RiskLevel.HIGH, RiskLevel.MEDIUM), (RiskLevel.MEDIUM, RiskLevel.LOW)):
        if step > STEP_LIMIT[over]:
            return level, f"moves the weight by {step:.3f} (over {STEP_LIMIT[over]})"
    return RiskLevel.LOW, ""


def recently_rolled_back(project: int, paths: list[str]) -> set[str]:
    """The paths among these of the project that a rollback wrote in the last 7 days."""
    since = time.time() - RECENT_ROLLBACK_SECONDS
    return set(
        Revision.objects.filter(
            project=project, path__in=paths, ts__gte=since, refinement__rollback_of__isnull=False
        ).values_list("path", flat=True)
    )


def _risk(
    proposal: ProposalInput, location: Location, result: Assessment, context: Context
) -> None:
    if location.target is Target.ROUTER_WEIGHT:
        level, reason = weight_step_risk(float(result.current), float(proposal.new_value))
        if reason:
            result.raise_risk(level, reason)
    elif location.target is Target.STEP_CONFIG:
        result.needs_human = True
        result.raise_risk(
            RiskLevel.HIGH, "changes a step's learning settings: a person must approve it"
        )
    else:
        if proposal.op == "delete":
            result.raise_risk(RiskLevel.HIGH, f"deletes {proposal.path}")
        if location.is_code:
            result.raise_risk(RiskLevel.HIGH, f"edits code that runs ({proposal.path})")
        size = skill_file_bytes(proposal.new_value)
        for level, limit in (
            (RiskLevel.HIGH, SKILL_FILE_HIGH_BYTES),
            (RiskLevel.MEDIUM, SKILL_FILE_MEDIUM_BYTES),
        ):
            if size > limit:
                result.raise_risk(level, f"{proposal.path} would be {size} bytes (over {limit})")
                break
        if location.is_skill_index and isinstance(proposal.new_value, str):
            lines = proposal.new_value.count("\n") + 1
            if lines > SKILL_INDEX_MAX_LINES:
                result.raise_risk(
                    RiskLevel.MEDIUM,
                    f"SKILL.md would have {lines} lines; keep it a short index under "
                    f"{SKILL_INDEX_MAX_LINES} and move detail to references/",
                )
    if proposal.path in context.rolled_back:
        result.raise_risk(RiskLevel.MEDIUM, f"{proposal.path} was rolled back in the last 7 days")


def _gates(
    proposal: ProposalInput, location: Location, result: Assessment, context: Context
) -> None:
    if location.target is Target.STEP_CONFIG:
        current = context.steps.get(location.step_id) or Step(step_id=location.step_id)
        after = {
            "learnings_access": current.learnings_access,
            "learning_objective": current.learning_objective,
            **context.settings.get(location.step_id, {}),
            location.field: proposal.new_value,
        }
        if lacks_objective(after["learnings_access"], after["learning_objective"]):
            result.blocking.append(f"step {location.step_id}: {NEEDS_OBJECTIVE}")
        return
    if location.target is not Target.SKILL_FILE:
        return
    step_id = location.step_id or proposal.step_id
    if not step_id:
        return
    step = context.steps.get(step_id)
    access = step.learnings_access if step else LearningsAccess.READ
    if access != LearningsAccess.READ_WRITE:
        result.blocking.append(
            f"step {step_id} has learnings_access '{access}'; only a read-write step may write "
            "learnings"
        )
    if step and step.lock_learnings:
        note = f": {step.review_notes}" if step.review_notes else ""
        result.blocking.append(f"step {step_id} has lock_learnings set{note}")


def _component(proposal: ProposalInput, location: Location) -> str:
    """The component whose evidence backs a proposal: a weight's, or a reference's topic."""
    if location.component:
        return location.component
    if proposal.path.startswith(REFERENCES):
        return proposal.path.removeprefix(REFERENCES).removesuffix(".md")
    return ""


def _evidence(
    proposal: ProposalInput, location: Location, result: Assessment, context: Context
) -> None:
    component = _component(proposal, location)
    if not component:
        return
    evidence = context.evidence.get(component, ComponentEvidence())
    calls, feedbacks = evidence.calls, evidence.feedbacks
    if judges := context.unmeasured.get(component):
        named = ", ".join(judges[:3]) + (f" and {len(judges) - 3} more" if len(judges) > 3 else "")
        result.raise_risk_one_level(
            f"most feedback on {component} comes from judges not yet measured against people "
            f"({named}): one risk level higher"
        )
    if calls < THIN_CALLS and feedbacks < THIN_FEEDBACK:
        result.confidence_adjusted = True
        result.reasons.append(
            f"thin evidence for {component}: {calls} calls and {feedbacks} feedbacks; "
            "confidence lowered"
        )
