"""The generator for two different dice (engine.soldiers.twodice) against the
search: wherever it answers, the same plays (one per resulting position, as
RULES.md §3.1 counts them), each with a legal path."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.soldiers import twodice
from engine.soldiers.army import GENERAL, GUARD
from engine.soldiers.movegen import (
    ATTACK,
    CAPTURE,
    HIT,
    PIN,
    SoldierPlay,
    searched_plays,
)
from engine.soldiers.notation import format_play
from engine.soldiers.plays import legal_plays
from engine.soldiers.state import ONE, SoldiersPosition
from engine.soldiers.twodice import _comes_home, two_dice_plays
from tests.engine.soldiers.helpers import against_search, legal_path, pos, side_text
from tests.engine.soldiers.test_properties import _random_position, game

ROLLS = tuple((a, b) for a in range(2, 7) for b in range(1, a))


def _same(position: SoldiersPosition, a: int, b: int, seen: Counter[str]) -> bool | None:
    """None where the generator declines; else whether it gives the plays the
    search gives, each once and with a legal path (and `legal_plays` gives them)."""
    fast = two_dice_plays(position, a, b)
    if fast is None:
        return None
    searched = searched_plays(position, (a, b))
    for play in fast:
        for step in play.steps:
            seen[step.effect or "plain"] += 1
            seen["entry"] += step.origin == 25
            seen["general back"] += step.dest > step.origin
    if not all(legal_path(position, play) for play in fast):
        return False
    texts = _texts(fast)
    return len(texts) == len(fast) and texts == _texts(searched) == _texts(
        legal_plays(position, (b, a))
    )


def _texts(plays: list[SoldierPlay]) -> set[str]:
    return {play.position.text() for play in plays}


def _why_declined(position: SoldiersPosition, a: int, b: int) -> str:
    """Which of the module's conditions a declined position fails."""
    if position.class_count(position.turn, GENERAL) > 1:
        return "two generals"
    side = position.turn
    for q in range(1, 25):  # a lone guard of the opponent with a checker of the mover on it
        guard = position.free[1 - side][25 - q]
        if guard == ONE[GUARD] and position.free[side][q]:
            return "a first attacker waiting"
    return "declined for no stated reason"


def test_the_generator_gives_what_the_search_gives_on_game_positions() -> None:
    seen: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    compared = declined = 0
    differences = []
    # the default army, and one with five guards (one general: the generator's case)
    for seed, army in ((1, 0), (3, 3), (4, 4)):
        for turn, (position, _) in enumerate(game(2000 + seed, army)):
            if turn % 4:
                continue
            for a, b in ROLLS:
                same = _same(position, a, b, seen)
                if same is None:
                    declined += 1
                    reasons[_why_declined(position, a, b)] += 1
                    continue
                compared += 1
                if not same:
                    differences.append((position.text(), (a, b)))
    assert differences == []
    assert compared > declined  # it answers for most positions
    # and declines only for its stated reasons
    assert set(reasons) <= {"two generals", "a first attacker waiting"}
    for effect in ("plain", HIT, PIN, "entry", "general back"):
        assert seen[effect] > 0, effect


def test_the_generator_gives_what_the_search_gives_on_made_up_positions() -> None:
    # few checkers anywhere, pins both ways, lone guards, the bar
    rng = random.Random(21)
    seen: Counter[str] = Counter()
    compared, differences = against_search(
        (_random_position(rng) for _ in range(250)),
        ROLLS,
        lambda position, roll: _same(position, *roll, seen),
    )
    assert differences == []
    assert compared > 1000
    for effect in (HIT, PIN, ATTACK, CAPTURE, "entry", "general back"):
        assert seen[effect] > 0, effect


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32))
def test_the_generator_agrees_with_the_search_on_any_made_up_position(seed: int) -> None:
    position = _random_position(random.Random(seed))
    if position is None:
        return
    seen: Counter[str] = Counter()
    for a, b in ROLLS:
        assert _same(position, a, b, seen) is not False, (position.text(), (a, b))


