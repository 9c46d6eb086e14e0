"""A saved change to a person, a token or a session reaches the principal cache and open sockets
at once, in every process (accounts.credentials, accounts.invalidation)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib.auth.signals import user_logged_out
from django.contrib.sessions.models import Session
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from core.accounts.credentials import principals
from core.accounts.models import ApiToken, User

if TYPE_CHECKING:
    from django.http import HttpRequest


@receiver([post_save, post_delete], sender=User)
def _person_changed(sender: type[User], instance: User, **kwargs: Any) -> None:
    # Dropped now for this transaction's own later reads, and again once committed (and then
    # in every process), since a lookup in between may have read the state from before.
    principals.drop(user_id=instance.pk)
    transaction.on_commit(lambda: principals.changed(user_id=instance.pk))


@receiver([post_save, post_delete], sender=ApiToken)
def _token_changed(sender: type[ApiToken], instance: ApiToken, **kwargs: Any) -> None:
    principals.drop(token_id=instance.pk)
    transaction.on_commit(lambda: principals.changed(token_id=instance.pk))


@receiver(post_delete, sender=Session)
def _session_deleted(sender: type[Session], instance: Session, **kwargs: Any) -> None:
    # A logout, an admin's removal, or `clearsessions` sweeping expired ones: once committed,
    # a socket that looks again finds the session gone.
    key = instance.session_key
    transaction.on_commit(lambda: principals.session_ended(key))


@receiver(user_logged_out)
def _logged_out(sender: Any, request: HttpRequest, **kwargs: Any) -> None:
    # Django sends this before it flushes the session: a socket told now would look again, find
    # the session still there and stay open. So the session is flushed first (Django's own flush
    # then finds nothing left), whatever the session engine. django-axes, earlier in
    # INSTALLED_APPS, has read the session's key for its access log by now.
    key = request.session.session_key
    if key:
        request.session.flush()
        principals.session_ended(key)
