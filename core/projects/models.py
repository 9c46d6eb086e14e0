"""Projects and who is in them: a team's space, and each person's role there.

A project holds its own turns, feedback, rubric and people. A person is a member of a project
with one role there (`PROJECT_ROLES`); a site admin (a superuser) is in every project as admin
and needs no membership. A machine token belongs to one project (core.accounts.models.ApiToken).
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.utils import timezone

from core.accounts.roles import PROJECT_ROLES

DEFAULT_PROJECT = "default"
SLUG_PATTERN = r"^[a-z0-9](?:[a-z0-9-]{0,48}[a-z0-9])?$"
SLUG_RULE = "1 to 50 lowercase letters, digits and inner hyphens"
NAME_LENGTH = 120
GUIDELINES_LENGTH = 100_000  # the project's guidelines; and all its questions' together
# A rubric question's key (feedback.rubrics.questions): each question's guidelines are kept by it.
QUESTION_KEY_PATTERN = r"^[a-z][a-z0-9_]{0,39}$"
QUESTION_GUIDELINES_LENGTH = 10_000  # one question's guidelines
MAX_QUESTION_GUIDELINES = 100  # questions with guidelines of their own, in one version
MAX_RATINGS_PER_TURN = 50
MAX_LEASE_SECONDS = 7 * 24 * 3600
# How much a signal on a turn moves it up the queue (feedback.queue_state): the defaults put a
# turn its agent or environment judged badly before one a feedback was unsure of.
MAX_PRIORITY_WEIGHT = 9
DEFAULT_PRIORITY_NEGATIVE = 2
DEFAULT_PRIORITY_UNSURE = 1
LOW_CONFIDENCE = 0.5  # a feedback's confidence below which it is unsure
# Gold items (feedback.gold): at most half of a person's queue; judged after a few.
MAX_GOLD_RATE = 0.5
DEFAULT_GOLD_MIN_ITEMS = 10
MAX_GOLD_MIN_ITEMS = 1000


class Project(models.Model):
    slug = models.CharField(
        max_length=50, unique=True, validators=[RegexValidator(SLUG_PATTERN, SLUG_RULE)]
    )
    name = models.CharField(max_length=NAME_LENGTH)
    # Empty: the portal's setting (LEARNPORTAL_RATINGS_PER_TURN, LEARNPORTAL_LEASE_SECONDS).
    ratings_per_turn = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_RATINGS_PER_TURN)],
    )
    lease_seconds = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(30), MaxValueValidator(MAX_LEASE_SECONDS)],
    )
    blind = models.BooleanField(
        default=True, help_text="Annotators see no other person's rating until they have rated."
    )
    # The queue's weights (feedback.queue_state); their words for people are the settings
    # form's (learnportal.people.project_forms).
    priority_negative = models.PositiveSmallIntegerField(
        default=DEFAULT_PRIORITY_NEGATIVE,
        db_default=DEFAULT_PRIORITY_NEGATIVE,
        validators=[MaxValueValidator(MAX_PRIORITY_WEIGHT)],
    )
    priority_unsure = models.PositiveSmallIntegerField(
        default=DEFAULT_PRIORITY_UNSURE,
        db_default=DEFAULT_PRIORITY_UNSURE,
        validators=[MaxValueValidator(MAX_PRIORITY_WEIGHT)],
    )
    # The newest version's own text (GuidelinesVersion), kept here as the settings show it.
    guidelines = models.TextField(blank=True, max_length=GUIDELINES_LENGTH)
    # A database default too: a row written by code from before this column (a migration's
    # model of then) is one that asks nothing.
    guidelines_ack_required = models.BooleanField(
        default=False,
        db_default=False,
        help_text="People acknowledge each new version of the guidelines before they rate again.",
    )
    # Judged comparisons as routing evidence (feedback.comparisons.evidence): off, as a project
    # made before it had the setting.
    comparisons_as_evidence = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Each judged comparison counts for routing: the winner's component a success, "
        "the loser's a failure.",
    )
    # Comparisons of turns (feedback.comparisons.formed): off, as a project made before it had
    # the setting.
    compare_turns = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Turns of one session that answer one prompt, from different components, "
        "form a comparison.",
    )
    # Gold items (feedback.gold): none mixed in and nobody paused, as a project made before it
    # had the settings.
    gold_rate = models.FloatField(
        default=0,
        db_default=0,
        validators=[MinValueValidator(0), MaxValueValidator(MAX_GOLD_RATE)],
        help_text="The share of each person's queue that is gold items, unmarked.",
    )
    gold_min_items = models.PositiveSmallIntegerField(
        default=DEFAULT_GOLD_MIN_ITEMS,
        db_default=DEFAULT_GOLD_MIN_ITEMS,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_GOLD_MIN_ITEMS)],
        help_text="Gold items a person rates before their accuracy can pause their queue.",
    )
    gold_pause_below = models.FloatField(
        default=0,
        db_default=0,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text="A person's queue pauses when their accuracy on gold items is below this "
        "(0: never).",
    )
    # Machine feedback weighed by its judge's agreement with people (feedback.judges.weights):
    # off, as a project made before it had the setting.
    judges_weighed = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Agents' and environments' feedback counts in stats, and as routing "
        "evidence, as far as its judge agrees with people.",
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("slug",)

    def __str__(self) -> str:
        return self.slug


class Membership(models.Model):
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(
        max_length=16, choices=[(role.value, role.value) for role in sorted(PROJECT_ROLES)]
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "user"], name="one_membership_a_project")
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.project} as {self.role}"


class GuidelinesVersion(models.Model):
    """One version of a project's guidelines (core.projects.guidelines): its own markdown and
    each question's, as a manager saved them. Versions are never changed or removed."""

    project = models.ForeignKey(
        Project, on_delete=models.CASCADE, related_name="guidelines_versions"
    )
    version = models.PositiveIntegerField()
    guidelines = models.TextField(blank=True, max_length=GUIDELINES_LENGTH)
    questions = models.JSONField(default=dict, blank=True, help_text="question key to markdown")
    by = models.CharField(max_length=150, blank=True, help_text="empty: before versions were kept")
    created = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["project", "version"], name="guidelines_version_once")
        ]

    def __str__(self) -> str:
        return f"guidelines {self.version} of project {self.project_id}"


class GuidelinesAcknowledgement(models.Model):
    """A person has read this version of the project's guidelines."""

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    version = models.PositiveIntegerField()
    created = models.FloatField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["project", "user", "version"], name="guidelines_acknowledged_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user_id} read guidelines {self.version} of project {self.project_id}"
