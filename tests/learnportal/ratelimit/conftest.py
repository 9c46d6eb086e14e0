"""Limits are counted in fixed windows of wall-clock time: these tests stop the clock, so that no
window ends between two requests of one test, and move it on instead of sleeping."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

START = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)


@pytest.fixture
def clock(time_machine: Any) -> Any:
    time_machine.move_to(START, tick=False)
    return time_machine
