"""How long a person took to rate what they were handed: from the start of their lease to the
rating that ended it (feedback.services.feedbacks), one row a rating."""

from __future__ import annotations

from django.db import models


class RatingTime(models.Model):
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    username = models.CharField(max_length=150)
    turn = models.ForeignKey("feedback.Turn", on_delete=models.CASCADE, related_name="+")
    step_id = models.CharField(max_length=200, blank=True, default="")  # "" for the whole turn
    seconds = models.FloatField()
    ts = models.FloatField()  # when the rating ended the lease

    class Meta:
        indexes = [
            models.Index(fields=["project", "username", "ts"], name="rating_time_person"),
        ]

    def __str__(self) -> str:
        return f"{self.username} rated {self.turn_id} in {self.seconds:.0f} s"
