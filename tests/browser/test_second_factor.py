"""An official sets up two-step sign-in at their first sign-in (clubs.second_factor),
reading the key from the page as a phone would, and reaches the console and the admin."""

from __future__ import annotations

import time
from base64 import b32decode

import pytest
from django_otp.oath import TOTP
from playwright.sync_api import expect

from clubs import demo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def code_for(secret: str) -> str:
    """What an authenticator app shows for the key typed by hand (SHA-1, 30 s, 6 digits)."""
    key = "".join(secret.split()).upper()
    totp = TOTP(b32decode(key + "=" * (-len(key) % 8)), step=30, digits=6)
    totp.time = time.time()
    return f"{totp.token():06d}"


def test_an_official_sets_up_totp_and_reaches_the_console(live_server, page, settings) -> None:  # type: ignore[no-untyped-def]
    settings.SECOND_FACTOR_FOR_OFFICIALS = True
    account = demo.load()[0]  # the demo organizer, a site admin
    page.goto(live_server.url + "/accounts/login/")
    page.fill("input[name=username]", account.username)
    page.fill("input[name=password]", account.password)
    page.click("form.stack button[type=submit]")
    # Not the console yet: the set-up page, with its QR code and the key.
    page.wait_for_url(f"{live_server.url}/accounts/two-step/setup/**")
    assert "set up two-step sign-in" in page.locator("main").inner_text().lower()
    assert page.locator(".qr svg").is_visible()
    page.fill("input[name=code]", code_for(page.locator("#totp-secret").inner_text()))
    page.click("form.stack button[type=submit]")
    # The codes come with the answer to that post: wait for it (count() does not wait).
    expect(page.locator(".recovery-codes li")).to_have_count(10)
    page.click("text=I have kept them: continue")
    page.wait_for_url(live_server.url + "/organize/")
    page.goto(live_server.url + "/admin/")
    assert page.locator("#site-name").is_visible()
