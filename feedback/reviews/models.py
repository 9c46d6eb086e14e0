"""The review of a rating: a reviewer's decision, kept on each feedback row the rating is (a
rubric's rating is a row a scored answer, one review_id for all), the rows of the rating a
reviewer gave in place of one they amended, and the lease a reviewer holds on the rating they
are reviewing."""

from __future__ import annotations

from django.db import models

REASON_LENGTH = 2000


class Decision(models.TextChoices):
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    AMENDED = "amended"


class RatingReview(models.Model):
    review_id = models.CharField(max_length=40)
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    # One decision a row: a rating is reviewed once.
    feedback = models.OneToOneField(
        "feedback.Feedback", on_delete=models.CASCADE, related_name="review"
    )
    reviewer = models.CharField(max_length=150)
    decision = models.CharField(max_length=10, choices=Decision.choices)
    reason = models.TextField(blank=True, max_length=REASON_LENGTH)
    ts = models.FloatField()

    class Meta:
        indexes = [
            models.Index(fields=["project", "id"], name="review_project_order"),
            models.Index(fields=["review_id"], name="review_by_id"),
        ]

    def __str__(self) -> str:
        return f"{self.review_id} {self.decision}"


class Amendment(models.Model):
    """A row of the reviewer's own rating that took the place of the one their review
    (`review_id`) amended: reviewed by its making, so never in the review queue."""

    review_id = models.CharField(max_length=40)
    feedback = models.OneToOneField(
        "feedback.Feedback", on_delete=models.CASCADE, related_name="amending"
    )

    class Meta:
        indexes = [models.Index(fields=["review_id"], name="amendment_by_review")]

    def __str__(self) -> str:
        return f"{self.feedback_id} amends in {self.review_id}"


class ReviewLease(models.Model):
    """A rating's rows held by the reviewer reviewing it, until `expires`."""

    feedback = models.OneToOneField(
        "feedback.Feedback", on_delete=models.CASCADE, related_name="review_lease"
    )
    username = models.CharField(max_length=150)
    expires = models.FloatField()

    class Meta:
        indexes = [models.Index(fields=["username", "expires"], name="review_lease_holder")]

    def __str__(self) -> str:
        return f"{self.feedback_id} → {self.username}"
