from django.apps import AppConfig


class RefinementConfig(AppConfig):
    name = "refinement"
    verbose_name = "Routing, refinements and the learning store"
