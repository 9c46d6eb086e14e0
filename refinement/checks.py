"""Refinement's system checks: `manage.py check` runs them, and so does every server start-up.

The strategy parameters come from the environment (learnportal/settings.py reads them); their
ranges are those of `refinement.strategies.PARAMS`, judged here once, so that a bad value stops
the server with an error naming the variable to fix.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core import checks

from refinement.strategies.base import PARAMS, param

BAD_STRATEGY_PARAM = "refinement.E001"


def strategy_params_check(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    params = settings.LEARNPORTAL_STRATEGY_PARAMS
    variables = getattr(settings, "LEARNPORTAL_STRATEGY_VARIABLES", {})
    errors: list[checks.CheckMessage] = []
    for name, spec in PARAMS.items():
        try:
            param(params, name)
        except ValueError as exc:
            variable = variables.get(name, f"LEARNPORTAL_STRATEGY_PARAMS[{name!r}]")
            errors.append(
                checks.Error(
                    f"{variable}: {exc}",
                    hint=f"Set {variable} within that range, or unset it for {spec.default:g}.",
                    id=BAD_STRATEGY_PARAM,
                )
            )
    return errors
