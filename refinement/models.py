"""Routing weights, the learning store, and the refinement lifecycle that alone may change them.

Every value an apply can change lives at a path: `router.weights.<component>` and
`learnings/...` files in `StoreValue`, `steps.<id>.<field>` in `Step`. Every change is a
`Revision` with its actor and refinement, so any refinement can be rolled back.
"""

from __future__ import annotations

from typing import Any

from django.db import models

from refinement.vocabulary import LearningsAccess, PlanStatus, ReviewKind, RiskLevel, choices


class StoreValue(models.Model):
    """The current value at a path of a project (a routing weight or a learnings file); JSON,
    null = absent."""

    # The project it belongs to: that of the principal whose act made it (core.projects).
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    path = models.CharField(max_length=400)
    value = models.JSONField(null=True)
    version = models.PositiveIntegerField(default=0)
    updated = models.FloatField(default=0.0)
    updated_by = models.CharField(max_length=160, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "path"], name="store_value_once")]

    def __str__(self) -> str:
        return f"{self.path}@{self.version}"


class Revision(models.Model):
    """One change of one path of a project, kept forever."""

    # The project it belongs to: that of the principal whose act made it (core.projects).
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    path = models.CharField(max_length=400)
    version = models.PositiveIntegerField()
    before = models.JSONField(null=True)
    after = models.JSONField(null=True)
    actor = models.CharField(max_length=160)
    refinement = models.ForeignKey(
        "Refinement", null=True, on_delete=models.SET_NULL, related_name="revisions"
    )
    ts = models.FloatField(db_index=True)

    class Meta:
        # A path's newest revisions (a weight's chart over time): one range, not a sort of all.
        indexes = [
            models.Index(fields=["project", "path", "ts", "id"], name="revision_path_newest")
        ]

    def __str__(self) -> str:
        return f"{self.path}@{self.version}"


class Step(models.Model):
    """A workflow step's learning gates and its description-hash evidence (docs/learning-store.md),
    in one project's workflow."""

    # The project it belongs to: that of the principal whose act made it (core.projects).
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    step_id = models.CharField(max_length=200)
    learnings_access = models.CharField(
        max_length=16, choices=choices(LearningsAccess), default=LearningsAccess.READ.value
    )
    learning_objective = models.TextField(blank=True)
    lock_learnings = models.BooleanField(default=False)
    review_notes = models.TextField(blank=True)
    last_description_hash = models.CharField(max_length=64, blank=True)
    description_hash_runs = models.PositiveIntegerField(default=0)
    runs_total = models.PositiveIntegerField(default=0)
    updated = models.FloatField(default=0.0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "step_id"], name="step_once")]

    def __str__(self) -> str:
        return self.step_id


class Workflow(models.Model):
    """Workflow-level settings; one row a project, at most."""

    project = models.OneToOneField("projects.Project", on_delete=models.CASCADE, related_name="+")
    global_skill_objective = models.TextField(blank=True)
    updated = models.FloatField(default=0.0)

    def __str__(self) -> str:
        return "workflow"


class Plan(models.Model):
    # The project it belongs to: that of the principal whose act made it (core.projects).
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    plan_id = models.CharField(max_length=64, unique=True)
    origin = models.CharField(max_length=16, default="plan")  # plan, adapt, run, import, direct
    component_name = models.CharField(max_length=200, blank=True)
    scope = models.CharField(max_length=64, default="local")
    status = models.CharField(
        max_length=16, choices=choices(PlanStatus), default=PlanStatus.READY.value
    )
    requested_by = models.CharField(max_length=160)
    summary = models.TextField(blank=True)
    created = models.FloatField(db_index=True)

    def __str__(self) -> str:
        return self.plan_id


class ProposalStatus(models.TextChoices):
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    QUEUED = "queued"
    APPLIED = "applied"
    ROLLED_BACK = "rolled_back"


# Open: still to be approved, rejected or applied. A plan is done when none of its proposals is.
OPEN_PROPOSAL = frozenset({ProposalStatus.PENDING, ProposalStatus.APPROVED, ProposalStatus.QUEUED})
# Open, and no person has approved it yet: what the overview counts as awaiting review.
AWAITING_REVIEW = OPEN_PROPOSAL - {ProposalStatus.APPROVED}
# Applied, and perhaps rolled back since: done, its content may no longer change.
APPLIED_PROPOSAL = frozenset({ProposalStatus.APPLIED, ProposalStatus.ROLLED_BACK})


