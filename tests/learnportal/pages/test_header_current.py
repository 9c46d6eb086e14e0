"""The header marks the section a page belongs to (aria-current), for the quality pages too:
a review is rating's, the judges and each person's work are agreement's, the intake rules and
gold items a project's."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from tests.harness import human_actor

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("url", "role", "section"),
    [
        ("/review/", "reviewer", "Rate"),
        ("/reviews/", "reviewer", "Rate"),
        ("/judges/", "reviewer", "Agreement"),
        ("/annotators/", "reviewer", "Agreement"),
        ("/intake/", "manager", "Projects"),
        ("/gold/", "manager", "Projects"),
    ],
)
def test_a_quality_page_marks_its_section_in_the_header(url: str, role: str, section: str) -> None:
    page = human_actor("someone", role).browser().get(url)
    assert page.status_code == 200
    soup = BeautifulSoup(page.content, "html.parser")
    current = [a.get_text(strip=True) for a in soup.select("header nav a[aria-current=page]")]
    assert current == [section]
