"""Soldiers (RULES.md §3.1) on the board page: a whole game played by clicking checkers.

The game is worked out with the engine before the browser starts: the opening
roll and the first turns are written here so that the game has a druid's pin
and a guard's capture; after them each turn takes, of every roll, the one whose
best play (fewest pips left to the mover) goes furthest, so the game is short
(25 turns) and the same on every run.  One page records both sides (scorer
mode, which both players agreed to): every play is clicked on the board, the
class chooser answering where checkers of several classes could move from the
clicked point, and the page's own notation must be the engine's.

Set ``ZARY_SCREENSHOTS`` to a folder to keep screenshots of the board.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from engine.records.notation import format_play
from engine.rules import game as eg
from engine.rules.dice import RecordedDice
from engine.rules.plays import ClassStep
from engine.rules.variants import get_variant
from games.models import Match, MatchState
from tests.browser.test_board import awaits, open_board
from tests.factories import DisciplineFactory, MatchFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LETTERS = "KGDEOP"
OPENING = (4, 1)  # player 1's die, player 2's: White starts with 4-1
# (dice, the play's notation) of the first turns, White first.
SCRIPT = [
    (OPENING, "E6/2 O6/5"),  # the 6-point holds E, O and pawns: the chooser asks
    ((6, 5), "K24/13"),  # Black's general runs and leaves a lone pawn on its 24
    ((6, 1), "D8/1*"),  # White's druid pins it
    ((6, 5), "G13/7 13/8"),  # Black's guard alone on White's 18
    ((6, 6), "K24/18 24/18* G13/7 13/7"),  # two White checkers land there: captured
]
ROLLS = [(a, b) for a in range(6, 0, -1) for b in range(a, 0, -1)]


@dataclass(frozen=True)
class Turn:
    side: int  # 0 White, 1 Black
    dice: tuple[int, int]
    notation: str
    steps: tuple[tuple[int, int, str, str], ...]  # origin, dest (own numbering), class, effect


def _fewest_pips(plays: list[eg.Play], side: int, want: str | None = None) -> eg.Play:
    chosen = [p for p in plays if want is None or format_play(p) == want]
    assert chosen, f"{want} is not a legal play: {[format_play(p) for p in plays][:20]}"
    # of plays with as few pips, the first by position: the game does not
    # depend on the order in which the engine lists the plays
    chosen.sort(key=lambda p: repr(p.position))
    return min(chosen, key=lambda p: p.position.pips(side))


def scripted_game() -> tuple[list[Turn], eg.GameState]:
    """Every turn of the game, and the state at its end."""
    state = eg.set_opening(eg.new_game(eg.GameRules(get_variant("soldiers"))), 0, OPENING)
    turns: list[Turn] = []

    def take(rolled: eg.GameState, play: eg.Play) -> eg.GameState:
        assert rolled.turn is not None
        steps = tuple(
            (s.origin, s.dest, LETTERS[s.cls], s.effect)
            for s in play.steps
            if isinstance(s, ClassStep)
        )
        turns.append(Turn(rolled.turn, rolled.dice[:2], format_play(play), steps))
        return eg.choose_play(rolled, play)

    for number, (dice, want) in enumerate(SCRIPT):
        rolled = state if number == 0 else eg.roll(state, RecordedDice([dice]))
        assert rolled.turn is not None
        state = take(rolled, _fewest_pips(eg.legal_plays(rolled), rolled.turn, want))
    while not state.finished:
        best = None
        for dice in ROLLS:
            rolled = eg.roll(state, RecordedDice([dice]))
            assert rolled.turn is not None
            play = _fewest_pips(eg.legal_plays(rolled), rolled.turn)
            left = play.position.pips(rolled.turn)
            if best is None or left < best[0]:
                best = (left, rolled, play)
        assert best is not None
        state = take(best[1], best[2])
    return turns, state


def soldiers_match() -> Match:
    soldiers = DisciplineFactory(
        code="soldiers",
        name="Soldiers",
        variant="soldiers",
        scoring_preset="short-standard",
        cube=False,
    )
    # Scorer mode agreed by both players: either of them records both sides.
    return MatchFactory(discipline=soldiers, length=1, scorer_mode=True)


def shoot(page: Page, name: str) -> None:
    folder = os.environ.get("ZARY_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.locator("#board-app").screenshot(path=str(Path(folder) / f"{name}.png"))


def place(side: int, q: int) -> str:
    """The board's click area of ``side``'s own point ``q`` (25 the bar, 0 off)."""
    if q == 25:
        return '#board [data-key="bar"]'
    if q == 0:
        return '#board [data-key="off"]'
    location = get_variant("soldiers").geometry.paths[side][q - 1]
    return f'#board [data-key="p{location}"]'


def click_play(page: Page, turn: Turn, shots: str = "") -> int:
    """Click the turn's steps one by one; the times the chooser asked."""
    asked = 0
    chooser = page.locator("#class-chooser")
    for number, (origin, dest, letter, _effect) in enumerate(turn.steps):
        page.click(place(turn.side, origin))
        if chooser.is_visible():
            asked += 1
            expect(chooser.locator(f'button[data-class="{letter}"]')).to_be_visible()
            if shots and number == 0:
                shoot(page, shots)
            chooser.locator(f'button[data-class="{letter}"]').click()
            expect(chooser).to_be_hidden()
        selected = page.locator("#board circle.checker.selected")
        expect(selected).to_have_count(1)
        # The selected checker is the class that moves (bearing off a pawn shows no letter).
        assert selected.get_attribute("data-class") == letter
        page.click(place(turn.side, dest))
    return asked


