"""API tokens (clubs.tokens, clubs.authentication): personal and integration tokens,
their scopes, expiry and revocation, Basic credentials off by default, the account
page that makes them and shows each once."""

from __future__ import annotations

import base64
import datetime
from typing import Any

import pytest
from django.contrib.auth.hashers import check_password
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from clubs import tokens
from clubs.models import ApiToken, AuditEntry, Club, Role, RoleAssignment, TokenKind
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery"


@pytest.fixture
def second_factor_required(settings: Any) -> None:
    """Officials' powers wait for a second factor (on in production, off in the tests,
    tests/conftest.py): a token is a second factor of its own, so their tokens act
    with their roles all the same."""
    settings.SECOND_FACTOR_FOR_OFFICIALS = True


def bearer(plain: str, keyword: str = "Bearer") -> dict[str, str]:
    return {"Authorization": f"{keyword} {plain}", "Accept-Language": "en"}


def basic(username: str, password: str) -> dict[str, str]:
    text = base64.b64encode(f"{username}:{password}".encode()).decode()
    return {"Authorization": f"Basic {text}", "Accept-Language": "en"}


def personal(user: Any, scope: str = "write", days: int | None = 30) -> str:
    return tokens.create_personal_token(
        user, name="script", scope=scope, expires_in_days=days
    ).plain


def club_patch(client: Any, club: Club, headers: dict[str, str], name: str = "Renamed") -> Any:
    return client.patch(
        f"/api/clubs/{club.pk}/", {"name": name}, content_type="application/json", headers=headers
    )


# --- Stored hashed, shown once


def test_a_token_is_stored_hashed_and_its_text_nowhere(world) -> None:
    made = tokens.create_personal_token(
        world.plain, name="results script", scope="read", expires_in_days=90
    )
    assert made.plain.startswith(f"zary_{made.token.prefix}_")
    assert len(made.plain) == len("zary_") + 8 + 1 + 43
    row = ApiToken.objects.get(pk=made.token.pk)
    assert row.key_hash == tokens.digest(made.plain)
    secret = made.plain.rsplit("_", 1)[1]
    for value in ApiToken.objects.values_list(flat=False).get(pk=row.pk):
        assert secret not in str(value)
    entry = AuditEntry.objects.get(action="token.create")
    assert entry.target_id == row.pk
    assert secret not in str(entry.after)


# --- Scopes


def test_a_read_token_reads_and_may_not_write(client, world) -> None:
    plain = personal(world.club_admin, scope="read")
    assert client.get("/api/clubs/", headers=bearer(plain)).status_code == 200
    refused = club_patch(client, world.club, bearer(plain))
    assert refused.status_code == 403
    assert "may only read" in refused.json()["detail"]
    world.club.refresh_from_db()
    assert world.club.name != "Renamed"


def test_a_write_token_writes_as_its_owner(client, world, second_factor_required) -> None:
    plain = personal(world.club_admin)
    response = club_patch(client, world.club, bearer(plain, "Token"))
    assert response.status_code == 200, response.content
    world.club.refresh_from_db()
    assert world.club.name == "Renamed"
    # The token is the owner's, and no more: another federation's club stays closed.
    assert club_patch(client, world.other_club, bearer(plain)).status_code in (403, 404)


# --- Refusals: 401 with the Bearer challenge


def assert_refused(response: Any, words: str) -> None:
    assert response.status_code == 401, response.content
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'
    assert words in response.json()["detail"]


def test_a_revoked_token_is_refused(client, world) -> None:
    made = tokens.create_personal_token(
        world.club_admin, name="x", scope="write", expires_in_days=None
    )
    tokens.revoke_token(made.token, by=world.club_admin)
    assert_refused(client.get("/api/clubs/", headers=bearer(made.plain)), "revoked")
    assert AuditEntry.objects.filter(action="token.revoke", target_id=made.token.pk).exists()


def test_an_expired_token_is_refused(client, world) -> None:
    made = tokens.create_personal_token(
        world.club_admin, name="x", scope="write", expires_in_days=1
    )
    ApiToken.objects.filter(pk=made.token.pk).update(
        expires_at=timezone.now() - datetime.timedelta(seconds=1)
    )
    assert_refused(client.get("/api/clubs/", headers=bearer(made.plain)), "expired")


