"""The stylesheets under static/ parse as their author meant: a block left open swallows every
rule after it into a media query (it once hid the agreement page's desktop styles)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[3] / "static"
COMMENT = re.compile(r"/\*.*?\*/", re.S)


@pytest.mark.parametrize("path", sorted(STATIC.rglob("*.css")), ids=lambda p: p.name)
def test_every_stylesheet_closes_each_block_it_opens(path: Path) -> None:
    depth = 0
    for number, line in enumerate(COMMENT.sub("", path.read_text()).splitlines(), 1):
        depth += line.count("{") - line.count("}")
        assert depth >= 0, f"{path.name}:{number} closes a block never opened"
    assert depth == 0, f"{path.name} leaves {depth} block(s) open"
