"""Epoch seconds as the pages show them, whatever a stored row holds.

Ingest bounds every time to what a datetime holds (protocol.models.TIMESTAMP_MAX), but rows
stored before it did may keep any double (a `ts` of 1e12 is year 33658): a page shows such a
time as unknown instead of failing. No Django here, so that the charts use it too.
"""

from __future__ import annotations

from datetime import UTC, datetime

UNKNOWN = "—"  # what a page shows for a time no datetime holds


def utc(ts: float | None) -> datetime | None:
    """`ts` as a UTC datetime; None for no time, or one out of a datetime's range."""
    if ts is None:
        return None
    try:
        return datetime.fromtimestamp(ts, tz=UTC)
    except (OverflowError, OSError, ValueError):  # out of range, or NaN
        return None


def utc_text(ts: float | None, pattern: str) -> str:
    """`ts` written with strftime's `pattern`, or UNKNOWN."""
    moment = utc(ts)
    return UNKNOWN if moment is None else moment.strftime(pattern)
