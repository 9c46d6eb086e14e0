"""Which experiences a window of the newest N covers, in buckets: pure arithmetic, no Django.

Each component's reward sums are kept per bucket of `span` consecutive experience ids
(feedback.rewards), so that the newest `window` experiences are the buckets from
`first_bucket` on: a read of at most BUCKETS + 1 rows a component, whatever the table holds.
The window is quantised to a bucket: it covers the newest `window` ids and at most `span - 1`
older ones (under a tenth more). The bench's model of the host (bench/loop.py) reads the same.
"""

from __future__ import annotations

BUCKETS = 10


def span_for(window: int) -> int:
    """Experience ids per bucket for a window of the newest `window` experiences."""
    return max(1, -(-int(window) // BUCKETS))


def bucket_of(experience_id: int, span: int) -> int:
    """Ids 1..span are bucket 0 (ids start at 1), so that when `span` consecutive experiences
    have arrived since a bucket began, the window is exactly the newest `window`."""
    return (int(experience_id) - 1) // span


def first_bucket(latest_id: int, window: int) -> int:
    """The oldest bucket a window of `window` experiences up to id `latest_id` reads."""
    return bucket_of(max(int(latest_id) - int(window) + 1, 1), span_for(window))


def in_window(experience_id: int, latest_id: int, window: int) -> bool:
    """Whether the experience of this id counts in the window (as the buckets count it)."""
    return bucket_of(experience_id, span_for(window)) >= first_bucket(latest_id, window)
