from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "learnportal.accounts"
    label = "accounts"
    verbose_name = "Accounts and tokens"

    def ready(self) -> None:
        from learnportal.accounts import signals  # noqa: F401  (drops cached principals on change)
