"""Two players record a whole 2-point match on the board page, each in their own browser.

The turns are worked out with the engine before the browsers start: fixed dice,
and for each roll a legal play picked with a seeded random generator.  Player 1
plays the opening roll by clicking checkers; the other plays are typed; player 2
doubles, player 1 takes and later resigns, player 2 accepts: 0–2.  Each page
follows the other player's turns by polling the state.
"""

from __future__ import annotations

import random
import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from engine.records.notation import format_play, parse_moves
from engine.rules import game as eg
from engine.rules.dice import RecordedDice
from engine.rules.variants import get_variant
from games.models import Match, MatchState, ReportSource, TurnKind
from tests.factories import MatchFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct-horse-battery"  # tests.factories.UserFactory's
OPENING = (3, 1)  # player 1's die, player 2's die: player 1 starts with 3-1
ROLLS = [(6, 4), (5, 2), (4, 4)]  # player 2, player 1, then (after the double) player 2


def scripted_plays(seed: int) -> list[str]:
    """The notation of a legal play for each roll of ROLLS, after 3-1: 8/5 6/5."""
    rng = random.Random(seed)
    state = eg.set_opening(eg.new_game(eg.GameRules(get_variant("short"))), 0, OPENING)
    state = eg.play(state, parse_moves("8/5 6/5"))
    written = []
    for dice in ROLLS:
        rolled = eg.roll(state, RecordedDice([dice]))
        play = rng.choice(eg.legal_plays(rolled))
        written.append(format_play(play))
        state = eg.choose_play(rolled, play)
    return written


