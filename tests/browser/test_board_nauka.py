"""Nauka i Zhizn on the board page: the opening throw names the colours, so
when the second player throws higher, that player's checkers, dice and chip
are White's (light) and the first player's Black's, and the second player
starts."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.test_board import awaits, open_board
from tests.games.test_nauka import nauka_match

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LIGHT, DARK = "#f3ecdc", "#2a2623"  # board.js COLOURS.fill


def test_the_higher_thrower_plays_white_on_the_board(live_server, browser) -> None:  # type: ignore[no-untyped-def]
    match = nauka_match(length=1)
    one, two = str(match.player1), str(match.player2)
    context, page = open_board(browser, live_server, match, 2)
    try:
        awaits(page, "Opening roll")
        # Before the throw nobody is White yet: player 1's checkers are drawn light.
        expect(page.locator("#board circle.checker.side-1").first).to_have_attribute("fill", LIGHT)
        page.select_option("#opening-1", "2")
        page.select_option("#opening-2", "5")
        page.click("#record-opening")
        awaits(page, f"{two} to play 5-2")
        expect(page.locator("#board circle.checker.side-2").first).to_have_attribute("fill", LIGHT)
        expect(page.locator("#board circle.checker.side-1").first).to_have_attribute("fill", DARK)
        expect(page.locator("#board rect.die").first).to_have_attribute("fill", LIGHT)
        chip2 = page.locator(".player.p2 .chip")
        expect(chip2).to_have_attribute("class", "chip side-1")
        expect(chip2).to_have_attribute("title", "White")
        expect(page.locator(".player.p1 .chip")).to_have_attribute("title", "Black")
        page.fill("#moves", "13/8 6/4")
        page.click("#submit-play")
        awaits(page, f"{one} to roll")
        # The colours stay with the players for the rest of the game.
        expect(page.locator("#board circle.checker.side-2").first).to_have_attribute("fill", LIGHT)
        expect(chip2).to_have_attribute("title", "White")
    finally:
        context.close()
