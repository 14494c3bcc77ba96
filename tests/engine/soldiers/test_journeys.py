"""Doubles as journeys (engine.soldiers.journeys) against the search: wherever
it answers, the same plays (one per resulting position, as RULES.md §3.1
counts them), each with a legal path, also where the order of some steps
matters (those checkers are walked first)."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.soldiers.doubles import doubles_plays
from engine.soldiers.journeys import journey_plays
from engine.soldiers.movegen import ATTACK, CAPTURE, HIT, PIN, SoldierPlay, searched_plays
from engine.soldiers.plays import legal_plays
from engine.soldiers.state import PositionTextError, SoldiersPosition, parse_position
from tests.engine.soldiers.helpers import against_search, legal_path, pos
from tests.engine.soldiers.test_doubles import doubles_on_games
from tests.engine.soldiers.test_properties import game

DICE = range(1, 7)
REST = "| B: P24x2 P13x5 P8x3 P6x5 | W"


def _same(position: SoldiersPosition, die: int, seen: Counter[str]) -> bool | None:
    """None where the generator declines; else whether it gives the plays the
    search gives, each once and with a legal path (and `legal_plays` gives them)."""
    fast = journey_plays(position, die)
    if fast is None:
        return None
    for play in fast:
        for step in play.steps:
            seen[step.effect or "plain"] += 1
            seen["general back"] += step.dest > step.origin
            seen["entry"] += step.origin == 25
        seen["general back and forth"] += any(s.dest > s.origin for s in play.steps) and any(
            s.dest < s.origin and s.cls == 0 for s in play.steps
        )
        # two steps onto one blot: the first hits, the second lands on nothing
        hits = [s.dest for s in play.steps if s.effect is HIT]
        landings = [s.dest for s in play.steps if s.dest in hits]
        seen["second lander"] += len(landings) > len(hits)
    if not all(legal_path(position, play) for play in fast):
        return False
    texts = _texts(fast)
    searched = searched_plays(position, (die, die))
    return len(texts) == len(fast) and texts == _texts(searched) == _texts(
        legal_plays(position, (die, die))
    )


def _texts(plays: list[SoldierPlay]) -> set[str]:
    return {play.position.text() for play in plays}


def _mutated(position: SoldiersPosition, rng: random.Random) -> SoldiersPosition:
    """The position with some of the mover's checkers outside its home
    shifted at random (a made-up position near a real one: other blots,
    chains and retreats); the game's own where that makes a point shared."""
    parts = position.text().split("|")
    head, body = parts[position.turn].split(":", 1)
    shifted = []
    for token in body.split():
        where, times, count = token[1:].partition("x")
        if where.isdigit() and int(where) > 6 and rng.random() < 0.4:
            where = str(min(24, max(7, int(where) + rng.randint(-5, 5))))
        shifted.append(token[0] + where + times + count)
    parts[position.turn] = f"{head}: {' '.join(shifted)} "
    try:
        return parse_position("|".join(parts))
    except PositionTextError:
        return position


def test_journeys_give_what_the_search_gives_on_game_positions() -> None:
    seen: Counter[str] = Counter()
    compared, differences = doubles_on_games(_same, 5000, seen)
    assert differences == []
    assert compared > 300
    for effect in ("plain", HIT, PIN, "general back", "general back and forth", "second lander"):
        assert seen[effect] > 0, effect


def test_journeys_give_what_the_search_gives_on_made_up_positions() -> None:
    rng = random.Random(23)
    seen: Counter[str] = Counter()
    pairs = [
        (position, _mutated(position, rng))
        for seed in (5100, 5101)
        for turn, (position, _) in enumerate(game(seed, 0))
        if turn % 2 == 0
    ]
    mutated = sum(made != position for position, made in pairs)
    compared, differences = against_search(
        (made for _, made in pairs), DICE, lambda made, die: _same(made, die, seen)
    )
    assert differences == []
    assert compared > 150 and mutated > 40


def _crowded_position(rng: random.Random) -> SoldiersPosition | None:
    """A made-up position with 5 to 12 checkers a side within a dozen
    points (the rest borne off), druids and guards often: checkers on the
    bar, blots, pins both ways and lone guards within each other's reach,
    where the walked checkers' every case comes up."""
    sides: list[dict[int, list[str]]] = [{}, {}]
    for side in (0, 1):
        low = rng.randint(1, 12)
        for _ in range(rng.randint(5, 12)):
            q = rng.choice([25, *range(low, min(24, low + 12) + 1)])
            sides[side].setdefault(q, []).append(rng.choice("KDDDGGPPPEO"))
    for q in range(1, 25):  # a point both sides stand on: a pin, else White leaves
        white, black = sides[0].get(q, []), sides[1].get(25 - q, [])
        if white and black:
            if len(white) == 1 and white[0] != "G" and rng.random() < 0.5:
                sides[0][q] = [white[0] + "!"]
            elif len(black) == 1 and black[0] != "G" and rng.random() < 0.8:
                sides[1][25 - q] = [black[0] + "!"]
            else:
                del sides[0][q]
    halves = []
    for side in (0, 1):
        tokens = []
        for q, found in sides[side].items():
            where = "bar" if q == 25 else str(q)
            tokens += [f"{token[0]}{where}{token[1:]}" for token in found]
        halves.append(" ".join(tokens))
    try:
        return parse_position(f"W: {halves[0]} | B: {halves[1]} | W")
    except PositionTextError:
        return None  # e.g. two generals pinned


