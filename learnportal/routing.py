from __future__ import annotations

from django.urls import path, re_path

from learnportal.a2e.consumers import SendConsumer, SessionConsumer, StreamConsumer
from learnportal.ws.events import EventsConsumer
from learnportal.ws.learn import LearnConsumer

websocket_urlpatterns = [
    path("ws/learn/", LearnConsumer.as_asgi()),
    path("ws/events/", EventsConsumer.as_asgi()),
]

# The A2E SDK's HTTPTransport at the base URL http://HOST:PORT/a2e (learnportal.a2e); every other
# HTTP path goes on to Django (learnportal/asgi.py).
a2e_urlpatterns = [
    re_path(r"^a2e/session/?$", SessionConsumer.as_asgi()),
    re_path(r"^a2e/send/?$", SendConsumer.as_asgi()),
    re_path(r"^a2e/stream/?$", StreamConsumer.as_asgi()),
]
