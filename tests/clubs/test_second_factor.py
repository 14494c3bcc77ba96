"""Two-step sign-in (issue 20, point 4; clubs.second_factor): officials act only from a
session that gave a TOTP or recovery code; players may turn it on.  Every test here
turns SECOND_FACTOR_FOR_OFFICIALS on (tests/conftest.py turns it off for the rest)."""

from __future__ import annotations

import base64
import time
from typing import Any

import pytest
from django.contrib.auth import SESSION_KEY
from django.core.exceptions import PermissionDenied
from django.test import override_settings
from django.urls import reverse
from django_otp.oath import TOTP
from django_otp.plugins.otp_static.models import StaticToken
from django_otp.plugins.otp_totp.models import TOTPDevice

from clubs import permissions, second_factor, tokens
from clubs.models import AuditEntry, Role
from games.models import ResultStatus
from tests.factories import UserFactory, grant
from tests.tournaments import builders
from tournaments import services
from tournaments.models import Pairing

pytestmark = [
    pytest.mark.django_db,
    # Each wrong code makes django-otp wait before the next check (1 s, doubling):
    # these tests type codes back to back.  The throttle itself is django-otp's.
    pytest.mark.usefixtures("second_factor_on"),
]

PASSWORD = "correct-horse-battery"
EN = {"HTTP_ACCEPT_LANGUAGE": "en"}


@pytest.fixture
def second_factor_on() -> Any:
    with override_settings(
        SECOND_FACTOR_FOR_OFFICIALS=True, OTP_TOTP_THROTTLE_FACTOR=0, OTP_STATIC_THROTTLE_FACTOR=0
    ):
        yield


def code(device: TOTPDevice, steps: int = 0) -> str:
    """The code ``device``'s app shows ``steps`` periods from now (a code is accepted
    once, and the device takes the next period's as well: tolerance 1)."""
    totp = TOTP(device.bin_key, device.step, device.t0, device.digits, device.drift)
    totp.time = time.time() + steps * device.step
    return f"{totp.token():06d}"


def sign_in(client: Any, user: Any, **params: str) -> Any:
    return client.post(
        reverse("clubs:login"), {"username": user.username, "password": PASSWORD, **params}, **EN
    )


def give_code(client: Any, value: str, **params: str) -> Any:
    return client.post(reverse("clubs:second_factor_verify"), {"code": value, **params}, **EN)


def with_device(user: Any) -> tuple[TOTPDevice, list[str]]:
    device = TOTPDevice.objects.create(user=user, name="phone", confirmed=True)
    return device, second_factor.renew_recovery_codes(user)


def signed_in_user(client: Any) -> int | None:
    value = client.session.get(SESSION_KEY)
    return int(value) if value is not None else None


def messages_of(response: Any) -> list[str]:
    return [str(m) for m in response.context["messages"]]


# --- The done-when: an official without a second factor cannot override a result.


@pytest.fixture
def corrected_table() -> Any:
    """Round 1 of a Swiss under way, table 1's result official, and an organizer."""
    federation, admin, _discipline = builders.federation_with_admin()
    t = builders.tournament(4, "swiss", federation=federation, by=admin, rounds_planned=3)
    rnd = services.pair_next_round(t, by=admin)
    services.start_round(rnd, by=admin)
    pairing = Pairing.objects.select_related("match").get(round=rnd, table=1)
    services.enter_result(pairing, by=admin, score1=3, score2=1)
    organizer = UserFactory(username="organizer2fa")
    grant(organizer, Role.ORGANIZER, t)
    return t, rnd, organizer


def override(client: Any, t: Any, rnd: Any) -> Any:
    return builders.inline_result(client, t, rnd, 1, score1=1, score2=3, reason="sheet swapped")


def score(rnd: Any) -> tuple[int, int]:
    match = Pairing.objects.select_related("match").get(round=rnd, table=1).match
    assert match.result_status == ResultStatus.CONFIRMED
    return match.score1, match.score2


