"""On the board page each player acts only for their own side (issue 12, point 1).

Black, signed in while White is to play, sees no action controls but a note
saying whose turn it is, and a turn forced from his page anyway is refused with
a clear message and saves nothing; White plays, and then the controls are
Black's.  With scorer mode, proposed by one player and agreed by the other on
their own pages, one device enters both sides and the turn list says who
recorded the other side's turn.
"""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from games import services
from games.models import Match, Turn, TurnKind
from tests.browser.test_board import awaits, open_board, roll_and_type
from tests.factories import MatchFactory
from tests.games.helpers import user_of

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FORCE_TURN = """async ([url, body]) => {
    const csrf = document.querySelector("input[name=csrfmiddlewaretoken]").value;
    const response = await fetch(url, {
        method: "POST",
        credentials: "same-origin",
        headers: {"Content-Type": "application/json", "X-CSRFToken": csrf},
        body: JSON.stringify(body),
    });
    const data = await response.json();
    return [response.status, data.error ? data.error.reason : ""];
}"""


def white_to_play(match: Match) -> None:
    """The opening roll 3-1: White starts, the dice are on the table."""
    services.record_turn(match, by=user_of(match, 0), number=1, kind=TurnKind.OPENING, dice=[3, 1])


def controls_hidden(page) -> None:  # type: ignore[no-untyped-def]
    for panel in ("opening", "roll", "play", "take", "resignation", "resign"):
        expect(page.locator(f"#controls [data-panel={panel}]")).to_be_hidden()


def test_black_cannot_act_while_white_is_to_play(live_server, browser) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(length=3)
    one, two = str(match.player1), str(match.player2)
    white_to_play(match)
    context2, page2 = open_board(browser, live_server, match, 2)
    context1, page1 = open_board(browser, live_server, match, 1)
    try:
        awaits(page2, f"{one} to play 3-1")
        controls_hidden(page2)
        expect(page2.locator("#waiting-note")).to_have_text(
            f"It is {one}'s turn: you record only your own side's actions."
        )
        # A turn forced from Black's page anyway: White's resignation, as in the report.
        status, reason = page2.evaluate(
            FORCE_TURN,
            [reverse("games:record", args=[match.pk]), {"number": 2, "kind": "resign"}],
        )
        assert status == 403
        assert reason.startswith(f"You may not record “resign”: it is {one}'s turn")
        assert Turn.objects.filter(game__match=match).count() == 1

        # White's page offers the play; White plays, and the controls pass to Black.
        expect(page1.locator("#controls [data-panel=play]")).to_be_visible()
        expect(page1.locator("#waiting-note")).to_be_hidden()
        page1.fill("#moves", "8/5 6/5")
        page1.click("#submit-play")
        awaits(page2, f"{two} to roll or double")
        expect(page2.locator("#controls [data-panel=roll]")).to_be_visible()
        expect(page2.locator('#controls button[data-kind="double"]')).to_be_visible()
        expect(page2.locator("#waiting-note")).to_be_hidden()
        awaits(page1, f"{two} to roll or double")
        controls_hidden(page1)
        expect(page1.locator("#waiting-note")).to_contain_text(f"It is {two}'s turn")
        # No turn in the list names a recorder: each side entered its own.
        expect(page1.locator("#turns .recorded-by")).to_have_count(0)
    finally:
        context1.close()
        context2.close()


def test_scorer_mode_agreed_by_both_lets_one_device_enter_both_sides(live_server, browser) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(length=3)
    one, two = str(match.player1), str(match.player2)
    white_to_play(match)
    context2, page2 = open_board(browser, live_server, match, 2)
    context1, page1 = open_board(browser, live_server, match, 1)
    try:
        # Black proposes; until White agrees, Black still enters nothing for White.
        expect(page2.locator("#scorer-on")).to_have_text(
            "Propose scorer mode (one device records both sides)"
        )
        page2.click("#scorer-on")
        expect(page2.locator("#scorer-note")).to_have_text(
            "You proposed scorer mode; waiting for the opponent."
        )
        controls_hidden(page2)
        expect(page1.locator("#scorer-on")).to_have_text("Agree to scorer mode", timeout=15_000)
        expect(page1.locator("#scorer-note")).to_contain_text(f"{two} proposes scorer mode")
        page1.click("#scorer-on")
        expect(page1.locator("#scorer-note")).to_contain_text("both players agreed")

        # Black's device now enters White's play, Black's own roll, then White's again.
        awaits(page2, f"{one} to play 3-1")
        expect(page2.locator("#scorer-note")).to_contain_text("both players agreed", timeout=15_000)
        page2.fill("#moves", "8/5 6/5")
        page2.click("#submit-play")
        awaits(page2, f"{two} to roll or double")
        roll_and_type(page2, (6, 4), "24/14")
        awaits(page2, f"{one} to roll or double")
        roll_and_type(page2, (5, 2), "13/8 6/4")
        awaits(page2, f"{two} to roll or double")
        mine = f"(recorded by {two})"
        expect(page2.locator("#turns li .recorded-by")).to_have_count(2)
        expect(page2.locator("#turns li").nth(1)).to_contain_text(mine)
        expect(page2.locator("#turns li").nth(3)).to_contain_text(mine)
        expect(page2.locator("#turns li").nth(2)).not_to_contain_text("recorded by")
        # Either player switches it off again: then each side is its own.
        expect(page2.locator("#scorer-off")).to_have_text("Switch scorer mode off")
        page2.click("#scorer-off")
        expect(page2.locator("#scorer-on")).to_be_visible()
        expect(page2.locator("#controls [data-panel=roll]")).to_be_visible()  # Black's own turn
    finally:
        context1.close()
        context2.close()

    turns = list(
        Turn.objects.filter(game__match=match).order_by("number").values_list("side", "recorded_by")
    )
    black = user_of(match, 1).pk
    white = user_of(match, 0).pk
    assert turns == [(1, white), (1, black), (2, black), (1, black)]
