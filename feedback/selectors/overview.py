"""A project's overview counters: the feedback that counts and the turns still to rate."""

from __future__ import annotations

from feedback.counters import FEEDBACK_COUNTED, counter_value
from feedback.selectors.turns import unrated_turn_count


def feedback_count(project: int) -> int:
    """The project's counted feedback (stored less retracted), as the feedback service keeps it
    counted at ingest (feedback.counters): a few rows, not a count of the table."""
    return counter_value(FEEDBACK_COUNTED, project=project)


def live_counts(project: int) -> dict[str, int | str]:
    """What the project's overview counters show, as shown, for the page and its live updates
    (read once per flush, core.events, for the project's topic; everyone who may read stats in
    the project may read both over REST). Past the count's cap the turns waiting read "10000+"."""
    unrated, more = unrated_turn_count(project)
    return {
        "feedback_count": feedback_count(project),
        "turns_unrated": f"{unrated}+" if more else unrated,
    }
