from __future__ import annotations

from django.urls import path

from learnportal.people import pages

# People and tokens, under / in the `portal` namespace (learnportal.urls).
page_urlpatterns = [
    path("accounts/", pages.people_index, name="people"),
    path("accounts/people/", pages.person_add, name="person-add"),
    path("accounts/people/<int:person_id>/role/", pages.person_role, name="person-role"),
    path("accounts/people/<int:person_id>/active/", pages.person_active, name="person-active"),
    path("accounts/tokens/", pages.token_index, name="tokens"),
    path("accounts/tokens/new/", pages.token_create, name="token-create"),
    path("accounts/tokens/<int:token_id>/revoke/", pages.token_revoke, name="token-revoke"),
    path("tokens/", pages.own_token_index, name="own-tokens"),
    path("tokens/new/", pages.own_token_create, name="own-token-create"),
    path("tokens/<int:token_id>/revoke/", pages.own_token_revoke, name="own-token-revoke"),
]
