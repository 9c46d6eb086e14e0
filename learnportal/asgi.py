"""ASGI entry point: HTTP through Django (but /a2e), WebSockets and /a2e through Channels, and
the server's lifespan (learnportal.lifespan: a shutdown ends the open A2E streams)."""

from __future__ import annotations

import gc
import os
import sys
from typing import Any

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "learnportal.settings")
django.setup(set_prefix=False)  # as django.core.asgi.get_asgi_application does

from learnportal.asgihandler import OneHopASGIHandler  # noqa: E402

django_asgi_app = OneHopASGIHandler()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.core.checks import run_checks  # noqa: E402
from django.core.exceptions import ImproperlyConfigured  # noqa: E402
from django.urls import re_path  # noqa: E402

from learnportal import lifespan  # noqa: E402
from learnportal.routing import a2e_urlpatterns, websocket_urlpatterns  # noqa: E402
from learnportal.ws.origin import BrowserOriginValidator  # noqa: E402

# uvicorn runs no system checks (manage.py and runserver do): refuse to serve on settings that
# they call wrong, such as a strategy parameter out of its range (refinement/checks.py).
if serious := [str(issue) for issue in run_checks() if issue.is_serious()]:
    raise ImproperlyConfigured("System checks failed:\n" + "\n".join(serious))

# Ingest allocates many short-lived containers per batch. Freeze what start-up made, so that
# collections never rescan it, and collect the young generation less often (measured in
# BENCHMARKS.md: about 12 ms of a 1000-experience batch went to the collector).
gc.collect()
gc.freeze()
gc.set_threshold(50_000, 20, 20)

# A small request served beside a long one (an adapt's loops over a thousand weights) waits for
# the GIL at each of its hops between the event loop and its thread, and Python hands the GIL
# over only after its switch interval, 5 ms by default: a dozen hops made 40 ms. At 1 ms the
# wait is a fifth (measured in BENCHMARKS.md, the hot path); a thread alone is not interrupted.
sys.setswitchinterval(0.001)

# Channels' URLRouter takes any ASGI application; Django's stubs type re_path's view as a view.
django_fallback = re_path(r"", django_asgi_app)  # type: ignore[arg-type]

protocols = ProtocolTypeRouter(
    {
        # The A2E transport's server-sent-event stream outlives a Django view: Channels serves it.
        "http": URLRouter([*a2e_urlpatterns, django_fallback]),
        "websocket": BrowserOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)


async def application(scope: dict[str, Any], receive: Any, send: Any) -> None:
    # Channels' router knows no `lifespan` scope (it would raise, and uvicorn then go without).
    if scope["type"] == "lifespan":
        await lifespan.serve(receive, send)
    else:
        await protocols(scope, receive, send)
