"""With REDIS_URL: what several processes share, and what two deployments on one Redis do not."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.processes import clean_env, python_json

if TYPE_CHECKING:
    from pathlib import Path

LAYER_PREFIX = (
    "from django.conf import settings\n"
    "print(json.dumps(settings.CHANNEL_LAYERS['default']['CONFIG']['prefix']))"
)


def test_deployments_on_other_redis_databases_never_share_live_events(tmp_path: Path) -> None:
    # Redis pub/sub ignores the database number, so the channel names must carry it.
    prefixes = {
        url: python_json(LAYER_PREFIX, env=clean_env(tmp_path, DJANGO_DEBUG="1", REDIS_URL=url))
        for url in ("redis://127.0.0.1:6379/3", "redis://127.0.0.1:6379/4", "redis://h:1")
    }
    assert len(set(prefixes.values())) == 3, prefixes


def test_each_process_of_the_suite_has_a_redis_database_of_its_own() -> None:
    from tests.django_settings import _redis_url_of_this_process

    url = "redis://:secret@127.0.0.1:6379/7"
    urls = [_redis_url_of_this_process(url, f"gw{n}") for n in range(4)]
    assert urls == [f"redis://:secret@127.0.0.1:6379/{db}" for db in (7, 8, 9, 10)]
    assert _redis_url_of_this_process("redis://h:1", "gw1") == "redis://h:1/1"