@pytest.mark.parametrize(
    ("header", "words"),
    [
        ("Bearer zary_0000000a_" + "A" * 43, "Unknown API token"),
        ("Bearer zary_short", "not a Zary API token"),
        ("Bearer zary_0000000a_" + "A" * 42 + "\u00e9", "not a Zary API token"),
        ("Bearer two words", "Send one API token"),
        ("Bearer", "Send one API token"),
    ],
)
def test_unknown_and_malformed_tokens_are_refused(client, world, header, words) -> None:
    response = client.get("/api/clubs/", HTTP_AUTHORIZATION=header, HTTP_ACCEPT_LANGUAGE="en")
    assert_refused(response, words)


def test_a_token_with_the_right_prefix_and_a_wrong_secret_is_refused(client, world) -> None:
    made = tokens.create_personal_token(world.plain, name="x", scope="read", expires_in_days=None)
    forged = made.plain[:-1] + ("a" if made.plain[-1] != "a" else "b")
    assert_refused(client.get("/api/clubs/", headers=bearer(forged)), "Unknown API token")


def test_a_write_without_credentials_is_a_401_with_the_challenge(client, world) -> None:
    response = club_patch(client, world.club, {"Accept-Language": "en"})
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == 'Bearer realm="api"'


def test_a_deactivated_owner_s_token_is_refused(client, world) -> None:
    plain = personal(world.plain)
    world.plain.is_active = False
    world.plain.save()
    assert_refused(client.get("/api/clubs/", headers=bearer(plain)), "deactivated")


# --- Basic credentials: off by default, on for a legacy client


