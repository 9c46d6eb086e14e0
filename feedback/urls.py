from django.urls import path

from feedback.api import TurnsView

urlpatterns = [
    path("turns/", TurnsView.as_view(), name="turns"),
]
