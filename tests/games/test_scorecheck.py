"""The pure score checks (no database)."""

from __future__ import annotations

import pytest

from games.scorecheck import (
    GameLine,
    ScoreError,
    check_final_score,
    check_log,
    final_score,
    parse_log,
    winner_of,
)


def codes(call) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(ScoreError) as error:
        call()
    return error.value.code


def test_final_score_must_end_the_match() -> None:
    check_final_score(7, 7, 3)
    check_final_score(7, 2, 9)  # excess points are allowed
    assert codes(lambda: check_final_score(7, 6, 5)) == "nobody_reached_length"
    assert codes(lambda: check_final_score(7, 7, 7)) == "both_reached_length"
    check_final_score(0, 4, 9)  # a money session has no length


def test_winner() -> None:
    assert winner_of(5, 5, 2) == 1 and winner_of(5, 1, 6) == 2 and winner_of(5, 1, 2) is None
    assert winner_of(0, 3, 3) is None and winner_of(0, 1, 3) == 2


def log(*games: tuple[int, int]) -> list[GameLine]:
    return [GameLine(winner, points) for winner, points in games]


def test_log_adds_up_to_the_reported_score() -> None:
    games = log((1, 2), (2, 1), (1, 1), (2, 3), (1, 2))  # 5-4 in a match to 5
    check_log(5, 5, 4, games, cube=True, max_points_without_cube=3)
    assert final_score(5, games) == (5, 4)
    assert (
        codes(lambda: check_log(5, 5, 3, games, cube=True, max_points_without_cube=3))
        == "log_mismatch"
    )


def test_winner_may_be_reported_capped_or_with_excess() -> None:
    games = log((1, 4), (2, 2), (1, 4))  # 8 points in a match to 5
    check_log(5, 5, 2, games, cube=True, max_points_without_cube=3)
    check_log(5, 8, 2, games, cube=True, max_points_without_cube=3)
    assert final_score(5, games) == (5, 2)


def test_no_game_after_the_match_was_won() -> None:
    games = log((1, 5), (2, 1))
    assert (
        codes(lambda: check_log(5, 5, 1, games, cube=True, max_points_without_cube=3))
        == "game_after_match_won"
    )


def test_crawford_game_scores_at_most_a_cubeless_game() -> None:
    # 4-0 in a match to 5: the next game is the Crawford game; 4 points there needs a cube.
    games = log((1, 4), (2, 4))
    assert (
        codes(lambda: check_log(5, 4, 4, games, cube=True, max_points_without_cube=3))
        == "crawford_points"
    )
    # After the Crawford game, doubling is back.
    check_log(5, 4, 5, log((1, 4), (2, 1), (2, 4)), cube=True, max_points_without_cube=3)
    # Without the cube there is no Crawford game.
    check_log(5, 4, 5, log((1, 4), (2, 5)), cube=False, max_points_without_cube=3)


def test_incomplete_log_and_bad_entries() -> None:
    assert codes(lambda: check_log(5, 5, 0, log((1, 3)), cube=True, max_points_without_cube=3)) in {
        "log_mismatch",
        "log_incomplete",
    }
    assert codes(lambda: parse_log([{"winner": 3, "points": 1}])) == "bad_game_winner"
    assert codes(lambda: parse_log([{"winner": 1, "points": 0}])) == "bad_game_points"
    assert codes(lambda: parse_log([{"points": 1}])) == "bad_game_entry"
    assert parse_log([{"winner": "2", "points": "3", "crawford": True}]) == [GameLine(2, 3, True)]
