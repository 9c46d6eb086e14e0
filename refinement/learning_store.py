"""The learning store (docs/learning-store.md): steps and their gates, reported runs, and the skill files.

Reviewer decisions go through `refinement.services`; this module adds what a runtime and an
operator need beside them. Every write happens in one transaction and leaves a history entry.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db import transaction

from core.accounts.principals import Principal
from core.accounts.roles import Action, Role
from learnportal_protocol.errors import detail, forbidden, invalid, not_found
from refinement import store
from refinement.answers import (
    PlanList,
    PlanState,
    ProposalState,
    RunOutcome,
    SkillEntry,
    SkillFile,
    SkillList,
    StepsState,
    StepState,
)
from refinement.change_text import change_text
from refinement.history import history_record
from refinement.models import Plan, Proposal, Refinement, Revision, Step, StoreValue, Workflow
from refinement.paths import STEP, Location, Target, locate, step_path
from refinement.proposal_ids import own
from refinement.proposals import ProposalInput
from refinement.services.edits import Edit, edits_apply
from refinement.services.plans import plan_file
from refinement.vocabulary import NEEDS_OBJECTIVE, LearningsAccess, lacks_objective

if TYPE_CHECKING:
    from pathlib import Path

LEARNINGS = "learnings/"
STEP_ID = re.compile(rf"^{STEP}$")
READ_ONLY_STEP_FIELDS = frozenset(
    {"step_id", "last_description_hash", "description_hash_runs", "runs_total", "updated"}
)

NEEDS_REVIEW_NOTES = "say in review_notes why the step's learnings are locked"
READ_ONLY = "is metadata the runs keep; it cannot be set"


class OperatorPrincipal(Principal):
    """Someone at the server's shell (a management command); the key names the command."""

    @property
    def key(self) -> str:
        return f"cli:{self.name}"


IMPORTER = OperatorPrincipal(role=Role.ADMIN, name="import", is_human=False)


# Steps and the workflow -------------------------------------------------------------------


def _check_step_id(step_id: str) -> None:
    if not STEP_ID.match(step_id):
        raise invalid(f"{step_id!r} is not a step id.", [detail(["step_id"], "not a step id")])


def step_get(*, step_id: str) -> StepState:
    _check_step_id(step_id)
    return StepState.of(Step.objects.filter(step_id=step_id).first(), step_id)


def _workflow() -> Workflow:
    return Workflow.objects.order_by("pk").first() or Workflow.objects.create()


def steps_list() -> StepsState:
    workflow = Workflow.objects.order_by("pk").first()
    return StepsState(
        global_skill_objective=workflow.global_skill_objective if workflow else "",
        steps=[StepState.of(step, step.step_id) for step in Step.objects.order_by("step_id")],
    )


def workflow_update(*, principal: Principal, global_skill_objective: str) -> StepsState:
    principal.require(Action.MANAGE_STEPS)
    with transaction.atomic():
        workflow = _workflow()
        before = workflow.global_skill_objective
        if before != global_skill_objective:
            workflow.global_skill_objective = global_skill_objective
            workflow.updated = time.time()
            workflow.save()
            history_record(
                "workflow",
                principal.key,
                project=principal.project,
                message="global_skill_objective changed",
                diff=[
                    {
                        "path": "workflow.global_skill_objective",
                        "before": before,
                        "after": global_skill_objective,
                    }
                ],
            )
    return steps_list()


STEP_SETTINGS = ("learnings_access", "learning_objective", "lock_learnings")


