"""The annotators' pages: the demo cast of tests/pages.py."""

from tests.pages import _fast_passwords, annotator, reviewer, second_reviewer, seeded  # noqa: F401