class Proposal(models.Model):
    # The project it belongs to: that of the principal whose act made it (core.projects).
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    # Chosen by the client, so unique per principal (refinement.proposal_ids), not across them.
    proposal_id = models.CharField(max_length=64, db_index=True)
    plan = models.ForeignKey(Plan, null=True, on_delete=models.CASCADE, related_name="proposals")
    target = models.CharField(max_length=16)
    op = models.CharField(max_length=8)
    path = models.CharField(max_length=400, db_index=True)
    old_value = models.JSONField(null=True)
    new_value = models.JSONField(null=True)
    reason = models.TextField(blank=True)
    step_id = models.CharField(max_length=200, blank=True)
    content_hash = models.CharField(max_length=64, db_index=True)
    risk_level = models.CharField(
        max_length=8, choices=choices(RiskLevel), default=RiskLevel.LOW.value
    )
    status = models.CharField(
        max_length=16, choices=ProposalStatus.choices, default=ProposalStatus.PENDING
    )
    requested_by = models.CharField(max_length=160)
    created = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "requested_by", "proposal_id"],
                name="proposal_id_per_principal",
            ),
            # Rows of no plan (NULL) never collide here; the rule above names those.
            models.UniqueConstraint(fields=["plan", "proposal_id"], name="proposal_id_per_plan"),
        ]

    def __str__(self) -> str:
        return self.proposal_id


class Review(models.Model):
    """An automatic review, or a person's approval or rejection, of one proposal's content."""

    proposal = models.ForeignKey(Proposal, on_delete=models.CASCADE, related_name="reviews")
    kind = models.CharField(max_length=8, choices=choices(ReviewKind))
    approved = models.BooleanField()
    risk_level = models.CharField(max_length=8, choices=choices(RiskLevel))
    reasons = models.JSONField(default=list)
    confidence_adjusted = models.BooleanField(default=False)
    reviewer = models.CharField(max_length=160)
    proposal_hash = models.CharField(max_length=64)
    note = models.TextField(blank=True)
    ts = models.FloatField()

    def __str__(self) -> str:
        return f"{self.kind} of {self.proposal.proposal_id}"


class RefinementStatus(models.TextChoices):
    QUEUED = "queued"
    APPLIED = "applied"
    ROLLED_BACK = "rolled_back"
    REJECTED = "rejected"


# Written to the store, and perhaps rolled back since.
APPLIED_REFINEMENT = frozenset({RefinementStatus.APPLIED, RefinementStatus.ROLLED_BACK})


class Refinement(models.Model):
    # The project it belongs to: that of the principal whose act made it (core.projects).
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    refinement_id = models.CharField(max_length=64, unique=True)
    proposal = models.ForeignKey(
        Proposal, null=True, on_delete=models.SET_NULL, related_name="refinements"
    )
    plan = models.ForeignKey(Plan, null=True, on_delete=models.SET_NULL, related_name="refinements")
    rollback_of = models.OneToOneField(
        "self", null=True, on_delete=models.PROTECT, related_name="rolled_back_by"
    )
    status = models.CharField(max_length=16, choices=RefinementStatus.choices)
    actor = models.CharField(max_length=160)
    edits = models.JSONField(default=list)  # [{"path", "target", "before", "after"}]
    error = models.TextField(blank=True)
    ts = models.FloatField(db_index=True)

    def __str__(self) -> str:
        return self.refinement_id


class HistoryEntry(models.Model):
    # The project it belongs to: that of the principal whose act made it (core.projects).
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=16, db_index=True)
    actor = models.CharField(max_length=160)
    ts = models.FloatField(db_index=True)
    plan_id = models.CharField(max_length=64, blank=True)
    proposal_id = models.CharField(max_length=64, blank=True)
    refinement_id = models.CharField(max_length=64, blank=True)
    message = models.TextField(blank=True)
    diff = models.JSONField(default=list)

    class Meta:
        verbose_name_plural = "history entries"
        # A project's history newest first, and its filters by actor and by refinement.
        indexes = [
            models.Index(fields=["project", "ts", "id"], name="history_newest"),
            models.Index(fields=["project", "actor", "ts"], name="history_actor_ts"),
            models.Index(fields=["refinement_id"], name="history_refinement"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} by {self.actor}"

    def as_entry(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "actor": self.actor,
            "ts": self.ts,
            "plan_id": self.plan_id,
            "proposal_id": self.proposal_id,
            "refinement_id": self.refinement_id,
            "message": self.message,
            "diff": self.diff,
        }


class HistoryPath(models.Model):
    """A path a history entry touched, so that the history filters by path without a scan."""

    entry = models.ForeignKey(HistoryEntry, on_delete=models.CASCADE, related_name="paths")
    path = models.CharField(max_length=400)

    class Meta:
        # A path prefix filter is LIKE 'prefix%', which PostgreSQL serves from a pattern index.
        indexes = [
            models.Index(fields=["path", "entry"], name="history_path_entry"),
            models.Index(
                fields=["path"], name="history_path_pattern", opclasses=["varchar_pattern_ops"]
            ),
        ]

    def __str__(self) -> str:
        return self.path