def step_update(*, principal: Principal, step_id: str, changes: dict[str, Any]) -> StepState:
    """An admin sets a step's gates; `changes` holds only the fields sent.

    The change of its settings is a refinement like any other (`edits_apply`): one refinement
    of the fields that changed, a revision each and an `apply` entry in the history, so that it
    can be rolled back. `review_notes` (why the step is locked) is a note beside the settings,
    kept as sent.
    """
    principal.require(Action.MANAGE_STEPS)
    _check_step_id(step_id)
    sent_read_only = sorted(READ_ONLY_STEP_FIELDS & changes.keys())
    if sent_read_only:
        raise invalid(
            f"{', '.join(sent_read_only)} {READ_ONLY}.",
            [detail([name], READ_ONLY) for name in sent_read_only],
        )
    with transaction.atomic():
        locations = [_step_location(step_id, name) for name in STEP_SETTINGS]
        current = store.read_many(locations, lock=True)  # creates and locks the step's row
        step = Step.objects.get(step_id=step_id)
        before = StepState.of(step, step_id).model_dump()
        after = {**before, **changes}
        _check_step_settings(step_id, before, after, changes)
        edits = [
            Edit(location, before[location.field], after[location.field])
            for location in locations
            if location.field in changes and before[location.field] != after[location.field]
        ]
        if "review_notes" in changes and changes["review_notes"] != step.review_notes:
            step.review_notes = changes["review_notes"]
            step.save(update_fields=["review_notes"])
        if edits:
            edits_apply(
                principal,
                None,
                edits,
                message=f"step {step_id}: "
                + "; ".join(
                    f"{e.location.field} {change_text(e.path, e.before, e.after)}" for e in edits
                )
                + (
                    f" (review notes: {step.review_notes})"
                    if step.review_notes and after["lock_learnings"]
                    else ""
                ),
                current=current,
                stale_loc=("step_id",),
            )
    return StepState.of(Step.objects.get(step_id=step_id), step_id)


def _step_location(step_id: str, name: str) -> Location:
    location = locate(Target.STEP_CONFIG, step_path(step_id, name))
    assert location is not None  # a checked step id and a known field: always a step path
    return location


def _check_step_settings(
    step_id: str, before: dict[str, Any], after: dict[str, Any], changes: dict[str, Any]
) -> None:
    if after["learnings_access"] not in set(LearningsAccess):
        words = ", ".join(LearningsAccess)
        raise invalid(
            f"learnings_access is one of {words}.",
            [detail(["learnings_access"], f"must be one of {words}")],
        )
    if lacks_objective(after["learnings_access"], after["learning_objective"]):
        raise invalid(
            f"Step {step_id}: {NEEDS_OBJECTIVE}.", [detail(["learning_objective"], "required")]
        )
    locking = after["lock_learnings"] and not before["lock_learnings"]
    if locking and not str(changes.get("review_notes", "")).strip():
        raise invalid(
            f"Step {step_id}: {NEEDS_REVIEW_NOTES}.", [detail(["review_notes"], "required")]
        )


def step_refinements(*, step_id: str, limit: int = 50) -> list[Refinement]:
    """The refinements that changed this step's settings, newest first (for its page)."""
    _check_step_id(step_id)
    ids = (
        Revision.objects.filter(path__startswith=f"steps.{step_id}.", refinement__isnull=False)
        .values_list("refinement_id", flat=True)
        .distinct()
    )
    return list(
        Refinement.objects.filter(pk__in=ids)
        .select_related("rollback_of")
        .order_by("-ts", "-id")[:limit]
    )


# Runs -------------------------------------------------------------------------------------


def description_hash(description: str) -> str:
    return hashlib.sha256(description.strip().encode()).hexdigest()


def _why_no_edit(step: Step, edits: list[ProposalInput]) -> str:
    if step.learnings_access != LearningsAccess.READ_WRITE:
        return f"step {step.step_id} has learnings_access '{step.learnings_access}'"
    if lacks_objective(step.learnings_access, step.learning_objective):
        return f"step {step.step_id} has no learning_objective"
    if step.lock_learnings:
        return f"step {step.step_id} is locked: {step.review_notes}"
    if not edits:
        return "the run sent no edits"
    return ""


def _check_edits(principal: Principal, step_id: str, edits: list[ProposalInput]) -> None:
    for index, edit in enumerate(edits):
        if edit.target is not Target.SKILL_FILE:
            raise invalid(
                f"edits[{index}] is a {edit.target.value}; a run may only propose skill_file edits.",
                [detail(["edits", index, "target"], "must be skill_file")],
            )
        folder = edit.location.step_id
        if folder and folder != step_id:
            raise invalid(
                f"edits[{index}] writes into step {folder}'s folder, not {step_id}'s.",
                [detail(["edits", index, "path"], f"not a path step {step_id} may write")],
            )
        if (
            edit.proposal_id
            and Proposal.objects.filter(own(principal), proposal_id=edit.proposal_id).exists()
        ):
            raise invalid(
                f"edits[{index}] reuses proposal_id {edit.proposal_id!r}; a run files new ones.",
                [detail(["edits", index, "proposal_id"], "already used")],
            )


