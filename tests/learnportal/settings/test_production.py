"""Production (DJANGO_DEBUG unset or 0): what it refuses, and the HTTPS settings it can turn on."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

import pytest

from tests.processes import clean_env, manage, python_json

if TYPE_CHECKING:
    from pathlib import Path

GOOD_KEY = secrets.token_urlsafe(50)  # 67 characters

BEHIND_AN_HTTPS_PROXY = {
    "DJANGO_SECRET_KEY": GOOD_KEY,
    "DJANGO_ALLOWED_HOSTS": "portal.example.com",
    "DJANGO_SECURE_SSL_REDIRECT": "1",
    "DJANGO_SECURE_HSTS_SECONDS": "31536000",
    "DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
    "DJANGO_SECURE_HSTS_PRELOAD": "1",
    "DJANGO_SECURE_PROXY_SSL_HEADER": "X-Forwarded-Proto",
    "DJANGO_CSRF_TRUSTED_ORIGINS": "https://portal.example.com,https://admin.example.com:8443",
}


@pytest.mark.parametrize("debug", [None, "0"])
def test_production_refuses_to_start_without_a_secret_key(
    tmp_path: Path, debug: str | None
) -> None:
    env = clean_env(tmp_path, **({} if debug is None else {"DJANGO_DEBUG": debug}))
    result = manage("check", env=env)
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is not 1" in result.stderr


def test_production_refuses_a_secret_key_shorter_than_50_characters(tmp_path: Path) -> None:
    result = manage("check", env=clean_env(tmp_path, DJANGO_SECRET_KEY="x" * 20 + "abcdefghi"))
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be at least 50 characters in production, got 29" in (
        result.stderr
    )
    assert "x" * 20 not in result.stderr  # the key itself is never printed


def test_the_deploy_check_is_clean_behind_an_https_proxy(tmp_path: Path) -> None:
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        env=clean_env(tmp_path, **BEHIND_AN_HTTPS_PROXY),
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert "System check identified no issues" in result.stdout


def test_the_https_settings_come_from_their_environment_variables(tmp_path: Path) -> None:
    code = """
from django.conf import settings
print(json.dumps({name: getattr(settings, name) for name in (
    "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD", "SECURE_PROXY_SSL_HEADER", "CSRF_TRUSTED_ORIGINS",
    "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE")}))
"""
    seen = python_json(code, env=clean_env(tmp_path, **BEHIND_AN_HTTPS_PROXY))
    assert seen == {
        "SECURE_SSL_REDIRECT": True,
        "SECURE_HSTS_SECONDS": 31536000,
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": True,
        "SECURE_HSTS_PRELOAD": True,
        "SECURE_PROXY_SSL_HEADER": ["HTTP_X_FORWARDED_PROTO", "https"],
        "CSRF_TRUSTED_ORIGINS": ["https://portal.example.com", "https://admin.example.com:8443"],
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
    }


def test_without_them_nothing_redirects_and_no_proxy_is_trusted(tmp_path: Path) -> None:
    code = """
from django.conf import settings
print(json.dumps({name: getattr(settings, name) for name in (
    "SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "SECURE_PROXY_SSL_HEADER",
    "CSRF_TRUSTED_ORIGINS")}))
"""
    seen = python_json(code, env=clean_env(tmp_path, DJANGO_SECRET_KEY=GOOD_KEY))
    assert seen == {
        "SECURE_SSL_REDIRECT": False,
        "SECURE_HSTS_SECONDS": 0,
        "SECURE_PROXY_SSL_HEADER": None,
        "CSRF_TRUSTED_ORIGINS": [],
    }
