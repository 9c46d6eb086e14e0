"""The typed environment readers: each bad value stops start-up with a message naming it."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

import pytest

from core import env
from core.env import ConfigError

if TYPE_CHECKING:
    from pathlib import Path


def test_origins_are_read_as_scheme_host_and_port(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORIGINS", " https://Portal.Example.com , http://127.0.0.1:8000,")
    assert env.env_origins("ORIGINS") == ["https://portal.example.com", "http://127.0.0.1:8000"]


def test_no_origins_when_the_variable_is_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ORIGINS", raising=False)
    assert env.env_origins("ORIGINS") == []


@pytest.mark.parametrize(
    "value",
    [
        "portal.example.com",  # no scheme
        "ftp://portal.example.com",
        "https://portal.example.com/path",
        "https://*.example.com",
        "https://user@portal.example.com",
        "https://portal.example.com:99999",
        "https://",
    ],
)
def test_an_origin_that_is_not_scheme_host_and_port_is_refused(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("ORIGINS", value)
    with pytest.raises(ConfigError, match=r"^ORIGINS: .* is not an origin"):
        env.env_origins("ORIGINS")


def test_a_proxy_header_name_becomes_the_request_meta_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROXY", "X-Forwarded-Proto")
    assert env.env_proxy_ssl_header("PROXY") == ("HTTP_X_FORWARDED_PROTO", "https")
    monkeypatch.setenv("PROXY", "")
    assert env.env_proxy_ssl_header("PROXY") is None


@pytest.mark.parametrize("value", ["X Forwarded Proto", "X-Forwarded-Proto: https", "1"])
def test_a_proxy_header_that_is_not_a_header_name_is_refused(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("PROXY", value)
    with pytest.raises(ConfigError, match=r"^PROXY must be a header name"):
        env.env_proxy_ssl_header("PROXY")


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("", "KEY must be set when DJANGO_DEBUG is not 1"),
        ("k" * 49, "KEY must be at least 50 characters in production, got 49"),
        ("ab" * 30, "KEY must have at least 5 different characters"),
        ("django-insecure-" + "abcdefgh" * 5, "KEY must not start with 'django-insecure-'"),
    ],
)
def test_production_refuses_a_weak_secret_key(
    monkeypatch: pytest.MonkeyPatch, key: str, message: str
) -> None:
    monkeypatch.setenv("KEY", key)
    with pytest.raises(ConfigError, match="^" + re.escape(message)):
        env.env_secret_key("KEY", debug=False)


def test_production_takes_a_long_secret_key(monkeypatch: pytest.MonkeyPatch) -> None:
    key = "a1B2c3D4e5" * 5
    monkeypatch.setenv("KEY", key)
    assert env.env_secret_key("KEY", debug=False) == key


def test_development_takes_any_key_and_makes_one_up_when_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("KEY", "short")
    assert env.env_secret_key("KEY", debug=True) == "short"
    monkeypatch.delenv("KEY")
    assert env.env_secret_key("KEY", debug=True).startswith("dev-only-insecure")


def test_the_dev_env_file_is_written_once_with_debug_and_a_long_key(tmp_path: Path) -> None:
    path = tmp_path / ".env"
    assert env.write_dev_env_file(path) is True
    first = path.read_text()
    assert env.write_dev_env_file(path) is False
    assert path.read_text() == first
    values = dict(
        line.split("=", 1) for line in first.splitlines() if line and not line.startswith("#")
    )
    assert values["DJANGO_DEBUG"] == "1"
    assert len(values["DJANGO_SECRET_KEY"]) >= 50
    assert os.stat(path).st_mode & 0o077 == 0  # the key is the owner's alone


def test_two_dev_env_files_get_different_keys(tmp_path: Path) -> None:
    env.write_dev_env_file(tmp_path / "a.env")
    env.write_dev_env_file(tmp_path / "b.env")
    assert (tmp_path / "a.env").read_text() != (tmp_path / "b.env").read_text()


def test_the_env_file_never_overrides_the_real_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / ".env"
    path.write_text("LP_TEST_KEPT=from-file\nLP_TEST_ADDED=from-file\n")
    monkeypatch.setenv("LP_TEST_KEPT", "from-shell")
    monkeypatch.delenv("LP_TEST_ADDED", raising=False)
    env.load_env_file(path)
    assert os.environ["LP_TEST_KEPT"] == "from-shell"
    assert os.environ.pop("LP_TEST_ADDED") == "from-file"


def test_a_missing_env_file_changes_nothing(tmp_path: Path) -> None:
    before = dict(os.environ)
    env.load_env_file(tmp_path / "absent.env")
    env.load_env_file("")
    assert dict(os.environ) == before