@pytest.fixture
def password_checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every password hash checked (through the user model's check_password)."""
    calls: list[str] = []
    from django.contrib.auth import base_user

    def counting(password: str, encoded: str, *args: Any, **kwargs: Any) -> bool:
        calls.append(password)
        return check_password(password, encoded, *args, **kwargs)

    monkeypatch.setattr(base_user, "check_password", counting)
    return calls


def test_basic_credentials_are_refused_by_default_without_a_password_check(
    client, world, password_checks
) -> None:
    response = client.get("/api/clubs/", headers=basic("club_admin", PASSWORD))
    assert_refused(response, "Password authentication is off for the API")
    assert password_checks == []


def test_basic_credentials_work_when_the_setting_allows_them(
    client, world, settings, password_checks
) -> None:
    settings.API_BASIC_AUTH = True
    response = club_patch(client, world.club, basic("club_admin", PASSWORD))
    assert response.status_code == 200, response.content
    assert password_checks == [PASSWORD]
    wrong = client.get("/api/reports/", headers=basic("club_admin", "wrong"))
    assert wrong.status_code == 401


def test_the_schema_documents_the_bearer_scheme_and_basic_only_when_on(client, settings) -> None:
    schemes = client.get("/api/schema/?format=json").json()["components"]["securitySchemes"]
    assert schemes["bearerAuth"]["type"] == "http"
    assert schemes["bearerAuth"]["scheme"] == "bearer"
    assert "basicAuth" not in schemes
    settings.API_BASIC_AUTH = True
    schemes = client.get("/api/schema/?format=json").json()["components"]["securitySchemes"]
    assert schemes["basicAuth"] == {"type": "http", "scheme": "basic"}


# --- Last use: written at most once a minute


def test_last_use_is_written_once_a_minute(client, world) -> None:
    made = tokens.create_personal_token(world.plain, name="x", scope="read", expires_in_days=None)
    first = tokens.authenticate_token(made.plain)
    assert first.last_used_at is not None
    with CaptureQueriesContext(connection) as queries:
        again = tokens.authenticate_token(made.plain)
    assert [q["sql"] for q in queries if q["sql"].startswith("UPDATE")] == []
    assert len(queries) == 1  # the token and its user, in one query
    assert again.last_used_at == first.last_used_at
    later = timezone.now() + datetime.timedelta(minutes=2)
    tokens.authenticate_token(made.plain, now=later)
    made.token.refresh_from_db()
    assert made.token.last_used_at == later


def test_an_api_request_marks_the_token_used(client, world) -> None:
    made = tokens.create_personal_token(world.plain, name="x", scope="read", expires_in_days=None)
    assert made.token.last_used_at is None
    assert client.get("/api/reports/", headers=bearer(made.plain)).status_code == 200
    made.token.refresh_from_db()
    assert made.token.last_used_at is not None


# --- Integration tokens


def club_role_token(world: Any, scope: str = "write") -> tokens.NewToken:
    return tokens.create_role_token(
        Role.CLUB_ADMIN,
        world.club,
        by=world.fed_admin,
        name="Scoreboard",
        scope=scope,
        expires_in_days=None,
    )


def test_an_integration_token_acts_with_its_role_after_its_creator_loses_theirs(
    client, world, second_factor_required
) -> None:
    made = club_role_token(world)
    account = made.token.user
    assert account.username == f"integration-{made.token.prefix}"
    assert not account.has_usable_password()
    assert made.token.kind == TokenKind.ROLE
    assert RoleAssignment.objects.get(user=account).granted_by == world.fed_admin
    account.refresh_from_db()
    assert not account.is_staff  # it never signs in to the admin
    RoleAssignment.objects.filter(user=world.fed_admin).delete()
    response = club_patch(client, world.club, bearer(made.plain))
    assert response.status_code == 200, response.content
    world.club.refresh_from_db()
    assert world.club.name == "Renamed"


def test_a_federation_admin_token_does_a_federation_admin_s_write(
    client, world, second_factor_required
) -> None:
    made = tokens.create_role_token(
        Role.FEDERATION_ADMIN,
        world.federation,
        by=world.site_admin,
        name="Federation site",
        scope="write",
        expires_in_days=365,
    )
    response = client.post(
        "/api/clubs/",
        {
            "federation": world.federation.pk,
            "name": "Made by the site",
            "slug": "made-by-site",
            "city": "Kazan",
        },
        content_type="application/json",
        headers=bearer(made.plain),
    )
    assert response.status_code == 201, response.content
    assert Club.objects.filter(slug="made-by-site", federation=world.federation).exists()


def test_only_who_may_grant_the_role_makes_an_integration_token(world) -> None:
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        tokens.create_role_token(
            Role.FEDERATION_ADMIN,
            world.federation,
            by=world.fed_admin,  # only site admins appoint federation admins
            name="x",
            scope="read",
            expires_in_days=None,
        )
    with pytest.raises(PermissionDenied):
        tokens.create_role_token(
            Role.CLUB_ADMIN,
            world.other_club,
            by=world.fed_admin,
            name="x",
            scope="read",
            expires_in_days=None,
        )
    assert not ApiToken.objects.exists()


def test_revoking_an_integration_token_takes_its_role_away(client, world) -> None:
    made = club_role_token(world)
    account = made.token.user
    # Another admin of the federation may revoke it (they may grant that role there).
    colleague = UserFactory(username="colleague")
    RoleAssignment.objects.create(
        user=colleague,
        role=Role.FEDERATION_ADMIN,
        scope_type=ContentType.objects.get_for_model(type(world.federation)),
        scope_id=world.federation.pk,
    )
    assert made.token in tokens.role_tokens(colleague)
    tokens.revoke_token(made.token, by=colleague)
    assert not RoleAssignment.objects.filter(user=account).exists()
    account.refresh_from_db()
    assert not account.is_active
    assert_refused(client.get("/api/clubs/", headers=bearer(made.plain)), "revoked")
    assert AuditEntry.objects.filter(action="role.revoke").exists()


def test_nobody_else_revokes_a_token(world) -> None:
    from django.core.exceptions import PermissionDenied

    mine = tokens.create_personal_token(world.plain, name="x", scope="read", expires_in_days=None)
    with pytest.raises(PermissionDenied):
        tokens.revoke_token(mine.token, by=world.fed_admin)
    integration = club_role_token(world)
    with pytest.raises(PermissionDenied):
        tokens.revoke_token(integration.token, by=world.club_admin)  # may not grant club admin
    with pytest.raises(PermissionDenied):
        tokens.revoke_token(integration.token, by=world.other_fed_admin)
    assert ApiToken.objects.filter(revoked_at__isnull=True).count() == 2


# --- The account page


def test_the_account_page_shows_a_new_token_once(client, world) -> None:
    client.force_login(world.plain)
    response = client.post(
        "/accounts/tokens/new/", {"name": "my script", "scope": "read", "expiry": "30"}
    )
    assert response.status_code == 302
    token = ApiToken.objects.get(user=world.plain)
    page = client.get("/accounts/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    shown = [word for word in page.split('"') if word.startswith(f"zary_{token.prefix}_")]
    assert len(shown) == 1 and tokens.digest(shown[0]) == token.key_hash
    assert "won&#x27;t see it again" in page or "won't see it again" in page
    again = client.get("/accounts/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert shown[0] not in again
    assert f"zary_{token.prefix}_…" in again  # listed by its prefix
    assert shown[0] not in str(dict(client.session))


def test_the_account_page_revokes_and_refuses_other_users_tokens(client, world) -> None:
    theirs = tokens.create_personal_token(
        world.fed_admin, name="x", scope="read", expires_in_days=None
    )
    client.force_login(world.plain)
    response = client.post(f"/accounts/tokens/{theirs.token.pk}/revoke/", follow=True)
    assert response.status_code == 200
    assert "not yours to revoke" in response.content.decode()
    stale = client.post("/accounts/tokens/999999/revoke/", follow=True)
    assert stale.status_code == 200
    assert "not yours to revoke" in stale.content.decode()
    theirs.token.refresh_from_db()
    assert theirs.token.revoked_at is None
    mine = tokens.create_personal_token(
        world.plain, name="mine", scope="read", expires_in_days=None
    )
    revoked = client.post(f"/accounts/tokens/{mine.token.pk}/revoke/", follow=True)
    assert "is revoked" in revoked.content.decode()
    mine.token.refresh_from_db()
    assert mine.token.revoked_at is not None


def test_the_account_page_makes_an_integration_token(client, world) -> None:
    client.force_login(world.fed_admin)
    page = client.get("/accounts/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Integration tokens" in page
    choice = tokens_choice(Role.CLUB_ADMIN, world.club)
    assert choice in page
    response = client.post(
        "/accounts/tokens/integration/new/",
        {"grant": choice, "name": "Scoreboard", "scope": "write", "expiry": "never"},
    )
    assert response.status_code == 302
    token = ApiToken.objects.get(kind=TokenKind.ROLE)
    assert token.role == Role.CLUB_ADMIN and token.role_scope == world.club
    assert token.created_by == world.fed_admin
    # A club the fed admin does not rule is no choice, and a forged one is refused.
    forged = client.post(
        "/accounts/tokens/integration/new/",
        {
            "grant": tokens_choice(Role.CLUB_ADMIN, world.other_club),
            "name": "x",
            "scope": "read",
            "expiry": "30",
        },
        follow=True,
    )
    assert "was not created" in forged.content.decode()
    assert ApiToken.objects.count() == 1


def test_a_player_sees_no_integration_section(client, world) -> None:
    client.force_login(world.plain)
    page = client.get("/accounts/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "API tokens" in page
    assert "Integration tokens" not in page


def tokens_choice(role: str, scope: Any) -> str:
    from clubs.views.tokens import grant_value

    return grant_value(role, scope)


# --- The admin: site admins revoke a leaked token


def test_a_site_admin_revokes_a_leaked_token_in_the_admin(client, world) -> None:
    leaked = tokens.create_personal_token(world.plain, name="x", scope="read", expires_in_days=None)
    client.force_login(world.fed_admin)
    assert client.get("/admin/clubs/apitoken/").status_code == 403
    client.force_login(world.site_admin)
    page = client.get("/admin/clubs/apitoken/")
    assert page.status_code == 200
    assert leaked.plain not in page.content.decode()
    response = client.post(
        "/admin/clubs/apitoken/",
        {"action": "revoke", "_selected_action": [leaked.token.pk]},
        follow=True,
    )
    assert response.status_code == 200
    leaked.token.refresh_from_db()
    assert leaked.token.revoked_at is not None
    entry = AuditEntry.objects.get(action="token.revoke")
    assert entry.actor == world.site_admin
