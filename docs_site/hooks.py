"""MkDocs hooks (mkdocs.yml): the generated parts of the site and its links into the repository.

- A page may hold a marker, `<!-- generated: NAME -->`, which the build replaces with what the
  code says: `openapi` (drf-spectacular's document of the API), `commands` (every management
  command's usage), `roles` (who may do what) or `import-map` (which package imports which,
  from the tree).
- `reference/openapi.json` is the OpenAPI document itself, for download.
- Links to the repository's files outside docs/ are made to work in the site (docs_site.links).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mkdocs.structure.files import File, InclusionLevel

if TYPE_CHECKING:
    from collections.abc import Callable

    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files
    from mkdocs.structure.pages import Page

REPO = Path(__file__).resolve().parents[1]
# Copies of the documents the project was given, kept as they are (docs/README.md): their links
# point into the project they were written for, so those that lead nowhere here become text.
VERBATIM = {"learning-store.md"}
MARKER = re.compile(r"^<!-- generated: ([a-z-]+) -->$", re.MULTILINE)

# What on_files found, for the pages: the repository's files in the site, the OpenAPI document.
_build: dict[str, Any] = {}


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Django set up, as `manage.py` would in development, to read the API and the commands."""
    if str(REPO) not in sys.path:  # the project's packages, whichever mkdocs script runs this
        sys.path.insert(0, str(REPO))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "learnportal.settings")
    os.environ.setdefault("DJANGO_DEBUG", "1")
    import django

    django.setup()
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    from docs_site.links import RepositoryFiles
    from docs_site.openapi import schema_document

    repository = RepositoryFiles(REPO, Path(config.docs_dir))
    pages = {
        Path(file.abs_src_path): Path(file.abs_src_path).read_text()
        for file in files.documentation_pages()
        if file.abs_src_path
    }
    in_nav = set(nav_paths(config.nav))
    for found in sorted(repository.collect(pages, named=in_nav)):
        uri = repository.site_path(found)
        # In the site, and in the nav only where mkdocs.yml puts it (the README is linked).
        inclusion = InclusionLevel.INCLUDED if uri in in_nav else InclusionLevel.NOT_IN_NAV
        files.append(File.generated(config, uri, abs_src_path=str(found), inclusion=inclusion))
    _build["files"] = repository
    _build["openapi"] = schema_document()
    document = json.dumps(_build["openapi"], indent=2)
    files.append(File.generated(config, "reference/openapi.json", content=document))
    return files


def nav_paths(nav: object) -> list[str]:
    """Every page path the nav names, however deeply nested."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, dict):
        return [path for value in nav.values() for path in nav_paths(value)]
    if isinstance(nav, list):
        return [path for item in nav for path in nav_paths(item)]
    return []


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    from docs_site.links import unlink_dead

    source = Path(page.file.abs_src_path or "")
    if page.file.src_uri in VERBATIM:
        markdown = unlink_dead(markdown, source)
    markdown = _build["files"].rewrite(source, markdown)
    return MARKER.sub(lambda match: GENERATORS[match[1]](), markdown)


def _openapi() -> str:
    from docs_site import openapi

    return openapi.markdown(_build["openapi"])


def _commands() -> str:
    from docs_site import commands

    return commands.markdown(commands.project_commands())


def _import_map() -> str:
    from docs_site.layer_map import import_map

    return import_map()


def _roles() -> str:
    from docs_site import roles

    return roles.markdown()


GENERATORS: dict[str, Callable[[], str]] = {
    "roles": _roles,
    "openapi": _openapi,
    "commands": _commands,
    "import-map": _import_map,
}
