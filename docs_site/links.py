"""Links from the docs to the repository's other files (BENCHMARKS.md, the client's README,
examples/), written as relative paths so that they work on GitHub, and made to work in the site.

A page links `../../BENCHMARKS.md` as GitHub reads it. The site holds only `docs/`, so each
file of the repository that a page links to is added to the site under `repo/` (a Markdown file
as a page, any other file as it is) and the link is rewritten to it. A link to a file that does
not exist is left alone for MkDocs to report, which `--strict` makes an error.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from pathlib import Path

# Where the repository's files go in the site: `repo/BENCHMARKS.md`, `repo/examples/turns.csv`.
OUTSIDE = "repo"

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
INLINE_LINK = re.compile(r"(\]\()(<[^>]*>|[^()\s]+)((?:\s+\"[^\"]*\")?\))")
REFERENCE = re.compile(r"^(\s{0,3}\[[^\]]+\]:\s+)(\S+)(.*)$", re.MULTILINE)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def rewrite_targets(markdown: str, rewrite: Callable[[str], str | None]) -> str:
    """The Markdown with each link's target passed through `rewrite` (None keeps it), leaving
    code blocks and code spans as they are."""
    out: list[str] = []
    prose: list[str] = []
    fenced = False
    for line in markdown.splitlines(keepends=True):
        if FENCE.match(line):
            if not fenced:
                out.append(_rewrite_prose("".join(prose), rewrite))
                prose = []
            fenced = not fenced
            out.append(line)
        elif fenced:
            out.append(line)
        else:
            prose.append(line)
    out.append(_rewrite_prose("".join(prose), rewrite))
    return "".join(out)


def _rewrite_prose(text: str, rewrite: Callable[[str], str | None]) -> str:
    def one(target: str) -> str:
        return rewrite(target) or target

    def inline(match: re.Match[str]) -> str:
        return match[1] + one(match[2]) + match[3]

    def reference(match: re.Match[str]) -> str:
        return match[1] + one(match[2]) + match[3]

    parts, last = [], 0
    for span in CODE_SPAN.finditer(text):
        outside = text[last : span.start()]
        parts.append(REFERENCE.sub(reference, INLINE_LINK.sub(inline, outside)))
        parts.append(span[0])
        last = span.end()
    parts.append(REFERENCE.sub(reference, INLINE_LINK.sub(inline, text[last:])))
    return "".join(parts)


def targets(markdown: str) -> list[str]:
    """Every link target of the Markdown, outside code."""
    found: list[str] = []

    def keep(target: str) -> None:
        found.append(target)

    rewrite_targets(markdown, lambda target: keep(target))
    return found


def relative_file(target: str) -> tuple[str, str] | None:
    """A link to a file by relative path, as (path, anchor); None for a URL or an anchor."""
    if target.startswith(("#", "/", "<")) or SCHEME.match(target):
        return None
    path, _, anchor = target.partition("#")
    return (path, anchor) if path else None


class RepositoryFiles:
    """The repository's files outside `docs/` that the docs link to, and the links to them."""

    def __init__(self, repo: Path, docs: Path) -> None:
        self.repo, self.docs = repo.resolve(), docs.resolve()
        self.outside: set[Path] = set()

    def site_path(self, path: Path) -> str:
        """Where a file of the repository is in the site (its `src_uri`)."""
        if path.is_relative_to(self.docs):
            return path.relative_to(self.docs).as_posix()
        return f"{OUTSIDE}/{path.relative_to(self.repo).as_posix()}"

    def linked_from(self, page: Path, markdown: str) -> Iterator[Path]:
        """The files of the repository outside `docs/` that the page links to, which exist."""
        for target in targets(markdown):
            found = self._resolve(page, target)
            if found is not None and not found.is_relative_to(self.docs) and found.is_file():
                yield found

    def collect(self, pages: dict[Path, str], named: Iterable[str] = ()) -> set[Path]:
        """Every outside file the pages link to, those the outside pages link to in turn, and
        those named by their place in the site (`repo/BENCHMARKS.md` in the nav)."""
        waiting = dict(pages)
        for uri in named:
            found = self.repo / uri.removeprefix(f"{OUTSIDE}/")
            if uri.startswith(f"{OUTSIDE}/") and found.is_file():
                self.outside.add(found)
                waiting[found] = found.read_text()
        while waiting:
            page, markdown = waiting.popitem()
            for found in self.linked_from(page, markdown):
                if found not in self.outside:
                    self.outside.add(found)
                    if found.suffix == ".md":
                        waiting[found] = found.read_text()
        return self.outside

    def rewrite(self, page: Path, markdown: str) -> str:
        """The page's links, each to where its file is in the site, relative to the page."""
        here = posixpath.dirname(self.site_path(page.resolve()))

        def to_site(target: str) -> str | None:
            found = self._resolve(page, target)
            if found is None or not (found.is_relative_to(self.docs) or found in self.outside):
                return None
            anchor = target.partition("#")[2]
            link = posixpath.relpath(self.site_path(found), here or ".")
            return f"{link}#{anchor}" if anchor else link

        return rewrite_targets(markdown, to_site)

    def _resolve(self, page: Path, target: str) -> Path | None:
        relative = relative_file(target)
        if relative is None:
            return None
        found = (page.resolve().parent / relative[0]).resolve()
        return found if found.is_relative_to(self.repo) else None


def unlink_dead(markdown: str, page: Path) -> str:
    """The Markdown with each link to a missing file made plain text (its words stay).

    For the documents copied as they were given (docs/learning-store.md): their links point
    into the project they were written for, which this repository does not hold.
    """

    def dead(target: str) -> bool:
        relative = relative_file(target)
        return relative is not None and not (page.parent / relative[0]).exists()

    def plain(match: re.Match[str]) -> str:
        return match[1] if dead(match[2]) else match[0]

    out, fenced = [], False
    for line in markdown.splitlines(keepends=True):
        if FENCE.match(line):
            fenced = not fenced
        out.append(line if fenced else re.sub(r"\[([^\]]+)\]\(([^()\s]+)\)", plain, line))
    return "".join(out)
