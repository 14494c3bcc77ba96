"""Guessing stops (clubs.lockout, django-axes): failed sign-ins lock the account and
the address, the lockout grows, is answered in the visitor's language, is written
to the audit log, and ends after its cool-off, by a password reset or by a site admin.

Time is moved by ageing the remembered failures (axes' rows keep the time of the
last failure), never by waiting."""

from __future__ import annotations

import base64
import re
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client
from django.urls import reverse

from clubs import lockout
from clubs.models import AuditEntry
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery"
NEW_PASSWORD = "Lapis-lazuli-nardy-42"
ACCOUNT_LIMIT = 3
ADDRESS_LIMIT = 5
FIRST_LOCKOUT = timedelta(minutes=5)
User = get_user_model()


@pytest.fixture(autouse=True)
def small_limits(settings):  # type: ignore[no-untyped-def]
    settings.SIGNIN_ACCOUNT_FAILURES = ACCOUNT_LIMIT
    settings.AXES_FAILURE_LIMIT = ACCOUNT_LIMIT
    settings.SIGNIN_ADDRESS_FAILURES = ADDRESS_LIMIT
    settings.SIGNIN_LOCKOUT_MINUTES = 5
    settings.SIGNIN_LOCKOUT_MAX_HOURS = 24


def sign_in(client: Client, username: str, password: str, address: str = "203.0.113.7", **extra):  # type: ignore[no-untyped-def]
    return client.post(
        reverse("clubs:login"),
        {"username": username, "password": password},
        REMOTE_ADDR=address,
        **extra,
    )


def signed_in(response) -> bool:  # type: ignore[no-untyped-def]
    return response.status_code == 302 and "_auth_user_id" in response.wsgi_request.session


def age_failures(by: timedelta) -> None:
    """As if the remembered failures had happened ``by`` earlier."""
    for attempt in AccessAttempt.objects.all():
        AccessAttempt.objects.filter(pk=attempt.pk).update(attempt_time=attempt.attempt_time - by)


def lock_account(client: Client, username: str) -> None:
    for _ in range(ACCOUNT_LIMIT):
        sign_in(client, username, "wrong-guess")


# --- The account's rule


def test_the_guess_after_the_limit_is_refused_even_with_the_right_password(client) -> None:
    UserFactory(username="leyla")
    answers = [sign_in(client, "leyla", f"guess-{n}").status_code for n in range(ACCOUNT_LIMIT)]
    # Wrong guesses get the form again, until the one that reaches the limit.
    assert answers == [200] * (ACCOUNT_LIMIT - 1) + [429]
    refused = sign_in(client, "leyla", PASSWORD)
    assert refused.status_code == 429
    assert not signed_in(refused)
    assert int(refused["Retry-After"]) == pytest.approx(FIRST_LOCKOUT.total_seconds(), abs=5)
    page = refused.content.decode()
    assert "Too many failed sign-ins" in page
    assert "5 minutes" in page
    assert reverse("clubs:password_reset") in page


def test_the_account_is_locked_from_every_address(client) -> None:
    UserFactory(username="leyla")
    for n in range(ACCOUNT_LIMIT):
        sign_in(client, "leyla", "wrong-guess", address=f"198.51.100.{n + 1}")
    assert sign_in(client, "leyla", PASSWORD, address="192.0.2.99").status_code == 429
    # Another account from those addresses is not concerned.
    UserFactory(username="anar")
    assert signed_in(sign_in(Client(), "anar", PASSWORD, address="198.51.100.1"))


def test_the_owner_signs_in_after_the_cool_off(client) -> None:
    UserFactory(username="leyla")
    lock_account(client, "leyla")
    age_failures(FIRST_LOCKOUT - timedelta(seconds=30))
    assert sign_in(client, "leyla", PASSWORD).status_code == 429
    age_failures(timedelta(seconds=31))
    assert signed_in(sign_in(client, "leyla", PASSWORD))
    # A sign-in forgets the account's failures: the count starts again.
    assert not AccessAttempt.objects.filter(username="leyla").exists()


def test_the_cool_off_grows_with_further_failures(client) -> None:
    UserFactory(username="leyla")
    lock_account(client, "leyla")
    age_failures(FIRST_LOCKOUT)
    # The lockout is over, but the failures are remembered: the next wrong guess
    # locks again at once...
    for _ in range(ACCOUNT_LIMIT - 1):
        relocked = sign_in(client, "leyla", "wrong-again")
        assert relocked.status_code == 429
        assert int(relocked["Retry-After"]) == pytest.approx(FIRST_LOCKOUT.total_seconds(), abs=5)
        age_failures(FIRST_LOCKOUT)
    # ...and a limit's worth of further failures doubles the cool-off.
    locked = sign_in(client, "leyla", "wrong-again")
    assert AccessAttempt.objects.get(username="leyla").failures_since_start == 2 * ACCOUNT_LIMIT
    assert int(locked["Retry-After"]) == pytest.approx(2 * FIRST_LOCKOUT.total_seconds(), abs=5)
    age_failures(FIRST_LOCKOUT + timedelta(seconds=30))
    assert sign_in(client, "leyla", PASSWORD).status_code == 429
    age_failures(FIRST_LOCKOUT)
    assert signed_in(sign_in(client, "leyla", PASSWORD))