def run_report(
    *, principal: Principal, step_id: str, description: str, edits: list[ProposalInput]
) -> RunOutcome:
    """Count the run against its description hash; file its edits when the step may learn."""
    principal.require(Action.REPORT_RUNS)
    _check_step_id(step_id)
    _check_edits(principal, step_id, edits)
    digest = description_hash(description)
    with transaction.atomic():
        step, _ = Step.objects.select_for_update().get_or_create(step_id=step_id)
        same = bool(step.last_description_hash) and step.last_description_hash == digest
        step.description_hash_runs = step.description_hash_runs + 1 if same else 1
        step.last_description_hash = digest
        step.runs_total += 1
        step.updated = time.time()
        step.save(
            update_fields=[
                "description_hash_runs",
                "last_description_hash",
                "runs_total",
                "updated",
            ]
        )
        outcome = RunOutcome(step=StepState.of(step, step_id), reason=_why_no_edit(step, edits))
        if not outcome.reason:
            plan, records = _file_run_plan(principal, step, edits)
            outcome.plan_id = plan.plan_id
            outcome.proposals = [ProposalState.of(r) for r in records]
        history_record(
            "run",
            principal.key,
            project=principal.project,
            plan_id=outcome.plan_id,
            message=f"run of step {step_id} (description run {step.description_hash_runs})"
            + (
                f"; {len(edits)} edits filed" if outcome.plan_id else f"; no edit: {outcome.reason}"
            ),
            diff=[
                {
                    "path": f"steps.{step_id}.description_hash_runs",
                    "before": None,
                    "after": step.description_hash_runs,
                }
            ],
        )
    return outcome


def _file_run_plan(
    principal: Principal, step: Step, edits: list[ProposalInput]
) -> tuple[Plan, list[Proposal]]:
    """The run's edits as one plan, each gated by this step in review."""
    proposals = [edit.model_copy(update={"step_id": step.step_id}) for edit in edits]
    return plan_file(
        principal,
        proposals,
        origin="run",
        summary=f"{len(edits)} learnings edits from a run of step {step.step_id}",
    )


# Plans, for reviewers ---------------------------------------------------------------------


def plan_list(*, principal: Principal, status: str = "", limit: int = 50) -> PlanList:
    principal.require(Action.DECIDE)
    plans = Plan.objects.order_by("-created", "-id")
    if status:
        plans = plans.filter(status=status)
    return PlanList([PlanState.of(plan) for plan in plans[:limit]])


def plan_get(*, principal: Principal, plan_id: str) -> PlanState:
    principal.require(Action.DECIDE)
    plan = Plan.objects.filter(plan_id=plan_id).first()
    if plan is None:
        raise not_found(f"No plan {plan_id!r}.")
    return PlanState.of(plan)


# Skill files ------------------------------------------------------------------------------


def skill_path(path: str) -> str:
    """`_global/SKILL.md` and `learnings/_global/SKILL.md` name the same file."""
    return path if path.startswith(LEARNINGS) else LEARNINGS + path


def _check_step_reads(step_id: str) -> None:
    if not step_id:
        return
    _check_step_id(step_id)
    step = Step.objects.filter(step_id=step_id).first()
    if step and step.learnings_access == LearningsAccess.NONE:
        raise forbidden(f"Step {step_id} has learnings_access 'none'; it reads no learnings.")


def skill_list(*, principal: Principal, step_id: str = "") -> SkillList:
    principal.require(Action.READ_SKILLS)
    _check_step_reads(step_id)
    return SkillList([SkillEntry.of(row) for row in store.skill_files()])


def skill_get(*, principal: Principal, path: str, step_id: str = "") -> SkillFile:
    principal.require(Action.READ_SKILLS)
    _check_step_reads(step_id)
    path = skill_path(path)
    row = StoreValue.objects.filter(path=path, value__isnull=False).first()
    if row is None or row.value is None:  # (never None past the filter; said for the checker)
        raise not_found(f"No learnings file {path!r}.")
    return SkillFile(path=row.path, version=row.version, text=row.value)


