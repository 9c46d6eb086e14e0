"""The words of refinement, each defined once: risk levels, plan statuses, review kinds and a
step's `learnings_access`, and the one rule that ties a step's access to its objective.

The models take their choices here, the services, the review and the trust region their values,
the settings the auto-apply limit's. Plain enums, no Django: the risk levels are the protocol's
(its review answers one), and `learnportal.settings` reads them before any app is loaded.
"""

from __future__ import annotations

from enum import StrEnum

from learnportal_protocol.models import RiskLevel

__all__ = [
    "NEEDS_OBJECTIVE",
    "LearningsAccess",
    "PlanStatus",
    "ReviewKind",
    "RiskLevel",
    "choices",
    "lacks_objective",
]


class PlanStatus(StrEnum):
    READY = "ready"  # some proposal awaits a decision
    DONE = "done"  # every proposal is decided
    EMPTY = "empty"  # filed with nothing to propose


class ReviewKind(StrEnum):
    AUTO = "auto"  # the automatic review
    APPROVE = "approve"  # a person's approval
    REJECT = "reject"  # a person's rejection


class LearningsAccess(StrEnum):
    """A step's gate on the learnings (docs/learning-store.md)."""

    READ = "read"
    READ_WRITE = "read-write"
    NONE = "none"


NEEDS_OBJECTIVE = "a read-write step needs a non-empty learning_objective"


def lacks_objective(learnings_access: str, learning_objective: str) -> bool:
    """Whether these settings break the rule of docs/learning-store.md: a read-write step needs an
    objective.

    Checked here alone: when an admin sets a step, when a proposal would change one, and when a
    run asks to file edits.
    """
    return learnings_access == LearningsAccess.READ_WRITE and not learning_objective.strip()


def choices(words: type[StrEnum]) -> list[tuple[str, str]]:
    """A model field's `choices`: each word is its own label."""
    return [(word.value, word.value) for word in words]
