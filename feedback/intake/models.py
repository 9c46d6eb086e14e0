"""An intake rule (a filter of turns and their feedback, a sampling rate and a priority) and
the admission of a turn into the queue by the first rule that took it."""

from __future__ import annotations

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from core.projects.models import MAX_PRIORITY_WEIGHT

RULE_NAME_LENGTH = 80


class IntakeRule(models.Model):
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=RULE_NAME_LENGTH)
    enabled = models.BooleanField(default=True)
    # What it takes: every criterion given must hold ("" and null: any). With none of the
    # feedback's criteria (source to judge_agreement_below) it takes turns as they arrive;
    # with one, the turns a feedback like that is about.
    component = models.CharField(max_length=200, blank=True)
    # A key the turn's `environment` object holds (its metadata), at its top level.
    metadata_key = models.CharField(max_length=200, blank=True)
    source = models.CharField(max_length=8, blank=True)
    polarity = models.CharField(max_length=16, blank=True)
    score_min = models.FloatField(null=True, blank=True)
    score_max = models.FloatField(null=True, blank=True)
    confidence_below = models.FloatField(null=True, blank=True)
    # A machine feedback whose judge's weight on its dimension (feedback.judges.weights: its
    # agreement with people, clipped to [0, 1]) is below this, or not measured yet.
    judge_agreement_below = models.FloatField(null=True, blank=True)
    rate = models.FloatField(validators=[MinValueValidator(0), MaxValueValidator(1)])
    priority = models.PositiveSmallIntegerField(
        default=0, validators=[MaxValueValidator(MAX_PRIORITY_WEIGHT)]
    )
    by = models.CharField(max_length=150)
    created = models.FloatField()

    class Meta:
        indexes = [models.Index(fields=["project", "enabled"], name="intake_rule_project")]

    def __str__(self) -> str:
        return self.name

    @property
    def about_feedback(self) -> bool:
        return bool(self.source or self.polarity) or any(
            value is not None
            for value in (
                self.score_min,
                self.score_max,
                self.confidence_below,
                self.judge_agreement_below,
            )
        )


class Admission(models.Model):
    """The turn's entry into the queue: once, by the first rule that took it."""

    turn = models.OneToOneField("feedback.Turn", on_delete=models.CASCADE, related_name="+")
    rule = models.ForeignKey(IntakeRule, on_delete=models.CASCADE, related_name="admissions")
    ts = models.FloatField()

    class Meta:
        indexes = [models.Index(fields=["rule", "ts"], name="admission_rule_recent")]

    def __str__(self) -> str:
        return f"{self.turn_id} by {self.rule_id}"