def test_journeys_give_what_the_search_gives_where_pins_guards_and_the_bar_meet() -> None:
    rng = random.Random(24)
    seen: Counter[str] = Counter()
    compared, differences = against_search(
        (_crowded_position(rng) for _ in range(250)),
        DICE,
        lambda position, die: _same(position, die, seen),
    )
    assert differences == []
    assert compared > 600
    for effect in (HIT, PIN, ATTACK, CAPTURE, "entry", "general back"):
        assert seen[effect] > 0, effect


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 200), st.sampled_from(DICE))
def test_journeys_agree_with_the_search_on_any_game_position(seed: int, at: int, die: int) -> None:
    rng = random.Random(seed)
    for turn, (position, _) in enumerate(game(seed % 1000, 0)):
        if turn == at:
            assert _same(_mutated(position, rng), die, Counter()) is not False
            return


def test_a_general_behind_its_start_only_after_a_hit_of_its_own() -> None:
    # White's general on 16 with 4-4: with nothing to hit behind it, it may
    # step back and return but not end behind 16; with Black's blot on
    # White's 20, it may end on 20 or 24, having hit on 20 on the way
    rest = "P13x5 P8x4 P6x5 | B: P24x2 P13x4 P8x3 P6x5 | W"
    quiet = pos(f"W: K16 {rest}")
    found = journey_plays(quiet, 4)
    assert found is not None
    assert max(_general_end(play) for play in found) == 16
    assert any(s.cls == 0 and s.dest > s.origin for p in found for s in p.steps)
    blot = pos("W: K16 P13x5 P8x4 P6x5 | B: P5 P24x2 P13x4 P8x3 P6x4 | W")
    found = journey_plays(blot, 4)
    assert found is not None
    behind = [play for play in found if _general_end(play) > 16]
    assert {_general_end(play) for play in behind} == {20, 24}
    for play in behind:
        assert any(s.cls == 0 and s.dest == 20 and s.effect is HIT for s in play.steps)
    for position in (quiet, blot):
        assert _texts(journey_plays(position, 4) or []) == _texts(searched_plays(position, (4, 4)))


def _general_end(play: SoldierPlay) -> int:
    text = play.position.text().split("|")[0]
    return next(int(t[1:].partition("x")[0]) for t in text.split()[1:] if t.startswith("K"))


def test_journeys_decline_a_bear_off_within_reach_and_several_generals() -> None:
    plain = f"W: K24 P24 P13x5 P8x3 P6x5 {REST}"
    assert journey_plays(pos(plain), 3) is not None
    for text, die in (
        (f"W: K9 P8 P7 P6x4 P5x5 P4x3 {REST}", 3),
        (f"W: K24x2 P13x5 P8x3 P6x5 {REST}", 3),
        # seven checkers on the bar: more walked checkers than it takes on
        (f"W: Pbarx7 P13x2 P8 P6x5 {REST}", 3),
    ):
        assert journey_plays(pos(text), die) is None, text
        # the exact walk or the search answers instead, and legal_plays with them
        assert _texts(legal_plays(pos(text), (die, die))) == _texts(
            searched_plays(pos(text), (die, die))
        )


def test_journeys_answer_where_the_few_checkers_outside_cannot_come_home_in_three_steps() -> None:
    # Two checkers outside the home: a bear-off needs them home with a die
    # left.  With 3-3 they need 3 + 2 steps, so nothing is borne off and the
    # journeys answer; with 6-6 they need 2 + 1, so the fourth die might bear
    # off: they decline, and the bear-off walk answers.  A pinned checker
    # outside does not count (pins never block bearing off): with it, the
    # general alone needs 3 steps of 3-3.
    seen: Counter[str] = Counter()
    home = "P6x4 P5x3 P4x3 P3x3"
    for text, far, near in (
        (f"W: K13 P11 {home} {REST}", (1, 2, 3), (6,)),
        (f"W: G24! K13 {home} | B: P24x2 P13x5 P8x3 P6x4 P1 | W", (1, 2), (3, 6)),
    ):
        position = pos(text)
        for die in far:
            assert _same(position, die, seen) is True, (text, die)
        for die in near:
            assert journey_plays(position, die) is None, (text, die)
            assert doubles_plays(position, die) is not None, (text, die)
    assert seen["plain"] > 0


