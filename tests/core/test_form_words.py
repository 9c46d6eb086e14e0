"""core.form_words: a form says what to do where the API says what pydantic refused."""

from __future__ import annotations

import pytest

from core.form_words import in_form_words


@pytest.mark.parametrize(
    ("pydantic", "form"),
    [
        ("Field required", "Required: fill this in, or choose one."),
        ("String should have at most 5000 characters", "Too long: keep it to 5000 characters."),
        ("String should have at least 1 character", "Required: fill this in."),
        (
            "Input should be a valid number, unable to parse string as a number",
            "Enter a number, such as 0.5.",
        ),
        ("Input should be less than or equal to 1", "Too high: enter 1 or less."),
        ("Input should be greater than or equal to -1", "Too low: enter -1 or more."),
        ("Input should be 'human', 'env' or 'self'", "Choose one of 'human', 'env' or 'self'."),
        ("Extra inputs are not permitted", "Not part of this form: reload the page and try again."),
    ],
)
def test_each_pydantic_refusal_becomes_what_to_do(pydantic: str, form: str) -> None:
    assert in_form_words(pydantic) == form


def test_a_sentence_of_our_own_is_shown_as_it_is() -> None:
    assert in_form_words("Text may not be blank") == "Text may not be blank"