def test_the_generator_declines_where_its_conditions_fail() -> None:
    rest = "P13x5 P8x3 P6x5 | B: P24x2 P13x5 P8x3 P6x5 | W"
    # a plain position: it answers
    assert two_dice_plays(pos(f"W: K24 P24 {rest}"), 6, 5) is not None
    # two generals
    assert two_dice_plays(pos(f"W: K24x2 {rest}"), 6, 5) is None
    # a bear-off within reach: answered too, the whole board read after the
    # first step (with the highest-checker rule, and the last checker off)
    home = "P5x5 P4x3 | B: P24x2 P13x5 P8x3 P6x5 | W"
    for text in (
        f"W: K8 P7 P6x5 {home}",
        f"W: K8 P6x6 {home}",
        "W: P6 K5 P3x2 | B: P24x2 P13x5 | W",
        "W: P2 | B: P24x2 P13x5 | W",
        "W: E5 O3 | B: P24x2 P13x5 | W",
    ):
        for a, b in ROLLS:
            found = two_dice_plays(pos(text), a, b)
            assert found is not None
            assert _texts(found) == _texts(searched_plays(pos(text), (a, b))), (text, a, b)
            assert all(legal_path(pos(text), play) for play in found)
    # the checker on the bar cannot enter: nothing moves
    closed = pos("W: Pbar P13x14 | B: P1x2 P2x2 P3x2 P4x2 P5x2 P6x2 P13x3 | W")
    assert [p.steps for p in two_dice_plays(closed, 6, 5) or []] == [()]
    # no play starts with the larger die: every play is the smaller die's
    # step, then the larger one's
    blocked = pos("W: K24 P24 P13x13 | B: P18x2 P7x2 P13x11 | W")
    found = two_dice_plays(blocked, 6, 1)
    assert found is not None
    assert _texts(found) == _texts(searched_plays(blocked, (6, 1)))
    assert all([s.die for s in p.steps] == [1, 6] for p in found)
    # the general's 2 back and 4 forward ends where its 2 forward does
    back_and_forth = pos(
        "W: K22 O20 O15 O8 P4 E2x3 P2x2 P1x5"
        " | B: O20x2 P20x2 O19 K15 E13 P13 E11 P8 P7x2 E2 P2x2 | W"
    )
    found = two_dice_plays(back_and_forth, 4, 2) or []
    assert _texts(found) == _texts(searched_plays(back_and_forth, (4, 2)))
    assert all(legal_path(back_and_forth, play) for play in found)
    # no play uses both dice: the forced-move rules keep the smaller die's
    # steps here (the larger cannot be played)
    stuck = pos("W: K24 P24 P13x13 | B: P18x2 P8x2 P7x2 P13x9 | W")
    found = two_dice_plays(stuck, 6, 1)
    assert [[s.die for s in p.steps] for p in found or []] == [[1]] * 2
    assert _texts(found or []) == _texts(searched_plays(stuck, (6, 1)))


def test_two_or_more_checkers_on_the_bar_enter_with_each_die() -> None:
    board = "P13x4 P8x3 P6x5 | B: {black} | W"
    cases = {
        # both dice enter, classes and all; a blot hit on entering
        "W: Kbar Pbar Gbar": "P24x2 P13x5 P8x3 P6x4 P1",
        # a 6 cannot enter: the other die enters one, the smaller alone
        "W: Pbar Dbar Ebar": "P24x2 P20x2 P13x5 P8x3 P6x3",
        # 1 to 5 cannot enter: a 6 enters alone, else nothing moves
        "W: Pbar Pbar Obar": "P1x2 P2x2 P3x2 P4x2 P5x2 P13x5",
        # a lone guard on an entry point: an attack nothing can follow
        "W: Pbar Pbar Dbar": "G3 P24x2 P13x5 P8x3 P6x4",
        # the druid pins a blot as it enters; wounded checkers of either parity
        "W: Dbar Ebar Obar": "P2 P4 P24 P13x5 P8x3 P6x4",
    }
    seen: Counter[str] = Counter()
    for white, black in cases.items():
        position = pos(f"{white} {board.format(black=black)}")
        for a, b in ROLLS:
            found = two_dice_plays(position, a, b)
            assert found is not None
            assert _texts(found) == _texts(searched_plays(position, (a, b))), (white, a, b)
            assert all(legal_path(position, play) for play in found)
            for play in found:
                seen[f"{len(play.steps)} steps"] += 1
                for step in play.steps:
                    seen[step.effect or "plain"] += 1
    for kind in ("0 steps", "1 steps", "2 steps", HIT, PIN):
        assert seen[kind] > 0, kind


def test_a_bear_off_is_within_reach_only_where_one_die_brings_the_last_checker_home() -> None:
    # One checker outside the home, on 10: 6-5 brings it home with the 6 (the
    # 5 may then bear off); 3-2 cannot, so nothing is borne off this turn and
    # the plain generator answers.  A checker on the bar enters outside the
    # home and stays there, whatever else stands outside.
    home = "P6x4 P5x3 P4x3 P3x3"
    lone = f"W: K10 {home} | B: P24x2 P13x5 P8x3 P6x5 | W"
    assert _comes_home(pos(lone).free[0], 6)
    assert not _comes_home(pos(lone).free[0], 3)
    on_bar = "W: Pbar K6 P6x3 P5x3 P4x3 P3x3 | B: P24x2 P13x5 P8x3 P6x5 | W"
    seen: Counter[str] = Counter()
    for text in (lone, on_bar):
        for a, b in ROLLS:
            assert _same(pos(text), a, b, seen) is True, (text, a, b)
    assert seen["entry"] > 0 and seen["plain"] > 0