METADATA_FILE = ".learning_metadata.json"


def skills_export(*, directory: Path) -> list[Path]:
    """Write every current learnings file, and each step's metadata, under `directory`.

    Refuses paths that would escape it.
    """
    root = directory.resolve()
    files = store.skill_files()
    targets = []
    for row in files:
        target = (root / row.path).resolve()
        if not target.is_relative_to(root) or not isinstance(row.value, str):
            raise invalid(f"{row.path!r} cannot be written under {root}.")
        targets.append((target, row.value))
    for step in Step.objects.order_by("step_id"):
        # The runtime's per-step metadata file (docs/learning-store.md): settings and description-hash evidence.
        metadata = StepState.of(step, step.step_id).model_dump(mode="json", exclude={"updated"})
        target = root / "learnings" / step.step_id / METADATA_FILE
        targets.append((target, json.dumps(metadata, indent=2, sort_keys=True) + "\n"))
    for target, text in targets:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return [target for target, _ in targets]


@dataclass
class ImportOutcome:
    plan_id: str = ""
    proposals: int = 0
    skipped: list[str] = field(default_factory=list)


def skills_read_tree(*, directory: Path) -> tuple[dict[str, str], list[str]]:
    """The learnings files under `directory/learnings`, and what is not a file the store keeps."""
    root = directory.resolve()
    files: dict[str, str] = {}
    skipped: list[str] = []
    for file in sorted((root / "learnings").rglob("*")):
        if not file.is_file() or file.name == METADATA_FILE:
            continue  # metadata is the runtime's evidence, written by export, never imported
        path = file.relative_to(root).as_posix()
        if locate(Target.SKILL_FILE, path) is None or not file.resolve().is_relative_to(root):
            skipped.append(f"{path}: not a learnings path the store keeps")
            continue
        try:
            files[path] = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            skipped.append(f"{path}: not UTF-8 text")
    return files, skipped


def skills_import(*, files: dict[str, str], source: str) -> ImportOutcome:
    """File one plan with a create or update per changed file; nothing applies until reviewed."""
    with transaction.atomic():
        edits = []
        for path, text in sorted(files.items()):
            location = locate(Target.SKILL_FILE, path)
            if location is None:
                raise invalid(f"{path!r} is not a learnings path.", [detail(["path"], path)])
            current = store.read(location)
            if current == text:
                continue
            edits.append(_import_edit(location, current, text, source))
        if not edits:
            return ImportOutcome()
        plan, records = plan_file(
            IMPORTER,
            edits,
            origin="import",
            summary=f"{len(edits)} learnings files imported from {source}",
        )
    return ImportOutcome(plan_id=plan.plan_id, proposals=len(records))


def _import_edit(location: Location, current: Any, text: str, source: str) -> ProposalInput:
    return ProposalInput(
        target=Target.SKILL_FILE,
        op="create" if current is None else "update",
        path=location.path,
        old_value=current,
        new_value=text,
        step_id=location.step_id,
        reason=f"imported from {source}",
    )


@dataclass
class SkillVersions:
    """One learnings file's text now (None once deleted) and every revision of it, newest first."""

    path: str
    text: str | None
    version: int
    revisions: list[Revision]

    def text_at(self, version: int) -> str | None:
        """The file's text at a version (0: before it was created)."""
        for revision in self.revisions:
            if revision.version == version:
                return revision.after if isinstance(revision.after, str) else None
        return None


def skill_versions(*, principal: Principal, path: str) -> SkillVersions:
    principal.require(Action.READ_SKILLS)
    path = skill_path(path)
    if locate(Target.SKILL_FILE, path) is None:
        raise not_found(f"{path!r} is not a learnings path.")
    row = StoreValue.objects.filter(path=path).first()
    revisions = list(
        Revision.objects.filter(path=path).select_related("refinement").order_by("-version", "-id")
    )
    if row is None and not revisions:
        raise not_found(f"No learnings file {path!r}.")
    text = row.value if row is not None and isinstance(row.value, str) else None
    return SkillVersions(path, text, row.version if row else 0, revisions)