def test_knocking_during_a_lockout_does_not_lengthen_it(client) -> None:
    UserFactory(username="leyla")
    lock_account(client, "leyla")
    for _ in range(10):
        assert sign_in(client, "leyla", "wrong-guess").status_code == 429
    assert AccessAttempt.objects.get(username="leyla").failures_since_start == ACCOUNT_LIMIT
    age_failures(FIRST_LOCKOUT)
    assert signed_in(sign_in(client, "leyla", PASSWORD))


def test_cool_off_doubles_per_limit_and_stops_at_the_cap(settings) -> None:
    assert lockout.cool_off(5, 5) == timedelta(minutes=5)
    assert lockout.cool_off(9, 5) == timedelta(minutes=5)
    assert lockout.cool_off(10, 5) == timedelta(minutes=10)
    assert lockout.cool_off(15, 5) == timedelta(minutes=20)
    assert lockout.cool_off(10_000, 5) == timedelta(hours=24)


# --- The address's rule


def test_an_address_is_locked_after_failures_on_many_accounts(client) -> None:
    UserFactory(username="leyla")
    answers = [sign_in(client, f"name{n}", "wrong-guess").status_code for n in range(ADDRESS_LIMIT)]
    assert answers[-1] == 429
    assert answers[:-1] == [200] * (ADDRESS_LIMIT - 1)
    # Even a right password for an untouched account is refused from that address...
    assert sign_in(client, "leyla", PASSWORD).status_code == 429
    # ...and accepted from another one.
    assert signed_in(sign_in(Client(), "leyla", PASSWORD, address="192.0.2.50"))


def test_signing_in_to_an_own_account_does_not_clear_the_address(client) -> None:
    UserFactory(username="mallory")
    for n in range(ADDRESS_LIMIT - 1):
        sign_in(client, f"victim{n}", "wrong-guess")
    assert signed_in(sign_in(client, "mallory", PASSWORD))
    Client().logout()
    assert sign_in(Client(), "victim9", "wrong-guess").status_code == 429


def test_the_address_behind_a_proxy_is_the_one_it_forwards(client, settings) -> None:
    settings.SIGNIN_PROXY_COUNT = 1
    for n in range(ADDRESS_LIMIT):
        # The client's own X-Forwarded-For entries (left) are ignored; the proxy's is read.
        client.post(
            reverse("clubs:login"),
            {"username": f"name{n}", "password": "wrong-guess"},
            REMOTE_ADDR="10.0.0.1",
            HTTP_X_FORWARDED_FOR=f"192.0.2.{n}, 203.0.113.7",
        )
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"203.0.113.7"}
    UserFactory(username="leyla")
    # Another client behind the same proxy is not locked.
    other = Client().post(
        reverse("clubs:login"),
        {"username": "leyla", "password": PASSWORD},
        REMOTE_ADDR="10.0.0.1",
        HTTP_X_FORWARDED_FOR="198.51.100.20",
    )
    assert signed_in(other)


# --- Language, audit, unlocking


def test_the_lockout_page_is_in_russian_for_a_russian_browser(client) -> None:
    UserFactory(username="leyla")
    lock_account(client, "leyla")
    page = sign_in(client, "leyla", PASSWORD, HTTP_ACCEPT_LANGUAGE="ru")
    assert page.status_code == 429
    assert page["Content-Language"] == "ru"
    text = page.content.decode()
    assert "Слишком много неудачных попыток входа" in text
    assert "5 минут" in text


def test_a_lockout_that_begins_is_written_to_the_audit_log_once(client) -> None:
    user = UserFactory(username="leyla")
    lock_account(client, "leyla")
    for _ in range(3):
        sign_in(client, "leyla", PASSWORD)
    entries = AuditEntry.objects.filter(action="signin.lock")
    assert entries.count() == 1
    entry = entries.get()
    assert entry.target_id == user.pk
    assert entry.actor is None
    assert entry.after["username"] == "leyla"
    assert entry.after["ip_address"] == "203.0.113.7"
    assert entry.after["rules"]["account"] == ACCOUNT_LIMIT


