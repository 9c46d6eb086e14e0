"""The app's routes plus the bare view (bench/baseline_settings.py)."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from learnportal.urls import urlpatterns as app_urlpatterns


@csrf_exempt
def bare(request: HttpRequest) -> JsonResponse:
    """What Django itself costs: the same middleware, a body read, a JSON answer, no query."""
    return JsonResponse({"type": "bare", "req_id": "", "size": len(request.body)})


urlpatterns = [*app_urlpatterns, path("bench/bare/", bare)]
