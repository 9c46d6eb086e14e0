from __future__ import annotations

from django.urls import path

from webhooks import pages
from webhooks.api import DeliveriesView, RedeliverView, WebhooksView, WebhookView

# Under /api/ (learnportal.urls).
urlpatterns = [
    path("webhooks/", WebhooksView.as_view(), name="webhooks"),
    path("webhooks/<int:endpoint_id>/", WebhookView.as_view(), name="webhook"),
    path(
        "webhooks/<int:endpoint_id>/deliveries/",
        DeliveriesView.as_view(),
        name="webhook-deliveries",
    ),
    path(
        "webhooks/<int:endpoint_id>/deliveries/<int:delivery_id>/redeliver/",
        RedeliverView.as_view(),
        name="webhook-redeliver",
    ),
]

# The admins' pages, under / in the `portal` namespace (learnportal.urls).
page_urlpatterns = [
    path("webhooks/", pages.webhook_index, name="webhooks"),
    path("webhooks/new/", pages.webhook_create, name="webhook-create"),
    path("webhooks/<int:endpoint_id>/", pages.webhook_detail, name="webhook"),
    path("webhooks/<int:endpoint_id>/delete/", pages.webhook_delete, name="webhook-delete"),
    path(
        "webhooks/<int:endpoint_id>/deliveries/<int:delivery_id>/redeliver/",
        pages.webhook_redeliver,
        name="webhook-redeliver",
    ),
]