def enter_dice(page: Page, dice: tuple[int, int]) -> None:
    page.select_option("#die-1", str(dice[0]))
    page.select_option("#die-2", str(dice[1]))
    page.click("#enter-dice")
    expect(page.locator("#play-dice")).to_have_text(f"{dice[0]}-{dice[1]}")


def test_a_whole_soldiers_game_is_played_by_clicks_on_the_board(live_server, browser) -> None:  # type: ignore[no-untyped-def]
    turns, end = scripted_game()
    assert end.result is not None
    match = soldiers_match()
    white, black = str(match.player1), str(match.player2)
    context, page = open_board(browser, live_server, match, 1)
    try:
        awaits(page, "Opening roll")
        # The legend: every class with its letter, shape and rule, and the pinned checker.
        legend = page.locator("#class-legend")
        expect(legend.locator("tr[data-class]")).to_have_count(7)
        expect(legend.locator('tr[data-class="G"]')).to_contain_text("Guard")
        expect(legend.locator('tr[data-class="G"]')).to_contain_text("square")
        expect(legend.locator('tr[data-class="D"]')).to_contain_text("pins it")
        expect(legend.locator('tr[data-class="G"] svg rect')).to_have_count(1)
        # The start: each side's five class checkers carry their letter and shape.
        expect(page.locator("#board text.class-letter")).to_have_count(10)
        expect(page.locator("#board .class-shape")).to_have_count(10)
        expect(
            page.locator('#board circle.checker.side-1[data-class="G"][data-at="13"]')
        ).to_have_count(1)
        expect(
            page.locator('#board circle.checker.side-2[data-class="K"][data-at="1"]')
        ).to_have_count(1)
        expect(
            page.locator('#board circle.checker.side-1[data-class="E"][data-at="6"]')
        ).to_have_count(1)
        expect(page.locator("#board rect.class-shape[x]")).to_have_count(2)  # the guards' squares
        shoot(page, "soldiers-start")

        page.select_option("#opening-1", str(OPENING[0]))
        page.select_option("#opening-2", str(OPENING[1]))
        page.click("#record-opening")
        awaits(page, f"{white} to play 4-1")
        page.wait_for_selector("#board .source", state="attached")

        # The chooser: the 6-point's E, O and pawns could all move.  Escape closes
        # it; the keyboard chooses (the first button has the focus).
        chooser = page.locator("#class-chooser")
        page.click(place(0, 6))
        expect(chooser).to_be_visible()
        expect(chooser.locator("#class-chooser-title")).to_have_text(
            "Which checker moves from point 6?"
        )
        expect(chooser.locator("button[data-class]")).to_have_count(3)
        expect(chooser.get_by_role("button", name="E wounded even")).to_be_focused()
        expect(chooser.get_by_role("button", name="O wounded odd")).to_be_visible()
        expect(chooser.get_by_role("button", name="P pawn")).to_be_visible()
        shoot(page, "soldiers-chooser")
        page.keyboard.press("Escape")
        expect(chooser).to_be_hidden()
        expect(page.locator("#board circle.checker.selected")).to_have_count(0)
        page.click(place(0, 6))
        page.keyboard.press("ArrowRight")  # to O
        page.keyboard.press("ArrowLeft")  # back to E
        page.keyboard.press("Enter")
        expect(chooser).to_be_hidden()
        expect(page.locator("#board circle.checker.selected")).to_have_attribute("data-class", "E")
        page.click(place(0, 2))
        # For the 1 left, O and the pawns can still move from the 6.
        page.click(place(0, 6))
        expect(chooser.locator("button[data-class]")).to_have_count(2)
        chooser.get_by_role("button", name="O wounded odd").click()
        page.click(place(0, 5))
        expect(page.locator("#moves")).to_have_value(turns[0].notation)
        page.click("#submit-play")

        asked = 1
        for number, turn in enumerate(turns[1:], start=2):
            expect(page.locator("#turns li")).to_have_count(number)
            mover = white if turn.side == 0 else black
            awaits(page, f"{mover} to roll")
            enter_dice(page, turn.dice)
            if turn.steps:
                page.wait_for_selector("#board .source", state="attached")
            asked += click_play(page, turn, shots="soldiers-capture-chooser" if number == 5 else "")
            expect(page.locator("#moves")).to_have_value(turn.notation)
            if number == 3:
                # The druid's pin in the preview: Black's pawn under White's druid, red rim.
                pinned = page.locator('#board circle.checker.side-2.pinned[data-at="1"]')
                expect(pinned).to_have_attribute("data-class", "P")
                pinner = page.locator('#board circle.checker.side-1[data-class="D"][data-at="1"]')
                assert float(pinned.get_attribute("cy") or 0) > float(
                    pinner.get_attribute("cy") or 0
                )
                shoot(page, "soldiers-pin")
            if number == 5:
                # The guard captured: on the bar, drawn with its class.
                expect(
                    page.locator('#board circle.checker.side-2[data-class="G"][data-at="bar"]')
                ).to_have_count(1)
                expect(page.locator('#board circle.checker[data-at="18"]')).to_have_count(2)
                shoot(page, "soldiers-capture")
            page.click("#submit-play")
            if number == 3:
                # The pin as the server keeps it, after the play is recorded.
                awaits(page, f"{black} to roll")
                expect(
                    page.locator('#board circle.checker.side-2.pinned[data-class="P"][data-at="1"]')
                ).to_have_count(1)
        assert asked >= 2  # the opening's chooser and the capture's (K or pawn from White's 24)

        # The end: White bore off the last checker; the game is scored and the match over.
        awaits(page, "The match is over.")
        expect(page.locator("#winner")).to_have_text(f"{white} wins the match.")
        expect(page.locator("#score-1")).to_have_text("1")
        expect(page.locator("#games")).to_contain_text("single game")
        expect(page.locator("#turns")).to_contain_text("6-1: D8/1*")
        expect(page.locator("#turns")).to_contain_text("6-6: K24/18 24/18* G13/7 13/7")
        shoot(page, "soldiers-end")

        # The replay draws the same classes; the pin after turn 4 (frame 4).
        page.goto(live_server.url + reverse("games:replay", args=[match.pk, 1]) + "#t4")
        page.wait_for_selector("#board-app[data-ready]", state="attached")
        expect(page.locator("#class-legend")).to_be_visible()
        expect(
            page.locator('#board circle.checker.side-2.pinned[data-class="P"][data-at="1"]')
        ).to_have_count(1)
        expect(page.locator("#replay-text")).to_have_text("6-1: D8/1*")
        page.click("button[data-go=last]")
        expect(page.locator("#board text.class-letter")).to_have_count(0)  # everyone off or pawns

        # The match page: the turns with their class letters, and the legend.
        page.goto(live_server.url + reverse("games:match", args=[match.pk]))
        expect(page.locator("#class-legend")).to_be_visible()
        expect(page.locator("table.turns").first).to_contain_text("K24/18 24/18* G13/7 13/7")
    finally:
        context.close()

    match.refresh_from_db()
    assert match.state == MatchState.FINISHED
    game = match.games.get()
    assert (game.winner, game.points, game.end) == (1, end.result.points, "bearoff")
    assert game.result == end.result.result_name
    recorded = list(
        game.turns.filter(undone_at__isnull=True).order_by("number").values_list("moves", flat=True)
    )
    assert recorded[1:] == [t.notation for t in turns]