def test_an_address_lockout_is_audited_on_its_attempts(client) -> None:
    for n in range(ADDRESS_LIMIT):
        sign_in(client, f"name{n}", "wrong-guess")
    entry = AuditEntry.objects.get(action="signin.lock")
    assert entry.after["rules"]["address"] == ADDRESS_LIMIT
    assert entry.target_repr  # the address's latest attempt row, named by axes


def test_a_password_reset_lifts_the_lockout(client) -> None:
    user = UserFactory(username="leyla", email="leyla@example.org")
    lock_account(client, "leyla")
    client.post(reverse("clubs:password_reset"), {"email": "leyla@example.org"})
    link = re.search(r"https?://[^/\s]+(/accounts/password/reset/\S+/)", mail.outbox[0].body)
    assert link
    form_page = client.get(link.group(1), follow=True)
    client.post(
        form_page.redirect_chain[-1][0],
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert signed_in(sign_in(client, "leyla", NEW_PASSWORD))
    unlock = AuditEntry.objects.get(action="signin.unlock")
    assert unlock.target_id == user.pk
    assert unlock.actor == user
    assert unlock.after == {"reason": "password reset"}


def test_reset_requests_count_against_the_address(client) -> None:
    UserFactory(username="leyla", email="leyla@example.org")
    answers = [
        client.post(
            reverse("clubs:password_reset"), {"email": "leyla@example.org"}, REMOTE_ADDR="192.0.2.8"
        ).status_code
        for _ in range(ADDRESS_LIMIT + 1)
    ]
    assert answers == [302] * ADDRESS_LIMIT + [429]
    assert len(mail.outbox) == ADDRESS_LIMIT
    # The account itself is not locked: its owner signs in from elsewhere.
    assert signed_in(sign_in(Client(), "leyla", PASSWORD))


def test_a_site_admin_lifts_a_lockout_in_the_admin(client) -> None:
    UserFactory(username="leyla")
    lock_account(client, "leyla")
    admin = UserFactory(username="root", is_staff=True, is_superuser=True)
    staff = Client()
    staff.force_login(admin)
    changelist = reverse("admin:axes_accessattempt_changelist")
    assert staff.get(changelist).status_code == 200
    ids = list(AccessAttempt.objects.values_list("pk", flat=True))
    response = staff.post(changelist, {"action": "lift_lockouts", "_selected_action": ids})
    assert response.status_code == 302
    assert not AccessAttempt.objects.exists()
    assert AuditEntry.objects.get(action="signin.unlock").actor == admin
    assert signed_in(sign_in(client, "leyla", PASSWORD))


def test_federation_staff_cannot_see_the_attempts(world) -> None:
    staff = Client()
    staff.force_login(world.fed_admin)
    assert staff.get(reverse("admin:axes_accessattempt_changelist")).status_code == 403


# --- The admin's sign-in and the API's Basic credentials


def test_the_admin_sign_in_is_limited_too(client) -> None:
    UserFactory(username="root", is_staff=True, is_superuser=True)
    url = reverse("admin:login")
    for _ in range(ACCOUNT_LIMIT):
        client.post(url, {"username": "root", "password": "wrong"}, REMOTE_ADDR="192.0.2.1")
    refused = client.post(url, {"username": "root", "password": PASSWORD}, REMOTE_ADDR="192.0.2.1")
    assert refused.status_code == 429
    assert "Too many failed sign-ins" in refused.content.decode()


def basic(username: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()


def test_api_basic_credentials_are_limited_and_answered_in_json(client, settings) -> None:
    settings.API_BASIC_AUTH = True  # off by default (clubs.authentication)
    UserFactory(username="leyla")
    url = "/api/federations/"
    wrong = [
        client.get(url, HTTP_AUTHORIZATION=basic("leyla", "wrong"), REMOTE_ADDR="192.0.2.3")
        for _ in range(ACCOUNT_LIMIT)
    ]
    # 401: the token class comes first, and DRF answers with its challenge.
    assert [r.status_code for r in wrong[:-1]] == [401] * (ACCOUNT_LIMIT - 1)
    for refused in (
        wrong[-1],
        client.get(url, HTTP_AUTHORIZATION=basic("leyla", PASSWORD), REMOTE_ADDR="192.0.2.3"),
    ):
        assert refused.status_code == 429
        assert int(refused["Retry-After"]) > 0
        assert "Too many failed sign-ins" in refused.json()["detail"]
    russian = client.get(
        url,
        HTTP_AUTHORIZATION=basic("leyla", PASSWORD),
        REMOTE_ADDR="192.0.2.3",
        HTTP_ACCEPT_LANGUAGE="ru",
    )
    assert "Слишком много неудачных попыток входа" in russian.json()["detail"]
    age_failures(FIRST_LOCKOUT)
    assert (
        client.get(
            url, HTTP_AUTHORIZATION=basic("leyla", PASSWORD), REMOTE_ADDR="192.0.2.3"
        ).status_code
        == 200
    )
