"""Where a client is and as whom, when its caller does not say: the environment's defaults."""

from __future__ import annotations

import os

URL_VARIABLE = "LEARNPORTAL_URL"  # the host's base URL, `http://127.0.0.1:8000`
TOKEN_VARIABLE = "LEARNPORTAL_TOKEN"  # an agent's (or environment's) raw API token


def given_or_environment(given: str | None, argument: str, variable: str) -> str:
    """`given` if the caller passed it (even empty), else `variable` of the environment.

    Neither (the variable unset or blank) is a ValueError that names both ways to say it.
    """
    if given is not None:
        return given
    value = os.environ.get(variable, "").strip()
    if not value:
        raise ValueError(f"no {argument} given: pass {argument}=... or set {variable}")
    return value
