"""What the queue reads of each turn, kept on the turn itself: `ratings_needed` and `priority`.

The queue's scan must not count ratings per request (at 200k turns it would be the whole
table), so the feedback service calls `turns_tally`, inside its transaction, for every turn a
write touches: a rating, an undo, an agent's or environment's feedback, a new turn. The tally recounts those turns from
their stored feedback, so it is right whatever order things arrive in, and repeating it changes
nothing.

- `ratings_needed`: LEARNPORTAL_RATINGS_PER_TURN less the distinct people whose human rating
  counts (a retracted one does not; an agent's or environment's never does); never below 0.
- `priority`: PRIORITY_MACHINE_NEGATIVE when a `self` or `env` feedback is negative (polarity
  negative or a score below 0), plus PRIORITY_UNSURE when a counted rating has a confidence
  below LOW_CONFIDENCE. Higher comes first.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db.models import Count, Q

from feedback.bulk import IN_CHUNK, existing_values
from feedback.models import Turn
from feedback.selectors import counted_feedback
from learnportal.protocol import FeedbackPolarity, FeedbackSource

if TYPE_CHECKING:
    from collections.abc import Iterable

PRIORITY_MACHINE_NEGATIVE = 2
PRIORITY_UNSURE = 1
LOW_CONFIDENCE = 0.5
MACHINE_SOURCES = (FeedbackSource.SELF.value, FeedbackSource.ENV.value)


def turns_tally(correlation_ids: Iterable[str]) -> None:
    """Recount `ratings_needed` and `priority` of the turns among `correlation_ids`."""
    wanted = set(correlation_ids) - {""}
    if not wanted:
        return
    # Most feedback rates no queued turn (an environment's rewards, say): one raw lookup finds
    # the few that do, before the ORM's locking and counting of those alone.
    keys = sorted(existing_values(Turn, "correlation_id", "id", wanted))
    for start in range(0, len(keys), IN_CHUNK):
        _tally_chunk(keys[start : start + IN_CHUNK])


def _tally_chunk(keys: list[str]) -> None:
    # Locked first, in one order (PostgreSQL; SQLite has one writer): two people rating one turn
    # at once are counted one after the other, each seeing the other's rating, never both from
    # a count that misses the other.
    locked = (
        Turn.objects.select_for_update()
        .filter(correlation_id__in=keys)
        .order_by("correlation_id")
        .values_list("pk", "correlation_id", "ratings_needed", "priority")
    )
    turns = {key: (pk, needed, priority) for pk, key, needed, priority in locked}
    if not turns:
        return
    wanted = settings.LEARNPORTAL_RATINGS_PER_TURN
    counts: dict[str, dict[str, Any]] = {
        row["correlation_id"]: dict(row)
        for row in counted_feedback()
        .filter(correlation_id__in=list(turns))
        .values("correlation_id")
        .annotate(
            raters=Count(
                "annotator_id", distinct=True, filter=Q(source=FeedbackSource.HUMAN.value)
            ),
            negative=Count(
                "pk",
                filter=Q(source__in=MACHINE_SOURCES)
                & (Q(polarity=FeedbackPolarity.NEGATIVE.value) | Q(score__lt=0)),
            ),
            unsure=Count("pk", filter=Q(confidence__lt=LOW_CONFIDENCE)),
        )
    }
    # One UPDATE for each distinct (needed, priority): a handful, however many turns.
    changes: dict[tuple[int, int], list[int]] = defaultdict(list)
    for key, (pk, needed, priority) in turns.items():
        row = counts.get(key, {})
        new_needed = max(0, wanted - row.get("raters", 0))
        new_priority = (PRIORITY_MACHINE_NEGATIVE if row.get("negative") else 0) + (
            PRIORITY_UNSURE if row.get("unsure") else 0
        )
        if (new_needed, new_priority) != (needed, priority):
            changes[(new_needed, new_priority)].append(pk)
    for (needed, priority), pks in changes.items():
        Turn.objects.filter(pk__in=pks).update(ratings_needed=needed, priority=priority)
