"""A strategy parameter out of its range fails the system check, naming its variable; one left
unset is the strategy's own default.

Run as an operator would (a fresh process with only the environment given), since settings are
read once per process.
"""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING

from refinement.strategies.base import PARAMS
from tests.processes import PYTHON, REPO, clean_env, manage, python_json

if TYPE_CHECKING:
    from pathlib import Path

BAD_EPSILON = (
    "(refinement.E001) LEARNPORTAL_EPSILON: epsilon must be a finite number in [0, 1], got 1.5"
)


def test_a_bad_epsilon_fails_the_check_with_a_message_naming_it(tmp_path: Path) -> None:
    result = manage("check", env=clean_env(tmp_path, DJANGO_DEBUG="1", LEARNPORTAL_EPSILON="1.5"))
    assert result.returncode != 0
    assert BAD_EPSILON in result.stderr
    assert "HINT: Set LEARNPORTAL_EPSILON within that range, or unset it for 0.03." in result.stderr


def test_a_good_epsilon_passes_the_check(tmp_path: Path) -> None:
    result = manage("check", env=clean_env(tmp_path, DJANGO_DEBUG="1", LEARNPORTAL_EPSILON="0.3"))
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_the_check_names_the_variable_of_every_bad_parameter(tmp_path: Path) -> None:
    env = clean_env(
        tmp_path, DJANGO_DEBUG="1", LEARNPORTAL_PPO_EPOCHS="5000", LEARNPORTAL_UCB_C="-1"
    )
    result = manage("check", env=env)
    assert result.returncode != 0
    assert "LEARNPORTAL_PPO_EPOCHS: ppo_epochs must be a finite number in [1, 1000]" in (
        result.stderr
    )
    assert "LEARNPORTAL_UCB_C: ucb_c must be a finite number in [0, inf), got -1" in result.stderr


def test_the_server_refuses_to_start_with_a_bad_epsilon(tmp_path: Path) -> None:
    # uvicorn imports learnportal.asgi and runs no system check of its own.
    result = subprocess.run(
        [PYTHON, "-c", "import learnportal.asgi"],
        cwd=REPO,
        env=clean_env(tmp_path, DJANGO_DEBUG="1", LEARNPORTAL_EPSILON="1.5"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode != 0
    assert BAD_EPSILON in result.stderr


def test_a_parameter_left_unset_is_the_strategys_default_and_one_set_is_read(
    tmp_path: Path,
) -> None:
    read = "from django.conf import settings as s\nprint(json.dumps(s.LEARNPORTAL_STRATEGY_PARAMS))"
    params = python_json(
        read, env=clean_env(tmp_path, DJANGO_DEBUG="1", LEARNPORTAL_UCB_HORIZON="7")
    )
    assert params.pop("ucb_horizon") == 7
    assert params == {name: PARAMS[name].default for name in params}
    assert params["epsilon"] == 0.03  # as the loop benchmark chose it
