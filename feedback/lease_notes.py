"""What the rating pages say about a person's lease on the turn they rate: when its countdown
warns, and, when a rating came after the lease ended, whether it was kept (feedback.raters keeps
it only if the turn still needs it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from feedback.raters import newcomer_refused

if TYPE_CHECKING:
    from learnportal_protocol.errors import LearnError

LEASE_WARNING_SECONDS = 60  # the countdown warns in the lease's last minute

LATE_KEPT = (
    "Your hold on {turn} had ended before you submitted, but the turn still needed a rating: "
    "yours is stored."
)
LATE_REFUSED = {
    "leased": "Your hold on {turn} ended before you submitted and the turn went to someone "
    "else: your rating was not stored. Here is your next turn.",
    "enough": "Your hold on {turn} ended before you submitted and the turn has had the "
    "ratings it needs since: your rating was not stored. Here is your next turn.",
}
NOT_NEEDED = {
    "leased": "The ratings {turn} still needs are held by other people in the queue: your "
    "rating was not stored. Take a turn from the queue instead.",
    "enough": "{turn} has the ratings it needs from distinct people: your rating was not "
    "stored. Take a turn from the queue instead.",
}


def late_refusal(error: LearnError, turn: str) -> str | None:
    """What the queue says when a rating sent after its lease ended was refused for it."""
    why = newcomer_refused(error)
    return None if why is None else LATE_REFUSED[why].format(turn=turn)


def not_needed(error: LearnError, turn: str) -> str | None:
    """What the rating page says when the turn needs no rating from this person."""
    why = newcomer_refused(error)
    return None if why is None else NOT_NEEDED[why].format(turn=turn)