def open_board(browser, live_server, match: Match, side: int):  # type: ignore[no-untyped-def]
    """A browser of its own for the player, signed in through the sign-in page."""
    context = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(15_000)
    board = reverse("games:board", args=[match.pk])
    page.goto(f"{live_server.url}{reverse('clubs:login')}?next={board}")
    page.fill("input[name=username]", match.player(side).user.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("form.stack button[type=submit]")
    page.wait_for_url(f"{live_server.url}{board}")
    page.wait_for_selector("#board-app[data-ready]", state="attached")
    return context, page


def awaits(page, text: str) -> None:  # type: ignore[no-untyped-def]
    """The page (updated by polling) says what it waits for."""
    expect(page.locator("#status")).to_contain_text(text, timeout=15_000)


def roll_and_type(page, dice: tuple[int, int], moves: str) -> None:  # type: ignore[no-untyped-def]
    page.select_option("#die-1", str(dice[0]))
    page.select_option("#die-2", str(dice[1]))
    page.click("#enter-dice")
    expect(page.locator("#play-dice")).to_have_text(f"{dice[0]}-{dice[1]}")
    page.fill("#moves", moves)
    page.click("#submit-play")


def test_two_players_record_a_match_on_the_board(live_server, browser) -> None:  # type: ignore[no-untyped-def]
    match = MatchFactory(length=2)
    one, two = str(match.player1), str(match.player2)
    plays = scripted_plays(seed=11)
    context1, page1 = open_board(browser, live_server, match, 1)
    context2, page2 = open_board(browser, live_server, match, 2)
    try:
        awaits(page1, "Opening roll")
        expect(page1.locator("#match-length")).to_have_text("Match to 2")

        # Opening roll 3–1: player 1 starts and plays 8/5 6/5 by clicking checkers.
        page1.select_option("#opening-1", str(OPENING[0]))
        page1.select_option("#opening-2", str(OPENING[1]))
        page1.click("#record-opening")
        awaits(page1, f"{one} to play 3-1")
        page1.wait_for_selector("#board .source", state="attached")
        for point in ("8", "5", "6", "5"):
            page1.click(f'#board [data-point="{point}"]')
        expect(page1.locator("#moves")).to_have_value("8/5 6/5")
        page1.click("#submit-play")

        # Player 2 follows live, then types a play; an illegal one shows the engine's reason.
        awaits(page2, f"{two} to roll or double")
        page2.select_option("#die-1", "6")
        page2.select_option("#die-2", "4")
        page2.click("#enter-dice")
        page2.fill("#moves", "24/18")
        page2.click("#submit-play")
        expect(page2.locator("#message")).to_contain_text("The turn was refused")
        page2.fill("#moves", plays[0])
        page2.click("#submit-play")

        awaits(page1, f"{one} to roll or double")
        roll_and_type(page1, ROLLS[1], plays[1])

        # Player 2 doubles, player 1 takes.
        awaits(page2, f"{two} to roll or double")
        page2.click('#controls button[data-kind="double"]')
        awaits(page1, f"{one} to take or pass the double to 2")
        page1.click('#controls button[data-kind="take"]')
        awaits(page2, f"{two} to roll")
        expect(page2.locator("#cube-text")).to_contain_text(f"Cube: 2, owned by {one}")
        roll_and_type(page2, ROLLS[2], plays[2])

        # Player 1 resigns a single game; player 2 accepts: 2 points with the cube at 2.
        awaits(page1, f"{one} to roll or double")
        page1.select_option("#resign-level", "single")
        page1.click('#controls [data-panel="resign"] button[data-kind="resign"]')
        awaits(page2, f"{two} to accept or reject the resignation")
        page2.click('#controls button[data-kind="accept"]')

        for page in (page2, page1):
            awaits(page, "The match is over.")
            expect(page.locator("#score-1")).to_have_text("0")
            expect(page.locator("#score-2")).to_have_text("2")
            expect(page.locator("#winner")).to_have_text(f"{two} wins the match.")
        expect(page1.locator("#turns li")).to_have_count(9)
        expect(page1.locator("#turns")).to_contain_text("3-1: 8/5 6/5")
        expect(page1.locator("#controls [data-panel=roll]")).to_be_hidden()
    finally:
        context1.close()
        context2.close()

    match.refresh_from_db()
    assert match.state == MatchState.FINISHED
    game = match.games.get()
    assert (game.winner, game.cube, game.points, game.end) == (2, 2, 2, "resign")
    kinds = list(
        game.turns.filter(undone_at__isnull=True).order_by("number").values_list("kind", "moves")
    )
    assert kinds == [
        (TurnKind.OPENING, ""),
        (TurnKind.PLAY, "8/5 6/5"),
        (TurnKind.PLAY, plays[0]),
        (TurnKind.PLAY, plays[1]),
        (TurnKind.DOUBLE, ""),
        (TurnKind.TAKE, ""),
        (TurnKind.PLAY, plays[2]),
        (TurnKind.RESIGN, ""),
        (TurnKind.ACCEPT, ""),
    ]
    report = match.reports.get()
    assert report.source == ReportSource.RECORD
    assert (report.score1, report.score2) == (0, 2)


def test_replay_steps_through_a_game(live_server, page) -> None:  # type: ignore[no-untyped-def]
    from games import services
    from tests.games.helpers import user_of

    match = MatchFactory(length=1)
    white = user_of(match, 0)
    services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    services.record_turn(
        match, by=white, number=2, kind=TurnKind.PLAY, dice=[3, 1], moves="8/5 6/5"
    )
    services.record_turn(match, by=user_of(match, 1), number=3, kind=TurnKind.RESIGN)
    services.record_turn(match, by=white, number=4, kind=TurnKind.ACCEPT)
    page.goto(live_server.url + reverse("games:replay", args=[match.pk, 1]))
    page.wait_for_selector("#board-app[data-ready]", state="attached")
    expect(page.locator("#replay-position")).to_have_text("Start of the game")
    expect(page.locator("#pips-1")).to_have_text("167")
    page.click("button[data-go=next]")
    page.click("button[data-go=next]")
    expect(page.locator("#replay-text")).to_have_text("3-1: 8/5 6/5")
    expect(page.locator("#pips-1")).to_have_text("163")
    page.click("button[data-go=last]")
    expect(page.locator("#replay-position")).to_have_text("Turn 4 of 4")
    expect(page.locator("button[data-go=next]")).to_be_disabled()
    page.click("#replay-turns a[data-frame='1']")
    expect(page.locator("#replay-text")).to_have_text(re.compile("Opening roll 3.1"))


def clock_seconds(text: str | None) -> int:
    """'09:58' or '1:02:03' as seconds."""
    seconds = 0
    for part in (text or "").split(":"):
        seconds = seconds * 60 + int(part)
    return seconds


def test_the_running_clock_counts_down_between_polls(live_server, page) -> None:  # type: ignore[no-untyped-def]
    from games import services
    from games.models import ClockMode, Turn
    from tests.games.helpers import user_of

    match = MatchFactory(
        clock_mode=ClockMode.INCREMENT, clock_reserve_seconds=600, clock_move_seconds=8
    )
    white = user_of(match, 0)
    services.record_turn(match, by=white, number=1, kind=TurnKind.OPENING, dice=[3, 1])
    services.record_turn(
        match, by=white, number=2, kind=TurnKind.PLAY, dice=[3, 1], moves="8/5 6/5"
    )
    # The reading the server would have charged after 18 s (less the 8 s increment):
    # exact, so that the page's figure is known.
    Turn.objects.filter(game__match=match, number=2).update(clock1_ms=590_000, clock2_ms=600_000)
    state_url = reverse("games:state", args=[match.pk])
    page.goto(live_server.url + reverse("games:board", args=[match.pk]))
    page.wait_for_selector("#board-app[data-ready]", state="attached")
    running = re.compile(r"\brunning\b")
    expect(page.locator("#clock-1")).to_have_text("09:50")
    expect(page.locator("#clock-1")).not_to_have_class(running)
    expect(page.locator("#clock-2")).to_have_class(running)
    expect(page.locator("#clock-2")).to_have_text(re.compile(r"^\d\d:\d\d$"))

    with page.expect_response(lambda r: state_url in r.url):
        pass
    first = clock_seconds(page.locator("#clock-2").text_content())
    assert 0 < first <= 600
    with page.expect_response(lambda r: state_url in r.url):
        pass
    page.wait_for_function(
        """([id, before]) => {
            const parts = document.getElementById(id).textContent.split(":").map(Number);
            return parts.reduce((s, n) => s * 60 + n, 0) < before;
        }""",
        arg=["clock-2", first],
    )
    assert clock_seconds(page.locator("#clock-2").text_content()) < first
    expect(page.locator("#clock-1")).to_have_text("09:50")
    expect(page.locator("#flag-1")).to_be_hidden()
    expect(page.locator("#flag-2")).to_be_hidden()


def test_plakoto_preview_shows_the_pinned_checker(live_server, browser) -> None:  # type: ignore[no-untyped-def]
    from tests.games.test_board_pins import plakoto_match

    match = plakoto_match()  # White to roll; Black has a lone checker on White's 7
    context, page = open_board(browser, live_server, match, 1)
    try:
        awaits(page, f"{match.player1} to roll")
        expect(page.locator("#board circle.pinned")).to_have_count(0)
        page.select_option("#die-1", "6")
        page.select_option("#die-2", "2")
        page.click("#enter-dice")
        page.wait_for_selector("#board .source", state="attached")
        page.click('#board [data-point="13"]')
        page.click('#board [data-point="7"]')
        expect(page.locator("#moves")).to_have_value("13/7")

        pinned = page.locator('#board circle.checker.side-2.pinned[data-at="7"]')
        pinner = page.locator('#board circle.checker.side-1[data-at="7"]')
        expect(pinned).to_have_count(1)
        expect(pinner).to_have_count(1)
        # White's 7 is on the bottom row: the pinned checker lies below its pinner.
        assert float(pinned.get_attribute("cy")) > float(pinner.get_attribute("cy"))

        # The engine accepts the play; the pin then comes from the server's position.
        page.click('#board [data-point="24"]')
        page.click('#board [data-point="22"]')
        expect(page.locator("#moves")).to_have_value("24/22 13/7")
        page.click("#submit-play")
        awaits(page, f"{match.player2} to roll")
        expect(page.locator('#board circle.checker.side-2.pinned[data-at="7"]')).to_have_count(1)
    finally:
        context.close()
