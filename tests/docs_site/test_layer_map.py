"""The picture of the layers in the docs is the tree's, and the import map shows every arrow,
one running back up marked as such."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_site.layer_map import SVG_PATH, import_counts, import_map, svg
from tests.test_layers import HOUSE, layers, plant

if TYPE_CHECKING:
    from pathlib import Path


def test_the_committed_picture_is_the_trees() -> None:
    stale = "the tree's layers changed: redraw with `python -m docs_site.layer_map`"
    assert SVG_PATH.read_text() == svg(layers()), stale


def test_the_picture_names_every_package_in_its_layer(tmp_path: Path) -> None:
    root = plant(tmp_path, {**HOUSE, "quality/__init__.py": "", "quality/apps.py": ""})
    picture = svg(layers(root))
    for package in ("learnportal/", "feedback/", "quality/", "core/", "learnportal_protocol/"):
        assert f">{package}</text>" in picture


def test_the_import_map_counts_modules_and_marks_an_import_running_up(tmp_path: Path) -> None:
    root = plant(
        tmp_path,
        {
            **HOUSE,
            "feedback/services.py": "from core import events\nimport core.web\n",
            "feedback/pages.py": "from core.web import page\n",
            "core/accounts.py": "from feedback import selectors\n",
        },
    )
    assert import_counts(root) == {("feedback", "core"): 2, ("core", "feedback"): 1}
    rows = {line.split(" | ")[0]: line for line in import_map(root).splitlines()}
    assert "**1 (up!)**" in rows["| `core` (base)"]
    assert "**" not in rows["| `feedback` (app)"] and " 2 " in rows["| `feedback` (app)"]
