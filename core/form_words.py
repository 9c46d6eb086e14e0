"""Pydantic's refusals reworded for a person filling in a form: what to do, not what failed.

The API keeps pydantic's words in `details` (the contract's `invalid`); a page shows these
beside the field instead (`core.web.show_learn_error`). One table, as healthchecks'
CUSTOM_ERRORS: a message that matches no row is already a sentence and is shown as it is.
"""

from __future__ import annotations

import re

FORM_WORDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), words)
    for pattern, words in (
        (r"Field required", "Required: fill this in, or choose one."),
        (
            r"String should have at most (?P<n>\d+) characters?",
            "Too long: keep it to {n} characters.",
        ),
        (r"String should have at least 1 character", "Required: fill this in."),
        (
            r"String should have at least (?P<n>\d+) characters",
            "Too short: write {n} characters at least.",
        ),
        (r"Input should be a valid integer.*", "Enter a whole number, such as 3."),
        (r"Input should be a valid number.*", "Enter a number, such as 0.5."),
        (r"Input should be a finite number", "Enter a number, such as 0.5."),
        (r"Input should be less than or equal to (?P<n>\S+)", "Too high: enter {n} or less."),
        (r"Input should be greater than or equal to (?P<n>\S+)", "Too low: enter {n} or more."),
        (r"Input should be less than (?P<n>\S+)", "Too high: enter less than {n}."),
        (r"Input should be greater than (?P<n>\S+)", "Too low: enter more than {n}."),
        (r"Input should be (?P<n>'[^']*'(?:(?:, | or )'[^']*')+)", "Choose one of {n}."),
        (r"Input should be a valid string", "Enter text here."),
        (
            r"Extra inputs are not permitted",
            "Not part of this form: reload the page and try again.",
        ),
    )
)


def in_form_words(message: str) -> str:
    """`message` as a form says it beside its field."""
    for pattern, words in FORM_WORDS:
        found = pattern.fullmatch(message)
        if found:
            return words.format(**found.groupdict())
    return message
