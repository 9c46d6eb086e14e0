"""accounts.services: people and tokens, as the admins' pages and the commands change them.

Every change counts at once: the cached principal of a revoked token, a deactivated person or a
changed role is dropped when the change is saved (accounts.signals), so the next frame of an
open socket is judged by the new state without waiting for the cache's TTL.
"""

from __future__ import annotations

import pytest

from core.accounts import services
from core.accounts.credentials import Credential, principals
from core.accounts.models import ApiToken, User, hash_token
from core.accounts.roles import Role
from learnportal_protocol.errors import ErrorCode, LearnError

pytestmark = pytest.mark.django_db


def locs(error: pytest.ExceptionInfo[LearnError]) -> list[list[object]]:
    return [item["loc"] for item in error.value.details]


def cached(raw: str) -> Credential:
    """The credential of a token, its principal now in the cache (as an open socket has it)."""
    credential = Credential("token", hash_token(raw))
    assert principals.principal(credential) is not None
    assert principals.is_fresh(credential)
    return credential


def person(username: str = "erin", role: str = "annotator") -> User:
    return services.person_add(username=username, role=role, password="long-enough-1")


def test_it_issues_a_machine_token_whose_raw_value_is_not_stored() -> None:
    token, raw = services.token_issue(name="checkout-agent", role="agent")

    assert (token.role, token.user) == ("agent", None)
    assert raw.startswith("lp_") and raw not in {token.key_hash, token.hint}
    assert ApiToken.objects.get(key_hash=hash_token(raw)) == token


@pytest.mark.parametrize(
    ("name", "role", "loc", "code"),
    [
        ("", "agent", ["name"], ErrorCode.INVALID),
        ("two\nlines", "agent", ["name"], ErrorCode.INVALID),
        ("x" * 151, "agent", ["name"], ErrorCode.INVALID),
        ("bot", "reviewer", ["role"], ErrorCode.INVALID),
        ("bot", "", ["role"], ErrorCode.INVALID),
    ],
)
def test_it_refuses_a_token_naming_the_field(
    name: str, role: str, loc: list[str], code: str
) -> None:
    with pytest.raises(LearnError) as error:
        services.token_issue(name=name, role=role)

    assert error.value.code == code
    assert locs(error) == [loc]
    assert not ApiToken.objects.exists()


def test_a_revoked_tokens_name_stays_taken() -> None:
    token, _ = services.token_issue(name="gym-1", role="environment")
    services.token_revoke(token=token)

    with pytest.raises(LearnError) as error:
        services.token_issue(name="gym-1", role="environment")

    assert error.value.code == ErrorCode.CONFLICT
    assert locs(error) == [["name"]]


def test_revoking_drops_the_cached_principal_at_once() -> None:
    token, raw = services.token_issue(name="runner", role="agent")
    credential = cached(raw)

    services.token_revoke(token=token)

    assert not principals.is_fresh(credential)
    assert principals.principal(credential) is None


def test_revoking_twice_is_a_conflict() -> None:
    token, _ = services.token_issue(name="runner", role="agent")
    services.token_revoke(token=token)

    with pytest.raises(LearnError) as error:
        services.token_revoke(token=token)
    assert error.value.code == ErrorCode.CONFLICT


def test_a_personal_token_is_named_after_its_person_and_acts_with_their_role() -> None:
    erin = person()
    token, raw = services.personal_token_issue(user=erin, label="laptop")

    assert token.name == "erin:laptop"
    principal = principals.principal(Credential("token", hash_token(raw)))
    assert principal is not None
    assert (principal.name, principal.role) == ("erin", Role.ANNOTATOR)


def test_a_personal_tokens_label_is_checked_by_its_own_name() -> None:
    erin = person()
    services.personal_token_issue(user=erin, label="laptop")

    with pytest.raises(LearnError) as error:
        services.personal_token_issue(user=erin, label="laptop")
    assert locs(error) == [["label"]]
    with pytest.raises(LearnError) as error:
        services.personal_token_issue(user=erin, label="a:b")
    assert locs(error) == [["label"]]


def test_a_person_revokes_only_their_own_tokens() -> None:
    erin, frank = person("erin"), person("frank")
    franks, _ = services.personal_token_issue(user=frank, label="laptop")

    with pytest.raises(LearnError) as error:
        services.personal_token_revoke(user=erin, token_id=franks.pk)

    assert error.value.code == ErrorCode.NOT_FOUND
    franks.refresh_from_db()
    assert franks.is_active
    services.personal_token_revoke(user=frank, token_id=franks.pk)
    franks.refresh_from_db()
    assert not franks.is_active


def test_an_admin_is_a_superuser_and_staff_and_a_demoted_one_is_neither() -> None:
    boss, erin = person("boss", "admin"), person("erin", "annotator")
    assert (boss.is_superuser, boss.is_staff) == (True, True)

    services.person_set_role(actor=boss, person=erin, role="admin")
    erin.refresh_from_db()
    assert (erin.effective_role, erin.is_superuser, erin.is_staff) == (Role.ADMIN, True, True)

    services.person_set_role(actor=boss, person=erin, role="reviewer")
    erin.refresh_from_db()
    assert (erin.effective_role, erin.is_superuser, erin.is_staff) == (Role.REVIEWER, False, False)


def test_a_role_change_reaches_the_cached_principal_of_a_personal_token_at_once() -> None:
    boss, erin = person("boss", "admin"), person("erin", "annotator")
    _, raw = services.personal_token_issue(user=erin, label="script")
    credential = cached(raw)

    services.person_set_role(actor=boss, person=erin, role="reviewer")

    assert not principals.is_fresh(credential)
    principal = principals.principal(credential)
    assert principal is not None and principal.role is Role.REVIEWER


def test_deactivating_a_person_kills_their_tokens_at_once_and_reactivating_revives_them() -> None:
    boss, erin = person("boss", "admin"), person("erin", "annotator")
    _, raw = services.personal_token_issue(user=erin, label="script")
    credential = cached(raw)

    services.person_set_active(actor=boss, person=erin, active=False)
    assert principals.principal(credential) is None

    services.person_set_active(actor=boss, person=erin, active=True)
    assert principals.principal(credential) is not None


def test_an_admin_may_neither_deactivate_nor_demote_themselves() -> None:
    boss = person("boss", "admin")

    with pytest.raises(LearnError) as error:
        services.person_set_active(actor=boss, person=boss, active=False)
    assert error.value.code == ErrorCode.FORBIDDEN
    with pytest.raises(LearnError):
        services.person_set_role(actor=boss, person=boss, role="reviewer")
    boss.refresh_from_db()
    assert (boss.is_active, boss.effective_role) == (True, Role.ADMIN)


@pytest.mark.parametrize(
    ("username", "role", "password", "loc"),
    [
        ("bad name!", "annotator", "long-enough-1", ["username"]),
        ("erin", "agent", "long-enough-1", ["role"]),
        ("erin", "annotator", "short", ["password"]),
    ],
)
def test_it_refuses_a_person_naming_the_field(
    username: str, role: str, password: str, loc: list[str]
) -> None:
    with pytest.raises(LearnError) as error:
        services.person_add(username=username, role=role, password=password)

    assert loc in locs(error)
    assert not User.objects.exists()


def test_a_taken_username_is_a_conflict_on_the_username() -> None:
    person("erin")
    with pytest.raises(LearnError) as error:
        person("erin", "admin")
    assert error.value.code == ErrorCode.CONFLICT
    assert locs(error) == [["username"]]
