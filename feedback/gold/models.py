"""A gold item (a turn with known answers to some of the rubric's questions), each person's
rating of one scored against them, and the pause of a person's queue their accuracy caused."""

from __future__ import annotations

from django.db import models


class GoldItem(models.Model):
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    turn = models.ForeignKey("feedback.Turn", on_delete=models.CASCADE, related_name="+")
    # Question key to its known answer, as a rating gives it (feedback.rubrics.answers).
    answers = models.JSONField()
    rubric_version = models.PositiveIntegerField()
    by = models.CharField(max_length=150)
    ts = models.FloatField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["project", "turn"], name="gold_once")]

    def __str__(self) -> str:
        return f"gold {self.turn_id}"


class GoldComparison(models.Model):
    """A comparison whose best candidate is known: the queue mixes it in as a gold item is,
    and a judgment of it matches when it ranks that candidate alone first."""

    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    comparison = models.OneToOneField(
        "feedback.Comparison", on_delete=models.CASCADE, related_name="+"
    )
    best = models.CharField(max_length=64, help_text="the known best candidate's candidate_id")
    by = models.CharField(max_length=150)
    ts = models.FloatField()

    def __str__(self) -> str:
        return f"gold comparison {self.comparison_id}"


class GoldResult(models.Model):
    """A person's latest rating of a gold item: how many of its known answers it gave, and
    how many of those matched. Kept when the rating is undone or rejected: it measures what
    they did."""

    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    # Of a gold turn, or of a gold comparison: one of the two.
    gold = models.ForeignKey(
        GoldItem, on_delete=models.CASCADE, related_name="results", null=True, blank=True
    )
    gold_comparison = models.ForeignKey(
        GoldComparison, on_delete=models.CASCADE, related_name="results", null=True, blank=True
    )
    annotator = models.CharField(max_length=150)
    rating_id = models.CharField(max_length=200)
    compared = models.PositiveSmallIntegerField()
    matched = models.PositiveSmallIntegerField()
    ts = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["gold", "annotator"], name="gold_result_once"),
            models.UniqueConstraint(
                fields=["gold_comparison", "annotator"], name="gold_comparison_result_once"
            ),
            models.CheckConstraint(
                condition=models.Q(gold__isnull=True) ^ models.Q(gold_comparison__isnull=True),
                name="gold_result_of_one",
            ),
        ]
        indexes = [models.Index(fields=["project", "annotator"], name="gold_result_person")]

    def __str__(self) -> str:
        return f"{self.annotator} {self.matched}/{self.compared}"


class QueuePause(models.Model):
    """A person's queue in a project, paused by their accuracy on gold items until a manager
    resumes it (`resumed`); from then on, only gold items rated after it judge them again."""

    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    username = models.CharField(max_length=150)
    accuracy = models.FloatField()
    items = models.PositiveIntegerField()
    threshold = models.FloatField()
    ts = models.FloatField()
    resumed = models.FloatField(null=True, blank=True)
    resumed_by = models.CharField(max_length=150, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "username"],
                condition=models.Q(resumed__isnull=True),
                name="queue_pause_once",
            )
        ]

    def __str__(self) -> str:
        return f"{self.username} paused at {self.accuracy:.2f}"
