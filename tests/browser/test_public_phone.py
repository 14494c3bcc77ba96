"""The public tournament pages on a phone (issue 14): at 360 px wide no page scrolls
sideways as a whole; a table wider than the screen scrolls inside its own box,
and a hint above it says so.  A visitor finds a player by name and lands on their
page with their table."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from tests.tournaments import builders
from tournaments import services
from tournaments.models import Entry, Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 360, "height": 740}

# Whether the page as a whole is wider than the window, and each table that is
# wider than its box: whether that box scrolls sideways.
OVERFLOW = """() => {
  const page = document.documentElement.scrollWidth > window.innerWidth;
  const tables = [...document.querySelectorAll("main table, main svg")].map((t) => {
    const box = t.closest(".table-wrap, .bracket-scroll");
    const scrolls = box !== null && getComputedStyle(box).overflowX === "auto";
    return {wide: box !== null && box.scrollWidth > box.clientWidth, scrolls};
  });
  return {page, tables};
}"""


def url(t: Tournament, name: str, *args: Any) -> str:
    return reverse(f"tournaments:{name}", args=[t.federation.slug, t.slug, *args])


@pytest.fixture
def phone(browser):  # type: ignore[no-untyped-def]
    context = browser.new_context(locale="en-US", viewport=PHONE, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def test_the_public_pages_fit_a_phone(live_server, phone) -> None:  # type: ignore[no-untyped-def]
    federation, admin, _d = builders.federation_with_admin()
    t = builders.tournament(
        12,
        "swiss",
        federation=federation,
        by=admin,
        rounds_planned=4,
        tie_breaks=["BH", "SB", "PS"],
    )
    for _ in range(2):
        builders.play_round(services.pair_next_round(t, by=admin), admin)
    services.start_round(services.pair_next_round(t, by=admin), by=admin)
    services.compute_standings(t)
    entry = Entry.objects.filter(tournament=t).select_related("player").order_by("seed").first()
    assert entry is not None
    pages = {
        "overview": url(t, "public"),
        "round": url(t, "public_round", "main", 3),
        "standings": url(t, "public_standings"),
        "entries": url(t, "public_entries"),
        "player": url(t, "public_player", entry.pk),
    }
    for name, address in pages.items():
        phone.goto(f"{live_server.url}{address}")
        seen = phone.evaluate(OVERFLOW)
        assert not seen["page"], (name, seen)
        for table in seen["tables"]:
            assert table["scrolls"] or not table["wide"], (name, seen)
    # The standings with three tie-breaks are wider than a phone: their box scrolls
    # and the hint says so.
    phone.goto(f"{live_server.url}{pages['standings']}")
    expect(phone.locator(".scroll-hint").first).to_be_visible()
    assert any(t["wide"] and t["scrolls"] for t in phone.evaluate(OVERFLOW)["tables"])

    # Finding a player: their page, with their table in the round in play.
    phone.goto(f"{live_server.url}{pages['overview']}")
    phone.locator("#find-player-q").fill(entry.player.name_latin)
    with phone.expect_navigation():
        phone.locator("form.find-player button").click()
    if "/find/" in phone.url:  # another entrant's name holds this one: pick it
        with phone.expect_navigation():
            phone.locator(f'#found a[href="{pages["player"]}"]').click()
    assert phone.url.endswith(pages["player"])
    expect(phone.locator("#now .table-big")).to_contain_text("Table")