def test_an_organizer_with_a_password_alone_cannot_override_until_a_code(
    client: Any, corrected_table: Any
) -> None:
    t, rnd, organizer = corrected_table
    response = sign_in(client, organizer)
    # Signed in, told why, and sent to set up the second factor.
    assert signed_in_user(client) == organizer.pk
    assert response["Location"].startswith(reverse("clubs:second_factor_setup"))
    assert override(client, t, rnd).status_code == 403
    assert score(rnd) == (3, 1)

    setup = client.get(response["Location"], **EN)
    assert setup.status_code == 200
    assert any("two-step sign-in" in text for text in messages_of(setup))
    device = TOTPDevice.objects.get(user=organizer, confirmed=False)
    assert second_factor.secret_text(device).replace(" ", "") in setup.content.decode().replace(
        " ", ""
    )
    done = client.post(reverse("clubs:second_factor_setup"), {"code": code(device)}, **EN)
    assert done.status_code == 200 and len(done.context["codes"]) == 10
    assert override(client, t, rnd).status_code == 302
    assert score(rnd) == (1, 3)


def test_the_games_override_page_refuses_a_federation_admin_without_a_code(
    client: Any, corrected_table: Any
) -> None:
    """The other page that overrides (games:match_override) asks the same policy."""
    _t, rnd, _organizer = corrected_table
    match = Pairing.objects.get(round=rnd, table=1).match
    admin = UserFactory(username="fedadmin2fa")
    grant(admin, Role.FEDERATION_ADMIN, match.federation)
    client.force_login(admin)
    response = client.post(
        reverse("games:match_override", args=[match.pk]),
        {"score1": 0, "score2": 3, "reason": "No-show", "version": 0},
        **EN,
    )
    assert response.status_code == 403
    assert score(rnd) == (3, 1)


def test_a_site_admin_without_a_code_has_no_superuser_pass(rf: Any) -> None:
    boss = UserFactory(username="boss", is_staff=True, is_superuser=True)
    assert permissions.can(boss, "federation.create")
    boss._zary_powers_withheld = True
    assert not permissions.can(boss, "federation.create")
    assert not permissions.is_site_admin(boss) and not permissions.is_staff_admin(boss)
    # An API token is a second factor of its own (clubs.authentication).
    boss._zary_second_factor = "token"
    assert permissions.can(boss, "federation.create")


# --- The web admin.


