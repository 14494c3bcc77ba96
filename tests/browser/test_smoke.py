from __future__ import annotations

import pytest

from clubs import demo

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_home_language_switch_and_organizer_sign_in(live_server, page) -> None:
    account = demo.load()[0]
    page.goto(live_server.url + "/")
    assert page.locator("h1").inner_text() == "Nardy tournaments, clubs and ratings"

    with page.expect_navigation():
        page.select_option("select[name=language]", "ru")
    assert page.locator("h1").inner_text() == "Турниры по нардам, клубы и рейтинги"

    # The home page's sign-in leads an organizer (the demo's site admin) to the console.
    page.click("main a[href='/accounts/login/']")
    page.fill("input[name=username]", account.username)
    page.fill("input[name=password]", account.password)
    page.click("form.stack button[type=submit]")
    page.wait_for_url(live_server.url + "/organize/")
    assert page.locator("html").get_attribute("lang") == "ru"
    page.goto(live_server.url + "/admin/")
    assert page.locator("#site-name").is_visible()
    # The language chosen on the site carries into the admin.
    assert "добро пожаловать, demo" in page.locator("#user-tools").inner_text().lower()
