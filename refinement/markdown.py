"""Learnings files as a reviewer reads them: Markdown rendered, then sanitized.

markdown-it-py renders CommonMark (and tables) with raw HTML off, so a `<script>` in a SKILL.md
is text; nh3 then keeps only harmless tags and attributes, in case a rule of either library
lets something through. Images are dropped: the Content-Security-Policy would refuse any from
elsewhere, and a learnings file has none of its own.
"""

from __future__ import annotations

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

TAGS = nh3.ALLOWED_TAGS - {"img", "area", "map"}
ATTRIBUTES = {"a": {"href", "title"}, "th": {"scope"}, "ol": {"start"}, "code": {"class"}}
URL_SCHEMES = {"http", "https", "mailto"}

_renderer = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")


def markdown_html(text: str) -> SafeString:
    html = _renderer.render(text)
    cleaned = nh3.clean(
        html,
        tags=TAGS,
        attributes=ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
    )
    return mark_safe(cleaned)  # sanitized just above


def is_markdown(path: str) -> bool:
    return path.endswith(".md")
