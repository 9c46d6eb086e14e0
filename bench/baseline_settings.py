"""The app's settings plus one route, `/bench/bare/`: a bare Django JSON view, the floor.

`python -m bench --only hot` serves the app with these settings, so that a small learn/* request
and the bare view run under the same server process, middleware and database in the same run,
and their ratio is what the learn/* path costs over the framework itself. Never used to serve.
"""

from __future__ import annotations

from learnportal.settings import *  # noqa: F403

ROOT_URLCONF = "bench.baseline_urls"
