"""Markdown as the portal shows it (learnings files, a project's guidelines): rendered, then
sanitized.

markdown-it-py renders CommonMark (and tables) with raw HTML off, so a `<script>` in a SKILL.md
or a project's guidelines is text; nh3 then keeps only harmless tags and attributes, in case a rule of either library
lets something through. Images are dropped: the Content-Security-Policy would refuse any from
elsewhere, and neither a learnings file nor the guidelines have any of their own.
"""

from __future__ import annotations

from urllib.parse import urljoin

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

TAGS = nh3.ALLOWED_TAGS - {"img", "area", "map"}
ATTRIBUTES = {"a": {"href", "title"}, "th": {"scope"}, "ol": {"start"}, "code": {"class"}}
URL_SCHEMES = {"http", "https", "mailto"}

_renderer = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def markdown_html(text: str, *, base: str) -> SafeString:
    """The text as HTML; a relative link (`references/auth.md`) is resolved against `base`,
    the URL of the file's folder, so that it works on any page that shows the file."""

    def resolve(tag: str, attribute: str, value: str) -> str | None:
        if tag == "a" and attribute == "href" and not value.startswith("#"):
            return urljoin(base, value)
        return value

    tokens = _renderer.parse(text)
    for token in tokens:
        if token.type in {"heading_open", "heading_close"}:
            # The page has its own h1: the file's headings sit one level below it.
            token.tag = f"h{min(int(token.tag[1]) + 1, 6)}"
    html = _renderer.renderer.render(tokens, _renderer.options, {})
    cleaned = nh3.clean(
        html,
        tags=TAGS,
        attributes=ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        attribute_filter=resolve,
    )
    return mark_safe(cleaned)  # sanitized just above