def _from_the_start_steps(
    monkeypatch: pytest.MonkeyPatch, position: SoldiersPosition, a: int, b: int
) -> tuple[list[SoldierPlay], object]:
    """The plays of ``a``-``b`` where `_chains` answers (the plays whose
    steps share a point made from the start's steps, no first step played
    and its board read again), checked against the search with every path
    legal; and what `_chains` answered."""
    answers: list[object] = []
    original = twodice._chains

    def chains(*args: object) -> object:
        found = original(*args)  # type: ignore[arg-type]
        answers.append(found)
        return found

    monkeypatch.setattr(twodice, "_chains", chains)
    found = two_dice_plays(position, a, b)
    monkeypatch.undo()
    assert found is not None and answers and answers[0] is not None
    assert _texts(found) == _texts(searched_plays(position, (a, b)))
    assert all(legal_path(position, play) for play in found)
    return found, answers[0]


def test_a_lone_guard_reached_by_a_step_of_each_die_is_captured_from_the_start_steps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Black's lone guard on white's 20, reached by a 4 and by a 3: one lands
    # first (the attack) and the other captures.  Where the other steps only
    # move or hit, the captures are made from the start's steps (`_chains`
    # lists them); the general may step back onto the guard only as the
    # capture, so with its step back on the larger die the smaller die
    # attacks first.
    black = "B: G5 P24x2 P13x4 P7x3 P6x5 | W"
    for white, written, steps in (
        ("W: P24 P23", "24/20 23/20*", ((24, 4, ATTACK), (23, 3, CAPTURE))),
        ("W: P24 K17", "24/20 K17/20*", ((24, 4, ATTACK), (17, 3, CAPTURE))),
        ("W: P23 K16", "23/20 K16/20*", ((23, 3, ATTACK), (16, 4, CAPTURE))),
    ):
        position = pos(f"{white} P13x4 P8x3 P6x5 | {black}")
        found, answer = _from_the_start_steps(monkeypatch, position, 4, 3)
        captures = [play for play in found if any(s.effect == CAPTURE for s in play.steps)]
        assert [format_play(play) for play in captures] == [written]
        assert [(s.origin, s.die, s.effect) for s in captures[0].steps] == list(steps)
        assert len(answer[1]) == 1  # type: ignore[index]  # the capture, listed


def test_a_druid_and_another_checker_onto_one_blot_make_both_boards_from_the_start_steps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Black's blot on white's 7, reached by the druid with the 4 and by a
    # pawn (or the general) with the 2: the first lander decides, so the
    # druid first pins it and the pawn joins, or the pawn first hits it and
    # the druid joins.  A druid that pins and moves on releases the blot.
    black = "B: P18 P24x2 P13x4 P8x3 P6x4 | W"
    for other in ("P9 K24", "K9 P24"):
        position = pos(f"W: D11 {other} G24 P13x4 P6x5 E6 O6 | {black}")
        found, _ = _from_the_start_steps(monkeypatch, position, 4, 2)
        black_after = {format_play(play): side_text(play.position.text(), 1) for play in found}
        mover = other.split()[0][0] if other[0] == "K" else ""
        assert black_after[f"D11/7* {mover}9/7"].startswith("P24x2 P18! ")  # pinned
        assert black_after[f"D11/7 {mover}9/7*"].startswith("Pbar P24x2 ")  # hit
        assert black_after["D11/7*/5"].startswith("P24x2 P18 ")  # released


def test_the_two_checkers_holding_a_pin_both_leave_and_free_it_from_the_start_steps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # White's druid and pawn on its 8 hold black's pawn pinned: each may
    # leave with one die, and when both go the pin ends (the black pawn
    # stays, free); one leaving alone keeps it.
    position = pos("W: D8 P8 K24 G24 P13x4 P6x5 E6 O6 | B: P17! P24x2 P13x4 P7x3 P6x4 | W")
    found, _ = _from_the_start_steps(monkeypatch, position, 4, 2)
    black_after = {format_play(play): side_text(play.position.text(), 1) for play in found}
    for both in ("D8/4 8/6", "D8/6 8/4"):
        assert black_after[both].startswith("P24x2 P17 ")  # free
    assert black_after["13/11 D8/4"].startswith("P24x2 P17! ")  # still held by the pawn


def test_a_druid_moving_on_onto_a_blot_pins_it() -> None:
    # The druid on 11 plays 4-2 as one checker, by 7 or by 9, onto black's
    # blot on white's 5, which it pins; the two ways make one play.
    position = pos("W: D11 D13 K24 G24 P13x3 P6x5 E6 O6 | B: P20 P24x2 P13x4 P8x3 P6x4 | W")
    found = two_dice_plays(position, 4, 2)
    assert found is not None
    assert _texts(found) == _texts(searched_plays(position, (4, 2)))
    assert all(legal_path(position, play) for play in found)
    black_after = [
        side_text(play.position.text(), 1) for play in found if format_play(play) == "D11/5*"
    ]
    assert len(black_after) == 1 and black_after[0].startswith("P24x2 P20! ")
