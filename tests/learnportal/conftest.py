"""The overview and the login: the demo cast of tests/pages.py."""

from tests.pages import _fast_passwords  # noqa: F401
