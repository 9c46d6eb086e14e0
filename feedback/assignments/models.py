"""A part of a project's queue (one component's turns, or all of them) kept for named people:
nobody else is leased those turns, steps or sessions."""

from __future__ import annotations

from django.db import models


class QueueAssignment(models.Model):
    project = models.ForeignKey("projects.Project", on_delete=models.CASCADE, related_name="+")
    # The component whose turns it keeps; "" keeps the whole queue (but the parts assigned to
    # others by a component of their own).
    component = models.CharField(max_length=200, blank=True)
    usernames = models.JSONField(help_text="the people it is kept for, by username")
    by = models.CharField(max_length=150)
    created = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "component"], name="assignment_once")
        ]

    def __str__(self) -> str:
        return f"{self.component or 'the queue'} for {', '.join(self.usernames)}"
