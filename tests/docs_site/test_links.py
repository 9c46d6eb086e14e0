"""Links from the docs to the repository's files outside docs/: found, added to the site,
rewritten to where they are in it; code is left alone; a copied document's dead links become
text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from docs_site.links import RepositoryFiles, targets, unlink_dead

if TYPE_CHECKING:
    from pathlib import Path


def plant(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


PAGE = """\
See [the figures](../../BENCHMARKS.md#ingest) and [a file](../../examples/turns.csv), [the
settings](../reference/settings.md), [the web](https://example.org/x.md) and [here](#top).

```sh
cat [not a link](../../NOT_IN_THE_SITE.md)
```

Inline `[nor this](../../ALSO_NOT.md)` either.
"""


def test_a_page_links_to_files_outside_docs_and_those_files_join_the_site(tmp_path: Path) -> None:
    repo = plant(
        tmp_path,
        {
            "docs/how-to/x.md": PAGE,
            "docs/reference/settings.md": "# Settings\n",
            "BENCHMARKS.md": "# Benchmarks\n\n[back](docs/how-to/x.md) [more](bench/NOTES.md)\n",
            "bench/NOTES.md": "# Notes\n",
            "examples/turns.csv": "prompt,response\n",
        },
    )
    files = RepositoryFiles(repo, repo / "docs")
    page = repo / "docs/how-to/x.md"
    found = files.collect({page: PAGE})
    assert {path.relative_to(repo).as_posix() for path in found} == {
        "BENCHMARKS.md",
        "bench/NOTES.md",  # linked from BENCHMARKS.md in turn
        "examples/turns.csv",
    }
    assert files.site_path(repo / "BENCHMARKS.md") == "repo/BENCHMARKS.md"

    rewritten = files.rewrite(page, PAGE)
    assert "[the figures](../repo/BENCHMARKS.md#ingest)" in rewritten
    assert "[a file](../repo/examples/turns.csv)" in rewritten
    assert "(../reference/settings.md)" in rewritten
    assert "(https://example.org/x.md)" in rewritten and "(#top)" in rewritten
    assert "(../../NOT_IN_THE_SITE.md)" in rewritten and "(../../ALSO_NOT.md)" in rewritten

    outside = repo / "BENCHMARKS.md"
    back = files.rewrite(outside, outside.read_text())
    assert "[back](../how-to/x.md)" in back and "[more](bench/NOTES.md)" in back


def test_a_link_to_a_missing_file_is_left_for_mkdocs_to_report(tmp_path: Path) -> None:
    repo = plant(tmp_path, {"docs/x.md": "[gone](../GONE.md)\n"})
    files = RepositoryFiles(repo, repo / "docs")
    assert files.collect({repo / "docs/x.md": "[gone](../GONE.md)\n"}) == set()
    assert files.rewrite(repo / "docs/x.md", "[gone](../GONE.md)\n") == "[gone](../GONE.md)\n"


def test_a_file_the_nav_names_joins_the_site_unlinked(tmp_path: Path) -> None:
    repo = plant(tmp_path, {"docs/x.md": "", "clients/README.md": "# Client\n"})
    files = RepositoryFiles(repo, repo / "docs")
    assert files.collect({}, named=["repo/clients/README.md", "x.md"]) == {
        repo / "clients/README.md"
    }


def test_targets_skip_code() -> None:
    assert targets(PAGE) == [
        "../../BENCHMARKS.md#ingest",
        "../../examples/turns.csv",
        "../reference/settings.md",
        "https://example.org/x.md",
        "#top",
    ]


def test_a_copied_documents_dead_links_become_their_words(tmp_path: Path) -> None:
    page = plant(tmp_path, {"docs/store.md": "", "docs/here.md": ""}) / "docs/store.md"
    text = "[Go](../../agent_go/x.go), [here](here.md), [web](https://a.b/)\n```\n[k](no.md)\n```\n"
    assert unlink_dead(text, page) == (
        "Go, [here](here.md), [web](https://a.b/)\n```\n[k](no.md)\n```\n"
    )
