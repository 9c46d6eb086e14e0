"""The templates keep one naming: a page at `<app>/<page>.html`, a partial it includes at
`<app>/partials/<name>.html`, and every include names a template that exists."""

from __future__ import annotations

import re
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"
INCLUDE = re.compile(r"""{%\s*include\s+["']([^"']+)["']""")


def test_no_template_is_named_like_a_partial_outside_a_partials_folder() -> None:
    underscored = [str(p.relative_to(TEMPLATES)) for p in TEMPLATES.rglob("_*.html")]
    assert underscored == []


def test_every_included_template_is_a_partial_that_exists() -> None:
    included = {
        name for path in TEMPLATES.rglob("*.html") for name in INCLUDE.findall(path.read_text())
    }
    assert included, "no include found: the pattern no longer matches the templates"
    assert sorted(n for n in included if "/partials/" not in n) == []
    assert sorted(n for n in included if not (TEMPLATES / n).is_file()) == []
