from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from refinement.history import history_record
from refinement.models import HistoryEntry

if TYPE_CHECKING:
    from django.test import Client

pytestmark = pytest.mark.django_db


def test_annotators_may_not_read_the_history(annotator: Client) -> None:
    assert annotator.get("/history/").status_code == 403


def test_the_history_is_newest_first_with_diff_summaries(reviewer: Client) -> None:
    history_record("apply", "user:someone", message="newest entry")
    page = reviewer.get("/history/").content.decode()
    assert page.index("newest entry") < page.index("7 proposals for all components")
    assert '<span class="change-path">router.weights.code_review</span><br>0.5 →' in page
    assert 'data-live-region="history"' in page


def test_the_history_is_paginated(reviewer: Client) -> None:
    for i in range(30):
        history_record("review", "user:bot", message=f"entry {i:02d}")
    first = reviewer.get("/history/").content.decode()
    second = reviewer.get("/history/", {"page": 2}).content.decode()
    assert "entry 29" in first and "entry 29" not in second
    assert "Page 2 of 2" in second
    assert "data-live-region" not in second  # only the first page follows live events
    assert HistoryEntry.objects.count() == 31


def test_the_partial_renders_only_the_list(reviewer: Client) -> None:
    history_record("reject", "user:rev", message="from the partial")
    response = reviewer.get("/history/", {"partial": "1"})
    body = response.content.decode()
    assert body.lstrip().startswith('<table class="history-table" id="history-list">')
    assert "from the partial" in body and "<html" not in body
