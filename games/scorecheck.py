"""Checks of a reported match result against the match (pure: no Django).

A reported score must be one the match can end with: in a match to N the
winner reached N and the loser did not; with a game log, the games add up
to the score, no game follows the one that won the match, and the Crawford
game scores no more than a game without the cube can.  Problems come back
as ``ScoreError`` codes with their data; the Django side words them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


class ScoreError(Exception):
    def __init__(self, code: str, **data: Any) -> None:
        super().__init__(code)
        self.code = code
        self.data = data


@dataclass(frozen=True)
class GameLine:
    winner: int  # 1 or 2
    points: int
    crawford: bool = False


def parse_log(entries: Sequence[Mapping[str, Any]]) -> list[GameLine]:
    games: list[GameLine] = []
    for index, entry in enumerate(entries, start=1):
        try:
            winner = int(entry["winner"])
            points = int(entry["points"])
        except (KeyError, TypeError, ValueError):
            raise ScoreError("bad_game_entry", game=index) from None
        if winner not in (1, 2):
            raise ScoreError("bad_game_winner", game=index, winner=winner)
        if points < 1:
            raise ScoreError("bad_game_points", game=index, points=points)
        games.append(GameLine(winner, points, bool(entry.get("crawford", False))))
    return games


def winner_of(length: int, score1: int, score2: int) -> int | None:
    if length == 0:
        return None if score1 == score2 else (1 if score1 > score2 else 2)
    return 1 if score1 >= length else 2 if score2 >= length else None


def check_final_score(length: int, score1: int, score2: int) -> None:
    if score1 < 0 or score2 < 0:
        raise ScoreError("negative_score")
    if length == 0:
        return
    if score1 >= length and score2 >= length:
        raise ScoreError("both_reached_length", length=length)
    if score1 < length and score2 < length:
        raise ScoreError("nobody_reached_length", length=length)


def check_log(
    length: int,
    score1: int,
    score2: int,
    games: Sequence[GameLine],
    *,
    cube: bool,
    max_points_without_cube: int,
) -> None:
    """The log leads to the reported score; ``score`` of the winner may be capped at N."""
    running = [0, 0]
    crawford_played = False
    for index, game in enumerate(games, start=1):
        if length and max(running) >= length:
            raise ScoreError("game_after_match_won", game=index)
        is_crawford = (
            cube
            and length > 0
            and not crawford_played
            and length - 1 in running
            and max(running) < length
        )
        if is_crawford:
            crawford_played = True
            if game.points > max_points_without_cube:
                raise ScoreError(
                    "crawford_points", game=index, points=game.points, most=max_points_without_cube
                )
        running[game.winner - 1] += game.points
    if length:
        reported = [score1, score2]
        for side in (0, 1):
            if running[side] >= length:
                if reported[side] not in (running[side], length):
                    raise ScoreError("log_mismatch", log=list(running), reported=reported)
            elif reported[side] != running[side]:
                raise ScoreError("log_mismatch", log=list(running), reported=reported)
        if max(running) < length:
            raise ScoreError("log_incomplete", log=list(running), length=length)
    elif [score1, score2] != running:
        raise ScoreError("log_mismatch", log=list(running), reported=[score1, score2])


def final_score(length: int, games: Sequence[GameLine]) -> tuple[int, int]:
    """The score the log ends with, the winner capped at the length."""
    running = [0, 0]
    for game in games:
        running[game.winner - 1] += game.points
    if length:
        running = [min(value, length) for value in running]
    return running[0], running[1]
