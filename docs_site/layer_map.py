"""The layers of the tree as the layer test reads them (tests/test_layers.py): a picture of the
folders, one band a layer, and the map of which package imports which.

`python -m docs_site.layer_map` rewrites docs/explanation/layers.svg; a test fails when the
committed picture is not the tree's.
"""

from __future__ import annotations

import sys
from html import escape
from pathlib import Path

from tests.test_layers import RANK, ROOT, imported, layers, modules

SVG_PATH = ROOT / "docs" / "explanation" / "layers.svg"
WHAT = {
    "wiring": "settings, URLs, dispatch, transports, demo",
    "app": "models, services, selectors, pages",
    "base": "accounts, events, limits, CSP, env",
    "wire": "the learn/* models: pure pydantic",
}
WIDTH, BAND, BOX_HEIGHT, LEFT = 760, 92, 46, 330


def bands(found: dict[str, str]) -> list[tuple[str, list[str]]]:
    """Each layer, top (the wiring) first, with its packages."""
    by_kind = sorted(RANK, key=RANK.__getitem__, reverse=True)
    return [(kind, sorted(p for p, k in found.items() if k == kind)) for kind in by_kind]


def svg(found: dict[str, str]) -> str:
    rows = bands(found)
    height = BAND * len(rows) + 20
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" font-family="sans-serif" font-size="14" '
        'role="img" aria-labelledby="title">',
        '<title id="title">LearnPortal\'s layers, top to bottom; imports point down</title>',
        f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
        '<defs><marker id="head" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="8" '
        'markerHeight="8" orient="auto"><path d="M0,0 L10,5 L0,10 z" fill="#555"/></marker></defs>',
        f'<line x1="24" y1="24" x2="24" y2="{height - 24}" stroke="#555" stroke-width="2" '
        'marker-end="url(#head)"/>',
        f'<text x="36" y="{height / 2}" fill="#555" transform="rotate(90 36 {height / 2})" '
        'text-anchor="middle">imports point down</text>',
    ]
    for row, (kind, packages) in enumerate(rows):
        top = 10 + row * BAND
        out += [
            f'<rect x="56" y="{top}" width="{WIDTH - 66}" height="{BAND - 10}" rx="8" '
            f'fill="{["#e8f0fe", "#e6f4ea", "#fef7e0", "#fce8e6"][row % 4]}" stroke="#999"/>',
            f'<text x="68" y="{top + 30}" font-weight="bold">{escape(kind)}</text>',
            f'<text x="68" y="{top + 52}" font-size="11" fill="#444">'
            f"{escape(WHAT.get(kind, ''))}</text>",
        ]
        slot = (WIDTH - LEFT - 20) / max(len(packages), 1)
        for index, package in enumerate(packages):
            x = LEFT + index * slot + 8
            out += [
                f'<rect x="{x:.0f}" y="{top + 18}" width="{slot - 16:.0f}" '
                f'height="{BOX_HEIGHT}" rx="6" fill="#ffffff" stroke="#333"/>',
                f'<text x="{x + (slot - 16) / 2:.0f}" y="{top + 46}" text-anchor="middle" '
                f'font-family="monospace">{escape(package)}/</text>',
            ]
    return "\n".join([*out, "</svg>", ""])


def import_counts(root: Path = ROOT) -> dict[tuple[str, str], int]:
    """For each pair of packages, how many modules of the first import the second."""
    found = layers(root)
    counts: dict[tuple[str, str], int] = {}
    for top in found:
        for _, tree in modules(top, root):
            targets = {name.split(".")[0] for _, name in imported(tree)}
            for target in targets & found.keys() - {top}:
                counts[top, target] = counts.get((top, target), 0) + 1
    return counts


def import_map(root: Path = ROOT) -> str:
    """A table, importers down and what they import across, each layer above the next: a
    number above the diagonal would be an import running back up."""
    found = layers(root)
    order = [p for _, packages in bands(found) for p in packages]
    counts = import_counts(root)
    head = "| importer ↓ imports → | " + " | ".join(order) + " |"
    lines = [head, "| --- |" + " --- |" * len(order)]
    for importer in order:
        cells = []
        for target in order:
            count = counts.get((importer, target), 0)
            going_up = RANK[found[target]] > RANK[found[importer]]
            cells.append(str(count) if count else ("·" if target != importer else "—"))
            if going_up and count:
                cells[-1] = f"**{count} (up!)**"
        lines.append(f"| `{importer}` ({found[importer]}) | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else SVG_PATH
    target.write_text(svg(layers()))
    print(f"Wrote {target}")
