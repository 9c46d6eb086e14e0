"""Each history entry's paths, kept so the history page filters by path without a scan."""

from __future__ import annotations

from importlib import import_module
from typing import Any

import pytest
from django.apps import apps

from refinement.history import entry_paths, history_record
from refinement.models import HistoryPath

pytestmark = pytest.mark.django_db


def test_an_entry_keeps_each_path_its_diff_names_once() -> None:
    diff: list[dict[str, Any]] = [
        {"path": "router.weights.x", "before": 0.5, "after": 0.6},
        {"path": "router.weights.x", "before": 0.6, "after": 0.7},
        {"before": {"path": "learnings/a.md"}, "after": {"path": "learnings/b.md"}},
    ]
    assert entry_paths(diff) == ["router.weights.x", "learnings/a.md", "learnings/b.md"]
    entry = history_record("apply", "user:a", project="default", diff=diff)
    assert sorted(entry.paths.values_list("path", flat=True)) == [
        "learnings/a.md",
        "learnings/b.md",
        "router.weights.x",
    ]


def test_the_migration_backfills_the_paths_of_entries_recorded_before_it() -> None:
    history_record(
        "apply",
        "user:a",
        project="default",
        diff=[{"path": "router.weights.x", "before": 0, "after": 1}],
    )
    history_record(
        "change",
        "user:a",
        project="default",
        diff=[{"before": {"path": "learnings/a.md"}, "after": {}}],
    )
    HistoryPath.objects.all().delete()

    import_module("refinement.migrations.0003_history_paths").backfill(apps, None)

    assert sorted(HistoryPath.objects.values_list("path", flat=True)) == [
        "learnings/a.md",
        "router.weights.x",
    ]
