"""Typed readers for environment variables that fail loudly on bad values."""

from __future__ import annotations

import os
from collections.abc import Iterable


class ConfigError(ValueError):
    pass


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    lowered = raw.strip().lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ConfigError(f"{name} must be a boolean (1/0, true/false), got {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be an integer, got {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ConfigError(f"{name} must be at least {minimum}, got {value}")
    return value


def env_float(
    name: str, default: float, *, minimum: float | None = None, maximum: float | None = None
) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number, got {raw!r}") from None
    if (
        value != value
        or (minimum is not None and value < minimum)
        or (maximum is not None and value > maximum)
    ):
        raise ConfigError(f"{name} must be within [{minimum}, {maximum}], got {raw!r}")
    return value


def env_choice(name: str, default: str, choices: Iterable[str]) -> str:
    allowed = tuple(choices)
    value = os.environ.get(name, "") or default
    if value not in allowed:
        raise ConfigError(f"{name} must be one of {', '.join(allowed)}, got {value!r}")
    return value


def env_list(name: str, default: str, choices: Iterable[str]) -> list[str]:
    allowed = tuple(choices)
    raw = os.environ.get(name)
    raw = default if raw is None else raw
    values = [part.strip() for part in raw.split(",") if part.strip()]
    unknown = [value for value in values if value not in allowed]
    if unknown:
        raise ConfigError(f"{name} has unknown values {unknown}; allowed: {', '.join(allowed)}")
    return values
