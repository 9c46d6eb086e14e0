"""learn/refinement/plan: proposals from accumulated data, each with the real current value."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import transaction

from core.accounts.roles import Action
from core.projects.selection import project_pk
from feedback import selectors
from learnportal_protocol.errors import not_found
from refinement import store
from refinement.adapt import SETTLED, targets_for
from refinement.evidence import components, skipped_note
from refinement.paths import UNWEIGHTED, Target, locate, weight_path
from refinement.proposals import ProposalInput
from refinement.services.plans import plan_file
from refinement.trust_region import weight_rounded

if TYPE_CHECKING:
    from core.accounts.principals import Principal
    from refinement.models import Plan, Proposal

REFERENCE = "learnings/_global/references/{}.md"
MAX_CORRECTIONS = 50


def plan_create(
    *, principal: Principal, component_name: str, scope: str
) -> tuple[Plan, list[Proposal]]:
    principal.require(Action.PLAN)
    project = project_pk(principal.project)
    names, skipped = components(project)
    if component_name and component_name not in names + skipped:
        raise not_found(f"No component named {component_name!r} has any data yet.")
    chosen, left_out = names, skipped
    if component_name:
        usable = component_name in names
        chosen, left_out = ([component_name], []) if usable else ([], [component_name])
    references, unplaced = _reference_proposals(project, chosen)
    proposals = _weight_proposals(project, names, chosen) + references
    summary = f"{len(proposals)} proposals for {component_name or 'all components'}"
    if notes := " ".join(filter(None, [skipped_note(left_out), unplaced])):
        summary += f". {notes}"
    with transaction.atomic():
        plan, records = plan_file(
            principal,
            proposals,
            origin="plan",
            component_name=component_name,
            scope=scope,
            summary=summary,
        )
    return plan, records


def _weight_proposals(project: int, names: list[str], chosen: list[str]) -> list[ProposalInput]:
    strategy = next((s for s in settings.LEARNPORTAL_ADAPT_STRATEGIES if s != "custom"), None)
    if strategy is None or not names:
        return []
    targets = targets_for(project, strategy, names)
    weights = store.routing_weights(project)
    proposals = []
    for name in chosen:
        current, target = weights.get(name, UNWEIGHTED), weight_rounded(targets[name])
        if abs(target - current) > SETTLED:
            proposals.append(
                ProposalInput(
                    target=Target.ROUTER_WEIGHT,
                    op="update",
                    path=weight_path(name),
                    old_value=current,
                    new_value=target,
                    reason=f"{strategy} weighs {name} {target:.3f} of the most favoured component",
                )
            )
    return proposals


def reference_path(name: str) -> str:
    """The references/ file gathering a component's corrections: its name, made a file name."""
    return REFERENCE.format(re.sub(r"[^A-Za-z0-9_.\-]", "-", name).lstrip("._-") or "component")


def _reference_proposals(project: int, chosen: list[str]) -> tuple[list[ProposalInput], str]:
    """The reference files to write from the project's corrections, and a sentence naming
    components that have none."""
    proposals, unplaced, taken = [], [], set()
    for name in chosen:
        path = reference_path(name)
        location = locate(Target.SKILL_FILE, path)
        corrections = selectors.corrections(project, name, MAX_CORRECTIONS)
        if not corrections:
            continue
        if location is None or path in taken:
            # Two names that make one file name (`a b`, `a-b`) would overwrite each other.
            unplaced.append(name)
            continue
        taken.add(path)
        text = _reference_text(name, corrections)
        current = store.read(location, project=project)
        if text == current:
            continue
        proposals.append(
            ProposalInput(
                target=Target.SKILL_FILE,
                op="create" if current is None else "update",
                path=path,
                old_value=current,
                new_value=text,
                reason=f"gathers {len(corrections)} corrections people and environments gave {name}",
            )
        )
    note = (
        f"No reference file for {', '.join(map(repr, unplaced[:3]))}"
        + (f" and {len(unplaced) - 3} more" if len(unplaced) > 3 else "")
        + ": the name makes no file name of its own."
        if unplaced
        else ""
    )
    return proposals, note


def _reference_text(name: str, corrections: list[dict[str, str]]) -> str:
    lines = [
        f"# {name}: what to do instead",
        "",
        "Gathered from corrective feedback, newest first.",
        "",
    ]
    for c in corrections:
        why = f" — {c['comment']}" if c["comment"] else ""
        lines.append(f"- **{c['dimension']}**: {c['correction'].strip()}{why}")
    return "\n".join(lines) + "\n"