@pytest.mark.parametrize("variant", ["short", "plakoto"])
def test_other_variants_boards_have_no_classes(live_server, browser, variant) -> None:  # type: ignore[no-untyped-def]
    """The class drawing, chooser and legend are Soldiers' only: another variant's
    board draws and moves as before (its own tests play it)."""
    if variant == "plakoto":
        from tests.games.test_board_pins import plakoto_match

        match = plakoto_match()  # White to roll
        dice, clicks, moves = ("6", "2"), ("13", "7"), "13/7"
    else:
        match = MatchFactory(length=1)
        dice, clicks, moves = ("3", "1"), ("8", "5"), "8/5"
        from games import services
        from games.models import TurnKind
        from tests.games.helpers import user_of

        services.record_turn(
            match, by=user_of(match, 0), number=1, kind=TurnKind.OPENING, dice=[6, 4]
        )
        services.record_turn(
            match, by=user_of(match, 0), number=2, kind=TurnKind.PLAY, dice=[6, 4], moves="24/14"
        )
        services.record_turn(
            match, by=user_of(match, 1), number=3, kind=TurnKind.PLAY, dice=[6, 4], moves="24/14"
        )
    context, page = open_board(browser, live_server, match, 1)
    try:
        awaits(page, f"{match.player1} to roll")
        page.select_option("#die-1", dice[0])
        page.select_option("#die-2", dice[1])
        page.click("#enter-dice")
        page.wait_for_selector("#board .source", state="attached")
        for point in clicks:
            page.click(f'#board [data-point="{point}"]')
        expect(page.locator("#moves")).to_have_value(moves)
        for selector in (
            "#class-legend",
            "#class-chooser",
            "#board [data-class]",
            "#board .class-shape",
            "#board .class-letter",
            "#board .count-badge",
        ):
            expect(page.locator(selector)).to_have_count(0)
        expect(page.locator('link[href$="classes.css"]')).to_have_count(0)
    finally:
        context.close()
