"""With REDIS_URL set, the count lives in Redis, so that every server process shares it; with the
cache down, requests are served (fail open) and the outage is logged once."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from django.conf import settings as django_settings

from core.ratelimit import rate_limit_check
from learnportal_protocol.errors import LearnError
from tests.builders import stats_req

if TYPE_CHECKING:
    from tests.harness import Actor

ROOT = Path(__file__).resolve().parents[3]
# One a day: no window ends while the test runs, whatever the wall clock.
ONE_A_DAY = "0.00001"

OTHER_PROCESS = """
import sys
import django

django.setup()
from django.conf import settings
from learnportal_protocol.errors import LearnError
from core.ratelimit import rate_limit_check

settings.RATELIMIT_CACHE_PREFIX = sys.argv[1]
try:
    rate_limit_check(sys.argv[2])
except LearnError as error:
    print("refused", error.retry_after)
else:
    print("served")
"""


def _in_another_process(key: str) -> str:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "learnportal.settings"}
    env["LEARNPORTAL_RATE_LIMIT"] = ONE_A_DAY
    done = subprocess.run(
        [sys.executable, "-c", OTHER_PROCESS, django_settings.RATELIMIT_CACHE_PREFIX, key],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


@pytest.mark.redis
def test_two_processes_share_one_count_when_the_cache_is_redis(settings: Any) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = float(ONE_A_DAY)
    assert _in_another_process("token:shared-agent") == "served"
    with pytest.raises(LearnError) as refused:
        rate_limit_check("token:shared-agent")
    assert refused.value.code == "rate_limited"
    assert refused.value.retry_after is not None and refused.value.retry_after >= 1
    rate_limit_check("token:another-agent")


def test_with_the_cache_down_requests_are_served_and_the_outage_logged_once(
    agent: Actor, settings: Any, unreachable_cache: None, caplog: pytest.LogCaptureFixture
) -> None:
    settings.LEARNPORTAL_RATE_LIMIT = 0.1
    with caplog.at_level(logging.WARNING, logger="core.ratelimit"):
        assert agent.learn(stats_req()).status_code == 200
        assert agent.learn(stats_req()).status_code == 200
        assert agent.client.get("/api/routing/").status_code == 200
    outages = [r for r in caplog.records if r.name == "core.ratelimit"]
    assert len(outages) == 1
    assert "not limited" in outages[0].getMessage()
