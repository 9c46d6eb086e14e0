"""What-ifs, for measurement only: the app's settings with one thing changed.

`python -m bench` starts extra servers with `DJANGO_SETTINGS_MODULE=bench.whatif_settings` and
`BENCH_WHATIF` naming the changes, to measure what a setting costs on the same database:

- `conn_max_age`: persistent database connections (`CONN_MAX_AGE=None`). Channels'
  `database_sync_to_async` closes and reopens the connection around every WebSocket frame when
  it is 0, the default.
- `gc`: `gc.freeze()` of everything loaded at start and a gen-0 threshold of 50,000 instead of
  700, so that the many small objects of a 1000-item batch do not set off collections that
  walk the whole heap.

It is never used to serve.
"""

from __future__ import annotations

import gc
import os

from learnportal.settings import *  # noqa: F403
from learnportal.settings import DATABASES

WHATIF = {w.strip() for w in os.environ.get("BENCH_WHATIF", "").split(",") if w.strip()}

if "conn_max_age" in WHATIF:
    DATABASES["default"]["CONN_MAX_AGE"] = None
if "gc" in WHATIF:
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)
