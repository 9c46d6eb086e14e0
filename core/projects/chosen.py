"""The project a person acts in on the pages: their home project unless they chose another.

The choice is the slug kept in their session. It is judged again on every request, so a choice
that is no longer enterable (their membership ended, the project is gone) falls back to the home
project instead of failing the page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.accounts.principals import principal_for_user
from core.projects.selection import PROJECT_FIELD, principal_in
from learnportal_protocol.errors import LearnError, detail, not_found

if TYPE_CHECKING:
    from django.contrib.sessions.backends.base import SessionBase

    from core.accounts.models import User
    from core.accounts.principals import Principal

CHOSEN_PROJECT_KEY = "learnportal.project"


def principal_chosen(user: User, session: SessionBase) -> Principal:
    """`user` acting in the project their session chose, else in their home project."""
    home = principal_for_user(user)
    slug = session.get(CHOSEN_PROJECT_KEY)
    if not isinstance(slug, str):
        return home
    try:
        return principal_in(home, slug)
    except LearnError:
        return home


def project_choose(user: User, session: SessionBase, slug: str) -> Principal:
    """Act in `slug` from now on; `not_found` (nothing kept) for one `user` may not enter."""
    if not slug:
        raise not_found("Choose a project.", [detail([PROJECT_FIELD], "no such project")])
    chosen = principal_in(principal_for_user(user), slug)
    session[CHOSEN_PROJECT_KEY] = chosen.project
    return chosen
