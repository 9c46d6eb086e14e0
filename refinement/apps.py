from __future__ import annotations

from django.apps import AppConfig
from django.core import checks


class RefinementConfig(AppConfig):
    name = "refinement"
    verbose_name = "Routing, refinements and the learning store"

    def ready(self) -> None:
        from refinement.checks import strategy_params_check

        checks.register(strategy_params_check)
