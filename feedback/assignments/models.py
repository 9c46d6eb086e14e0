"""A part of a project's queue (one component's turns, the turns an intake rule let in, or all
of them) kept for named people: nobody else is leased those turns, steps or sessions."""

from __future__ import annotations

from django.db import models


class QueueAssignment(models.Model):
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    # The part it keeps: a component's turns, or the turns an intake rule let in; neither
    # keeps the whole queue (but the parts assigned to others by a part of their own).
    component = models.CharField(max_length=200, blank=True)
    rule = models.ForeignKey(
        "feedback.IntakeRule", on_delete=models.CASCADE, related_name="+", null=True, blank=True
    )
    usernames = models.JSONField(help_text="the people it is kept for, by username")
    by = models.CharField(max_length=150)
    created = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "component"],
                condition=models.Q(rule__isnull=True),
                name="assignment_once",
            ),
            models.UniqueConstraint(
                fields=["project", "rule"],
                condition=models.Q(rule__isnull=False),
                name="assignment_of_rule_once",
            ),
            models.CheckConstraint(
                condition=models.Q(rule__isnull=True) | models.Q(component=""),
                name="assignment_of_one_part",
            ),
        ]

    def __str__(self) -> str:
        part = self.component or (f"rule {self.rule_id}" if self.rule_id else "the queue")
        return f"{part} for {', '.join(self.usernames)}"
