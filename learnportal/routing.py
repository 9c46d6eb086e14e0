from __future__ import annotations

from django.urls import path

from learnportal.ws.events import EventsConsumer
from learnportal.ws.learn import LearnConsumer

websocket_urlpatterns = [
    path("ws/learn/", LearnConsumer.as_asgi()),
    path("ws/events/", EventsConsumer.as_asgi()),
]