def test_staff_without_a_second_factor_cannot_enter_the_admin(client: Any) -> None:
    boss = UserFactory(username="boss", is_staff=True, is_superuser=True)
    client.force_login(boss)  # a password alone
    response = client.get(reverse("admin:index"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("clubs:second_factor_setup"))
    # The admin's own sign-in (password only) hands over to ours.
    login = client.get(reverse("admin:login"))
    assert login["Location"].startswith(reverse("clubs:login"))

    device, _codes = with_device(boss)
    response = client.get(reverse("admin:index"))
    assert response["Location"].startswith(reverse("clubs:second_factor_verify"))
    verified = give_code(client, code(device), next=reverse("admin:index"))
    assert verified["Location"] == reverse("admin:index")
    assert client.get(reverse("admin:index")).status_code == 200


def test_a_site_admin_resets_a_lost_phone_from_the_admin(client: Any) -> None:
    boss = UserFactory(username="boss", is_staff=True, is_superuser=True)
    boss_device, _codes = with_device(boss)
    lost = UserFactory(username="lostphone")
    device, _codes = with_device(lost)
    sign_in(client, boss)
    give_code(client, code(boss_device))
    response = client.post(
        reverse("admin:otp_totp_totpdevice_changelist"),
        {"action": "reset_second_factor", "_selected_action": [device.pk]},
        **EN,
    )
    assert response.status_code == 302
    assert not TOTPDevice.objects.filter(user=lost).exists()
    assert not StaticToken.objects.filter(device__user=lost).exists()
    entry = AuditEntry.objects.get(action="second_factor.reset")
    assert (entry.actor, entry.target_id) == (boss, lost.pk)


def test_a_federation_admin_may_not_reset_someone_s_second_factor() -> None:
    lost = UserFactory(username="lostphone")
    with_device(lost)
    fed_admin = UserFactory(username="fedadmin")
    with pytest.raises(Exception, match="not allowed"):
        second_factor.reset(lost, by=fed_admin)
    assert TOTPDevice.objects.filter(user=lost).exists()


# --- Signing in in two steps.


def test_the_password_alone_signs_nobody_in_when_a_device_is_set_up(client: Any) -> None:
    official = UserFactory(username="arbiter2fa", is_staff=True)
    device, _codes = with_device(official)
    response = sign_in(client, official)
    assert response["Location"] == reverse("clubs:second_factor_verify")
    assert signed_in_user(client) is None
    wrong = give_code(client, "000000" if code(device) != "000000" else "111111")
    assert wrong.status_code == 200
    assert "That code is not right" in wrong.content.decode()
    assert signed_in_user(client) is None
    right = give_code(client, code(device))
    assert right.status_code == 302 and signed_in_user(client) == official.pk
    assert client.session.get("otp_device_id") == device.persistent_id


def test_a_recovery_code_works_once(client: Any) -> None:
    official = UserFactory(username="arbiter2fa", is_staff=True)
    _device, codes = with_device(official)
    sign_in(client, official)
    assert give_code(client, codes[0].upper()).status_code == 302
    assert signed_in_user(client) == official.pk
    entry = AuditEntry.objects.get(action="second_factor.recovery_code")
    assert entry.after == {"codes_left": 9}
    client.post(reverse("clubs:logout"))
    sign_in(client, official)
    again = give_code(client, codes[0])
    assert again.status_code == 200 and signed_in_user(client) is None
    assert give_code(client, codes[1]).status_code == 302


def test_a_pending_sign_in_expires(client: Any) -> None:
    official = UserFactory(username="arbiter2fa", is_staff=True)
    device, _codes = with_device(official)
    sign_in(client, official)
    session = client.session
    pending = session[second_factor.PENDING_KEY]
    pending["at"] -= second_factor.PENDING_SECONDS + 1
    session[second_factor.PENDING_KEY] = pending
    session.save()
    response = give_code(client, code(device))
    assert response["Location"] == reverse("clubs:login")
    assert signed_in_user(client) is None


def test_wrong_codes_count_as_failed_sign_ins(client: Any, settings: Any) -> None:
    settings.SIGNIN_ACCOUNT_FAILURES = settings.AXES_FAILURE_LIMIT = 3
    official = UserFactory(username="arbiter2fa", is_staff=True)
    device, _codes = with_device(official)
    sign_in(client, official)
    wrong = "000000" if code(device) != "000000" else "111111"
    answers = [give_code(client, wrong).status_code for _ in range(3)]
    assert answers == [200, 200, 429]
    # The lockout holds the password step too, and the pending sign-in is gone.
    assert sign_in(client, official).status_code == 429
    assert signed_in_user(client) is None


def test_a_player_without_a_device_signs_in_as_before(client: Any) -> None:
    player = UserFactory(username="player2fa")
    response = sign_in(client, player)
    assert response["Location"] == reverse("clubs:account")
    assert signed_in_user(client) == player.pk
    page = client.get(reverse("clubs:account"), **EN)
    assert "Set up two-step sign-in" in page.content.decode()


def test_a_player_with_a_device_gives_the_code(client: Any) -> None:
    player = UserFactory(username="player2fa")
    device, _codes = with_device(player)
    assert sign_in(client, player)["Location"] == reverse("clubs:second_factor_verify")
    assert signed_in_user(client) is None
    assert give_code(client, code(device))["Location"] == reverse("clubs:account")
    assert signed_in_user(client) == player.pk


# --- Setting up, new recovery codes, turning off.


def test_setup_confirms_only_with_a_right_code(client: Any) -> None:
    player = UserFactory(username="player2fa")
    client.force_login(player)
    page = client.get(reverse("clubs:second_factor_setup"), **EN)
    assert "<svg" in page.content.decode()
    device = TOTPDevice.objects.get(user=player)
    # Reloading keeps the key the phone has read.
    client.get(reverse("clubs:second_factor_setup"), **EN)
    assert TOTPDevice.objects.get(user=player).pk == device.pk
    wrong = "000000" if code(device) != "000000" else "111111"
    refused = client.post(reverse("clubs:second_factor_setup"), {"code": wrong}, **EN)
    assert refused.status_code == 200 and "That code is not right" in refused.content.decode()
    assert not TOTPDevice.objects.get(pk=device.pk).confirmed
    done = client.post(reverse("clubs:second_factor_setup"), {"code": code(device)}, **EN)
    assert done.status_code == 200
    codes = done.context["codes"]
    assert len(set(codes)) == second_factor.RECOVERY_CODES
    assert all(c in done.content.decode() for c in codes)
    assert TOTPDevice.objects.get(pk=device.pk).confirmed
    assert AuditEntry.objects.filter(action="second_factor.enable", target_id=player.pk).exists()
    assert client.session.get("otp_device_id") == device.persistent_id


def test_new_recovery_codes_need_a_verified_session_and_replace_the_old(client: Any) -> None:
    player = UserFactory(username="player2fa")
    device, old = with_device(player)
    client.force_login(player)  # not verified
    response = client.post(reverse("clubs:second_factor_recovery_codes"), **EN)
    assert response["Location"] == reverse("clubs:second_factor_verify")
    give_code(client, code(device))
    fresh = client.post(reverse("clubs:second_factor_recovery_codes"), **EN).context["codes"]
    tokens = set(StaticToken.objects.filter(device__user=player).values_list("token", flat=True))
    assert tokens == set(fresh) and not tokens & set(old)


def test_turning_off_needs_a_code_and_warns_an_official(client: Any) -> None:
    official = UserFactory(username="arbiter2fa", is_staff=True)
    device, _codes = with_device(official)
    sign_in(client, official)
    give_code(client, code(device))
    page = client.get(reverse("clubs:second_factor_disable"), **EN)
    assert "they stop working" in page.content.decode()
    wrong = "000000" if code(device, 1) != "000000" else "111111"
    refused = client.post(reverse("clubs:second_factor_disable"), {"code": wrong}, **EN)
    assert refused.status_code == 200 and second_factor.has_device(official)
    done = client.post(reverse("clubs:second_factor_disable"), {"code": code(device, 1)}, **EN)
    assert done["Location"] == reverse("clubs:account")
    assert not second_factor.has_device(official)
    assert AuditEntry.objects.filter(action="second_factor.disable").exists()
    # Its powers are withheld again from the next request on.
    response = client.get(reverse("admin:index"))
    assert response["Location"].startswith(reverse("clubs:second_factor_setup"))


def test_with_the_setting_off_officials_act_with_a_password(client: Any) -> None:
    boss = UserFactory(username="boss", is_staff=True, is_superuser=True)
    with override_settings(SECOND_FACTOR_FOR_OFFICIALS=False):
        client.force_login(boss)
        assert client.get(reverse("admin:index")).status_code == 200


# --- The API: a session without a code and Basic credentials are a password alone.


def test_the_api_override_refuses_a_password_alone(client: Any, corrected_table: Any) -> None:
    _t, rnd, _organizer = corrected_table
    match = Pairing.objects.get(round=rnd, table=1).match
    admin = UserFactory(username="fedadmin2fa")
    grant(admin, Role.FEDERATION_ADMIN, match.federation)
    url = f"/api/matches/{match.pk}/override/"
    body = {"score1": 0, "score2": 3, "reason": "No-show"}
    client.force_login(admin)
    assert client.post(url, body, content_type="application/json").status_code == 403
    client.logout()
    basic = "Basic " + base64.b64encode(f"{admin.username}:{PASSWORD}".encode()).decode()
    with override_settings(API_BASIC_AUTH=True):
        refused = client.post(url, body, content_type="application/json", HTTP_AUTHORIZATION=basic)
    assert refused.status_code == 403
    assert score(rnd) == (3, 1)
    # A session that gave its code may.
    device, _codes = with_device(admin)
    client.force_login(admin)
    give_code(client, code(device))
    assert client.post(url, body, content_type="application/json").status_code == 200
    assert score(rnd) == (0, 3)


def test_an_official_makes_no_token_from_a_session_without_a_code(client: Any) -> None:
    """A token acts without a code: a password-only session of an official cannot make one."""
    official = UserFactory(username="arbiter2fa", is_staff=True)
    client.force_login(official)
    official._zary_powers_withheld = True
    with pytest.raises(PermissionDenied):
        tokens.create_personal_token(official, name="phone", scope="write", expires_in_days=30)
    official._zary_powers_withheld = False
    assert tokens.create_personal_token(
        official, name="phone", scope="write", expires_in_days=30
    ).plain


def test_a_pending_sign_in_takes_a_few_wrong_codes_then_asks_the_password(
    client: Any, settings: Any
) -> None:
    settings.SIGNIN_ACCOUNT_FAILURES = settings.AXES_FAILURE_LIMIT = 50
    official = UserFactory(username="arbiter2fa", is_staff=True)
    device, _codes = with_device(official)
    sign_in(client, official)
    wrong = "000000" if code(device) != "000000" else "111111"
    for _ in range(second_factor.PENDING_FAILURES - 1):
        assert give_code(client, wrong).status_code == 200
    assert give_code(client, wrong)["Location"] == reverse("clubs:login")
    # The right code no longer helps: the password must be given again.
    assert give_code(client, code(device))["Location"] == reverse("clubs:login")
    assert signed_in_user(client) is None
