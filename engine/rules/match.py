"""A match to N points, or a money session (N = 0), as an immutable record of games.

Score: ``Match.score`` adds every game's full points (``GameResult.points``),
as GNU Backgammon and ``.mat`` files keep it, so a 5-point match can end 7-3.
The match is won as soon as a player's score reaches N and nothing carries
over (RULES §2); ``Match.final_score`` is the result capped at N (7-3 in a
5-point match is recorded as 5-3) for standings that must not count excess.

Crawford (RULES §2, §7, only where the cube is played): the first game played
while a player's score is N-1 is the Crawford game, with no doubling; later
games are post-Crawford.  In a 1-point match that is the first game (both
players start at N-1 = 0), where a double could not matter anyway.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.errors import GameStateError
from engine.rules.board import Position, other
from engine.rules.game import GameResult, GameRules, GameState, MatchContext, new_game


@dataclass(frozen=True, slots=True)
class Match:
    rules: GameRules
    length: int = 0  # N points; 0 = money session (never ends)
    results: tuple[GameResult, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.length, bool) or not isinstance(self.length, int) or self.length < 0:
            raise GameStateError(
                "bad_match_length", "a match length is 0 (money) or more points", length=self.length
            )
        if self.length and self.rules.money_options:
            raise GameStateError(
                "money_option_in_match",
                "beaver, Jacoby and automatic doubles do not apply in a match",
            )

    @property
    def money(self) -> bool:
        return self.length == 0

    @property
    def score(self) -> tuple[int, int]:
        return _score_after(self.results)

    @property
    def games_played(self) -> int:
        return len(self.results)

    @property
    def winner(self) -> int | None:
        if self.money:
            return None
        for side in (0, 1):
            if self.score[side] >= self.length:
                return side
        return None

    @property
    def finished(self) -> bool:
        return self.winner is not None

    @property
    def final_score(self) -> tuple[int, int]:
        """The score with the winner's total capped at N (the excess does not carry)."""
        white, black = self.score
        if self.money:
            return white, black
        return min(white, self.length), min(black, self.length)

    @property
    def crawford_game(self) -> int | None:
        """The number (1-based) of the Crawford game, once the score has made one."""
        if self.money or not self.rules.cube_enabled:
            return None
        for number in range(1, len(self.results) + 2):
            before = _score_after(self.results[: number - 1])
            if self.length - 1 in before and max(before) < self.length:
                return number
        return None

    @property
    def next_game_number(self) -> int:
        return len(self.results) + 1

    @property
    def next_game_crawford(self) -> bool:
        return self.crawford_game == self.next_game_number

    @property
    def next_game_post_crawford(self) -> bool:
        crawford = self.crawford_game
        return crawford is not None and crawford < self.next_game_number

    def context(self) -> MatchContext | None:
        """What a game of this match knows about it (None in a money session)."""
        if self.money:
            return None
        return MatchContext(self.length, self.score)

    def next_game_rules(self) -> GameRules:
        return self.rules

    def new_game(self, *, position: Position | None = None) -> GameState:
        if self.finished:
            raise _match_over(self)
        return new_game(
            self.rules,
            crawford=self.next_game_crawford,
            match_context=self.context(),
            position=position,
        )

    def record(self, result: GameResult) -> Match:
        """The match after one more game."""
        if self.finished:
            raise _match_over(self)
        if self.next_game_crawford and result.cube != 1:
            raise GameStateError(
                "cube_in_crawford_game",
                f"game {self.next_game_number} is the Crawford game: its cube cannot be {result.cube}",
                game=self.next_game_number,
                cube=result.cube,
            )
        if result.points < 1 or result.winner not in (0, 1):
            raise GameStateError(
                "bad_result", "a game result needs a winner and at least one point"
            )
        return replace(self, results=(*self.results, result))


def _score_after(results: tuple[GameResult, ...]) -> tuple[int, int]:
    score = [0, 0]
    for result in results:
        score[result.winner] += result.points
    return score[0], score[1]


def _match_over(match: Match) -> GameStateError:
    winner = match.winner
    loser = other(winner) if winner is not None else None
    return GameStateError(
        "match_over",
        f"the match is over: {match.score[0]}-{match.score[1]} to {match.length}",
        winner=winner,
        loser=loser,
    )
