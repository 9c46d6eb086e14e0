"""The overview's live counters: the feedback that counts and the turns still to rate."""

from __future__ import annotations

from feedback.counters import FEEDBACK_COUNTED, counter_value
from feedback.selectors.turns import unrated_turn_count


def feedback_count() -> int:
    """The counted feedback (stored less retracted), as the feedback service keeps it counted
    at ingest (feedback.counters): a few rows, not a count of the table."""
    return counter_value(FEEDBACK_COUNTED)


def live_counts() -> dict[str, int | str]:
    """What the overview's counters show, as shown, for the page and its live updates (read
    once per flush, core.events; everyone who may read stats may read both over REST).
    Past the count's cap the turns waiting read "10000+"."""
    unrated, more = unrated_turn_count()
    return {"feedback_count": feedback_count(), "turns_unrated": f"{unrated}+" if more else unrated}
