"""The queue's settings: read from the environment at start-up, a bad value stops it, named."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.processes import clean_env, manage, python_json

if TYPE_CHECKING:
    from pathlib import Path

READ = (
    "from django.conf import settings as s\n"
    "print(json.dumps({'per_turn': s.LEARNPORTAL_RATINGS_PER_TURN, "
    "'lease': s.LEARNPORTAL_LEASE_SECONDS, 'undo': s.LEARNPORTAL_UNDO_SECONDS}))\n"
)


def test_the_queue_settings_default_to_one_rating_ten_minutes_and_a_minute(
    tmp_path: Path,
) -> None:
    assert python_json(READ, env=clean_env(tmp_path, DJANGO_DEBUG="1")) == {
        "per_turn": 1,
        "lease": 600,
        "undo": 60,
    }


def test_the_queue_settings_follow_their_variables(tmp_path: Path) -> None:
    env = clean_env(
        tmp_path,
        DJANGO_DEBUG="1",
        LEARNPORTAL_RATINGS_PER_TURN="3",
        LEARNPORTAL_LEASE_SECONDS="120",
        LEARNPORTAL_UNDO_SECONDS="0",
    )
    assert python_json(READ, env=env) == {"per_turn": 3, "lease": 120, "undo": 0}


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("LEARNPORTAL_RATINGS_PER_TURN", "0", "must be at least 1, got 0"),
        ("LEARNPORTAL_RATINGS_PER_TURN", "two", "must be an integer, got 'two'"),
        ("LEARNPORTAL_LEASE_SECONDS", "0", "must be at least 1, got 0"),
        ("LEARNPORTAL_UNDO_SECONDS", "-1", "must be at least 0, got -1"),
    ],
)
def test_a_bad_queue_setting_stops_start_up_naming_it(
    tmp_path: Path, name: str, value: str, message: str
) -> None:
    result = manage("check", env=clean_env(tmp_path, DJANGO_DEBUG="1", **{name: value}))
    assert result.returncode != 0
    assert f"{name} {message}" in result.stderr
