"""A machine judge's agreement with people on one dimension, as last measured: the weight its
feedback counts with where its project weighs judges (feedback.judges.weights)."""

from __future__ import annotations

from django.db import models


class JudgeWeight(models.Model):
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    judge = models.CharField(max_length=160, help_text="the credential that sent the feedback")
    dimension = models.CharField(max_length=16)
    items = models.PositiveIntegerField(help_text="whole turns people rated on it too")
    alpha = models.FloatField(null=True)
    # None: not measured (fewer than LEARNPORTAL_JUDGE_MIN_ITEMS items), counted in full.
    weight = models.FloatField(null=True)
    measured = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "judge", "dimension"], name="judge_weight_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.judge} on {self.dimension}: {self.weight}"


class MarkedJudge(models.Model):
    """A person of the project marked as a judge (an LLM behind a person's account, a rater to
    watch): measured against the other people as a machine judge is, and weighed alike where
    the project weighs judges."""

    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    username = models.CharField(max_length=150)
    by = models.CharField(max_length=150)
    ts = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "username"], name="marked_judge_once")
        ]

    def __str__(self) -> str:
        return f"{self.username} marked a judge"
