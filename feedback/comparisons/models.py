"""Comparisons: two or more candidate responses to one prompt, judged side by side by people
(docs/contract.md, "Comparisons"). Imported by feedback.models, so that Django finds them.

A comparison is a unit of the queue as a turn is: it needs judgments from as many distinct
people as its project's ratings per turn (`judgments_needed`, kept by the judgment's service),
leased one to a person (its own lease and skip rows: a person may hold a turn and a comparison
at once, each from its own queue).
"""

from __future__ import annotations

from typing import Any

from django.db import models

from core.projects.selection import default_project_pk


class Comparison(models.Model):
    project = models.ForeignKey(
        "projects.Project", on_delete=models.PROTECT, related_name="+", default=default_project_pk
    )
    comparison_id = models.CharField(max_length=200)
    prompt = models.TextField()
    submitted_by = models.CharField(max_length=160)
    created = models.FloatField()
    # Distinct people's judgments still needed; the queue reads only the open ones.
    judgments_needed = models.IntegerField()
    priority = models.IntegerField(default=0)
    # Leased to someone once: what they saw stays as it was (feedback.comparisons.formed).
    shown = models.BooleanField(default=False, db_default=False)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "comparison_id"], name="comparison_once")
        ]
        indexes = [
            models.Index(
                "project",
                models.F("priority").desc(),
                "id",
                name="comparison_queue_open",
                condition=models.Q(judgments_needed__gt=0),
            ),
        ]

    def __str__(self) -> str:
        return self.comparison_id


class Candidate(models.Model):
    """One of a comparison's responses, as it was when the comparison was made (a candidate
    named by its turn copies the turn's response, component and model: the judgment rates what
    was shown, whatever later happens to the turn)."""

    comparison = models.ForeignKey(Comparison, on_delete=models.CASCADE, related_name="candidates")
    candidate_id = models.CharField(max_length=40, unique=True)
    position = models.PositiveSmallIntegerField()  # in the order it was sent
    response = models.TextField()
    component_name = models.CharField(max_length=200)
    model = models.CharField(max_length=200, blank=True)
    turn = models.ForeignKey(
        "feedback.Turn", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["comparison", "position"], name="candidate_once")
        ]

    def __str__(self) -> str:
        return self.candidate_id


class Judgment(models.Model):
    """A person's judgment of a comparison: the candidates in the order they were shown, and
    the ranking they gave (best first; a tie of two is both at rank 0)."""

    judgment_id = models.CharField(max_length=40, unique=True)
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    comparison = models.ForeignKey(Comparison, on_delete=models.CASCADE, related_name="judgments")
    annotator = models.CharField(max_length=150)
    shown = models.JSONField(help_text="candidate ids in the order shown")
    # Each shown candidate's rank (0 best), in the shown order: [0, 0] is a tie of two.
    ranks = models.JSONField(help_text="rank of each shown candidate")
    preference = models.SmallIntegerField(null=True, blank=True)  # -2..2, for two
    rationale = models.TextField(blank=True)
    # The answers to the rubric's questions of candidates, by question key, then candidate id
    # (so that "has this question answers" is a key lookup), and the rubric's version then.
    answers = models.JSONField(default=dict, blank=True, help_text="key -> candidate id -> value")
    rubric_version = models.PositiveIntegerField(null=True, blank=True)
    ts = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["comparison", "annotator"], name="judgment_once")
        ]
        indexes = [models.Index(fields=["project", "id"], name="judgment_project_order")]

    def __str__(self) -> str:
        return self.judgment_id


def judgment_readable(shown: Any, ranks: Any, preference: Any = None) -> bool:
    """Whether a stored judgment's fields say what the service writes: two or more candidate
    ids, a rank each, and a preference of -2..2 or none. Every read of judgments leaves out
    any other (a row written by hand, or by code of another time) rather than fail on it."""
    return (
        isinstance(shown, list)
        and isinstance(ranks, list)
        and len(shown) == len(ranks) >= 2
        and all(isinstance(candidate, str) for candidate in shown)
        and all(type(rank) is int and 0 <= rank < len(ranks) for rank in ranks)
        and (preference is None or (type(preference) is int and -2 <= preference <= 2))
    )


def answers_of(stored: Any, candidate: str) -> dict[str, Any]:
    """One candidate's answers of a judgment's stored `answers` (by key, then candidate id);
    whatever is not of that shape is no answer."""
    if not isinstance(stored, dict):
        return {}
    return {
        key: by_candidate[candidate]
        for key, by_candidate in stored.items()
        if isinstance(by_candidate, dict) and candidate in by_candidate
    }


class ComparisonLease(models.Model):
    comparison = models.ForeignKey(Comparison, on_delete=models.CASCADE, related_name="leases")
    username = models.CharField(max_length=150, unique=True)
    expires = models.FloatField()

    class Meta:
        indexes = [models.Index(fields=["comparison", "expires"], name="comparison_lease_expires")]

    def __str__(self) -> str:
        return f"{self.comparison_id} to {self.username} until {self.expires}"


class ComparisonSkip(models.Model):
    comparison = models.ForeignKey(Comparison, on_delete=models.CASCADE, related_name="skips")
    username = models.CharField(max_length=150)
    created = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["username", "comparison"], name="comparison_skip_once_per_person"
            )
        ]

    def __str__(self) -> str:
        return f"{self.comparison_id} skipped by {self.username}"