def test_checkers_whose_order_matters_are_walked_first() -> None:
    seen: Counter[str] = Counter()
    for text, die in (
        # a checker on the bar enters before anything else moves
        (f"W: Kbar P24 P13x5 P8x3 P6x5 {REST}", 3),
        # the druid and others can reach a blot: pinned or hit, by who lands first
        ("W: D13 K24 P24 P13x4 P8x3 P6x5 | B: P15 P24 P13x5 P8x3 P6x5 | W", 3),
        ("W: D20 K13 P18 P13x3 P8x4 P6x5 | B: P9 P24 P13x5 P8x3 P6x4 | W", 2),
        # a lone guard: an attack only with its capture
        ("W: K24 P24 P13x5 P8x3 P6x5 | B: G15 P24 P13x5 P8x3 P6x4 | W", 3),
        # a lone druid holding a pin leaves it, and others may land there after
        ("W: D10 K24 P24 P13x4 P8x3 P6x5 | B: P15! P24 P13x5 P8x3 P6x4 | W", 3),
        # a hit on the lone checker holding White's pinned frees it, and it walks
        ("W: K21 P24! P13x5 P8x3 P6x5 | B: P1 P24 P13x5 P8x3 P6x5 | W", 3),
        # the general pinned, freed by a hit, walking on
        ("W: K20! P24 P13x5 P8x3 P6x5 | B: P5 P24 P13x5 P8x3 P6x5 | W", 4),
        # the druid pinned on 15, freed by the hit from 17, and the checker on
        # 13 can both land on Black's blot on 11: it is pinned or hit by who
        # lands first (the checker on 13 is walked too)
        ("W: D15! P17 P13 P24x2 P8x5 P6x5 | B: P10 P14 P24x2 P13x5 P7x3 P6x3 | W", 2),
    ):
        position = pos(text)
        found = journey_plays(position, die)
        assert found is not None, text
        assert _same(position, die, seen), text
    for effect in ("plain", HIT, PIN, ATTACK, CAPTURE, "entry"):
        assert seen[effect] > 0, effect


def test_the_druid_pins_and_a_lone_pin_holder_frees_where_no_one_else_lands() -> None:
    # the druid on 20 may pin Black's blot on White's 16 (nothing else of
    # White's reaches 16), staying there or walking on (the blot freed again);
    # the lone druid on 10 holding a pin frees it when it leaves
    for text in (
        "W: D20 K13 P13x4 P8x4 P6x5 | B: P9 P24 P13x5 P8x3 P6x4 | W",
        "W: D10 K24 P24 P13x4 P8x3 P6x5 | B: P15! P24 P13x5 P8x3 P6x4 | W",
    ):
        position = pos(text)
        found = journey_plays(position, 2)
        assert found is not None, text
        assert _texts(found) == _texts(searched_plays(position, (2, 2)))
        assert all(legal_path(position, play) for play in found)
        pins = {play.position.pinned[1] for play in found}
        assert len(pins) == 2  # the pin made (or kept) in some plays, not in others


def test_a_checker_entering_onto_nothing_goes_on_as_an_independent_checker() -> None:
    # White's pawn on the bar enters (on 24 with 1-1, on 20 with 5-5) and
    # may go on where White's pawns on 22 and 20 go too: the same boards
    # are reached by the entered pawn and by those, and each comes once.
    # With a druid in reach of Black's blot on White's 15 (5-5 lands there
    # from 20), the entered checker is walked on: the order of landings
    # on that blot matters.
    quiet = pos("W: Pbar P22 P20 K13 P13x4 P8x3 P6x3 | B: P24x2 P13x5 P8x3 P6x5 | W")
    for die in (1, 5):
        seen: Counter[str] = Counter()
        assert _same(quiet, die, seen)
        assert seen["entry"] > 0
        found = journey_plays(quiet, die) or []
        entry = 25 - die
        # the entered pawn moves on in some plays (a second step from its point)
        assert any(
            play.steps[0].origin == 25 and any(s.origin == entry for s in play.steps[1:])
            for play in found
        )
    druid = pos("W: Pbar D20 K13 P13x4 P8x3 P6x4 | B: P10 P24 P13x5 P8x3 P6x4 | W")
    assert _same(druid, 5, Counter())


def test_a_checker_freed_by_a_capture_and_an_independent_one_make_each_board_once() -> None:
    # The lone guard on 10 holds my pawn pinned.  The general attacks it from
    # 14 and the wounded even checker captures: the pawn is free and walks
    # on to 6, where three pawns stand that move independently.  Its next
    # step, 6/2, and theirs reach the same boards, so these boards are kept
    # by key though no blot was hit and the walked checkers have no
    # class-mate among the independent ones.
    position = pos("W: K14 E14 P10! P13x4 P8x4 P6x4 | B: G15 P9x2 P3x4 P2x4 P1x4 | W")
    seen: Counter[str] = Counter()
    assert _same(position, 4, seen) is True
    assert seen["capture"] > 0
