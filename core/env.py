"""Typed readers for environment variables that fail loudly on bad values."""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
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


def env_origins(name: str, default: str = "") -> list[str]:
    """Comma-separated origins, each `http(s)://host[:port]` and nothing else, lowercased."""
    raw = os.environ.get(name)
    values = [part.strip() for part in (default if raw is None else raw).split(",")]
    return [_origin(name, value) for value in values if value]


def _origin(name: str, value: str) -> str:
    problem = f"{name}: {value!r} is not an origin (scheme://host[:port], http or https)"
    try:
        parts = urlsplit(value)
        port = parts.port  # raises on a port out of range
    except ValueError:
        raise ConfigError(problem) from None
    if (
        parts.scheme not in {"http", "https"}
        or not parts.hostname
        or "*" in parts.netloc
        or "@" in parts.netloc
        or (port is None and parts.netloc.endswith(":"))
        or parts.path
        or parts.query
        or parts.fragment
    ):
        raise ConfigError(problem)
    return f"{parts.scheme}://{parts.netloc.lower()}"


def env_proxy_ssl_header(name: str) -> tuple[str, str] | None:
    """A header the proxy sets to `https` on secure requests, e.g. `X-Forwarded-Proto`.

    Returned as Django's SECURE_PROXY_SSL_HEADER. Only set it behind a proxy that always sets
    or strips this header: otherwise a client could claim HTTPS itself.
    """
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    if not _HEADER_NAME.fullmatch(raw):
        raise ConfigError(f"{name} must be a header name such as X-Forwarded-Proto, got {raw!r}")
    return ("HTTP_" + raw.upper().replace("-", "_"), "https")


_HEADER_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*(-[A-Za-z0-9]+)+")

SECRET_KEY_MIN_LENGTH = 50
DEV_SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"


def env_secret_key(name: str, *, debug: bool) -> str:
    """The secret key; production refuses one Django's deploy check would call weak."""
    key = os.environ.get(name, "")
    if debug:
        return key or DEV_SECRET_KEY
    if not key:
        raise ConfigError(f"{name} must be set when DJANGO_DEBUG is not 1")
    # The same rules as Django's security.W009; the key itself never goes into a message.
    hint = "make one with: python -c 'import secrets; print(secrets.token_urlsafe(50))'"
    if len(key) < SECRET_KEY_MIN_LENGTH:
        raise ConfigError(
            f"{name} must be at least {SECRET_KEY_MIN_LENGTH} characters in production, "
            f"got {len(key)}; {hint}"
        )
    if len(set(key)) < 5:
        raise ConfigError(f"{name} must have at least 5 different characters; {hint}")
    if key.startswith("django-insecure-"):
        raise ConfigError(f"{name} must not start with 'django-insecure-'; {hint}")
    return key


# --- the dev env file -----------------------------------------------------------------------
# `make` writes it once so that the docs' commands, typed in a plain shell, run in
# development mode as `make run` does. It never overrides a variable the environment has.

DEV_ENV_FILE = """\
# Written once by `make` for development on this machine; do not use it in production.
# Variables set in the environment win over the values here.
DJANGO_DEBUG=1
DJANGO_SECRET_KEY={key}
"""


def load_env_file(path: str | os.PathLike[str]) -> None:
    """Add the variables of a dotenv file that the environment does not have; none if absent."""
    if not str(path) or not Path(path).is_file():
        return
    from dotenv import load_dotenv

    load_dotenv(path, override=False, interpolate=False)


def write_dev_env_file(path: str | os.PathLike[str]) -> bool:
    """Write the dev env file with a fresh secret key, unless it exists. True if written."""
    try:
        # Exclusive create: a second `make` never replaces the key (sessions would end).
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w") as file:
        file.write(DEV_ENV_FILE.format(key=secrets.token_urlsafe(SECRET_KEY_MIN_LENGTH)))
    return True


if __name__ == "__main__":  # python -m core.env PATH: what `make` runs
    import sys

    if len(sys.argv) != 2:
        sys.exit("usage: python -m core.env PATH  (writes the dev env file once)")
    if write_dev_env_file(sys.argv[1]):
        print(f"Wrote {sys.argv[1]}: development settings for manage.py and make.")
