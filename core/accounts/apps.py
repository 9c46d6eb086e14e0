from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "core.accounts"
    label = "accounts"
    verbose_name = "Accounts and tokens"

    def ready(self) -> None:
        from core.accounts import signals  # noqa: F401  (drops cached principals on change)
