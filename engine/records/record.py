"""The format-neutral match record: a match's settings, its games, and each
game's actions as checked by the rules, with the result the rules give.

Every match file format reads into this model and writes from it (``.mat``
in ``engine.records.matfile``, GNU Backgammon ``.sgf`` in
``engine.records.sgf``); ``engine.records.match_builder`` builds it by
replaying the actions on the engine.  Player 1 (the left column of ``.mat``,
``PW`` in SGF) is engine side 0 (white), player 2 side 1 (black); plays are
in the mover's own numbering.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from engine.errors import EngineError
from engine.rules import game as g
from engine.rules.board import Position
from engine.rules.plays import Move, Play
from engine.rules.variants import SHORT, Variant

# Action kinds, as written and as kept in a checked record.
PLAY: Final = "play"  # dice and a checker play (possibly none)
ROLL: Final = "roll"  # a roll before resigning (dice None: unknown, .mat "????")
DOUBLE: Final = "double"
TAKE: Final = "take"
DROP: Final = "drop"
BEAVER: Final = "beaver"
RESIGN: Final = "resign"  # .mat Losses / Resigns / Forfeits / Lost on time, SGF RE[..R]
WIN: Final = "win"  # .mat Wins n, SGF RE[W+n]


class RecordError(EngineError):
    """A match record that cannot be read or does not add up, at ``line`` (1-based)."""

    def __init__(self, code: str, reason: str, line: int, **data: Any) -> None:
        data.pop("line", None)
        super().__init__(code, f"line {line}: {reason}", line=line, **data)
        self.line = line


@dataclass(frozen=True, slots=True)
class RecordWarning:
    """Something the record writes that the engine reads otherwise, where it does
    not change who won the match: kept with the import, never a refusal.  ``code``
    and ``data`` make the user's sentence (base.engine_messages); ``text`` is plain
    English for the command line."""

    line: int
    code: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "code": self.code, "text": self.text, "data": dict(self.data)}


@dataclass(frozen=True, slots=True)
class RecordAction:
    """One action of a game.  As written it carries ``moves``; once checked,
    ``play`` is the engine's play (its position is the one after the turn).
    ``value`` is the new cube for a double or beaver and the stated points
    of a win or resignation."""

    line: int
    side: int
    kind: str
    dice: tuple[int, int] | None = None
    moves: tuple[Move, ...] = ()
    value: int | None = None
    match_won: bool = False  # the win is said to win the match (.mat "and the match")
    play: Play | None = None


@dataclass(frozen=True, slots=True)
class RecordedGame:
    number: int
    line: int
    score_before: tuple[int, int]
    crawford: bool
    actions: tuple[RecordAction, ...]  # plays, rolls before resigning, cube actions
    result: g.GameResult
    stated_points: int  # the points the record says were won (.mat "Wins n")
    capped: bool  # they were the points the winner needed, below the game's value
    final_position: Position

    @property
    def end(self) -> str:
        return {g.END_PASS: "drop"}.get(self.result.end, self.result.end)

    @property
    def result_name(self) -> str:
        return "single" if self.result.end == g.END_PASS else self.result.result_name


@dataclass(frozen=True, slots=True)
class MatchSettings:
    """A match's rules and names; ``headers`` as a file wrote them, kept for writing."""

    length: int
    variant: Variant = SHORT
    crawford_rule: bool = True
    jacoby: bool = False
    beaver: bool = False
    players: tuple[str, str] = ("", "")
    headers: tuple[tuple[str, str], ...] = ()

    @property
    def rules(self) -> g.GameRules:
        money = self.length == 0
        return g.GameRules(self.variant, jacoby=money and self.jacoby, beaver=money and self.beaver)


@dataclass(frozen=True, slots=True)
class MatchRecord:
    settings: MatchSettings
    games: tuple[RecordedGame, ...]
    warnings: tuple[RecordWarning, ...] = ()
    # The side that resigned the whole match (Galaxy's ``Losses n`` on a last game
    # whose points do not reach the match length): the other side won the match.
    resigned: int | None = None

    @property
    def length(self) -> int:
        return self.settings.length

    @property
    def players(self) -> tuple[str, str]:
        return self.settings.players

    @property
    def score(self) -> tuple[int, int]:
        score = [0, 0]
        for game in self.games:
            score[game.result.winner] += game.result.points
        return score[0], score[1]

    @property
    def winner(self) -> int | None:
        """Side 0 or 1 once a player reached the match length (None in money play)."""
        if not self.length:
            return None
        if self.resigned is not None:
            return 1 - self.resigned
        for side, points in enumerate(self.score):
            if points >= self.length:
                return side
        return None

    @property
    def final_score(self) -> tuple[int, int]:
        """The score with the winner capped at the match length (and given it,
        when the other side resigned the match)."""
        if not self.length:
            return self.score
        final = [min(points, self.length) for points in self.score]
        if self.resigned is not None:
            final[1 - self.resigned] = self.length
        return final[0], final[1]

    def fingerprint(self) -> tuple[object, ...]:
        """What "the same match" means across formats and round trips: length,
        players, variant, Crawford rule, and per game its number, score,
        Crawford flag, actions (side, kind, dice, position after a play, cube
        value) and result.  Line numbers, headers and stated points are left out."""
        return (
            self.length,
            self.resigned,
            self.players,
            self.settings.variant.name,
            self.settings.crawford_rule,
            tuple(
                (
                    game.number,
                    game.score_before,
                    game.crawford,
                    tuple(
                        (
                            a.side,
                            a.kind,
                            a.dice,
                            None if a.play is None else a.play.position,
                            a.value,
                        )
                        for a in game.actions
                    ),
                    game.result,
                )
                for game in self.games
            ),
        )

    def to_dict(self) -> dict[str, Any]:
        winner = self.winner
        return {
            "match_length": self.length,
            "players": list(self.players),
            "variant": self.settings.variant.name,
            "games": [
                {
                    "number": game.number,
                    "score_before": list(game.score_before),
                    "crawford": game.crawford,
                    "winner": game.result.winner + 1,
                    "result": game.result_name,
                    "cube": game.result.cube,
                    "points": game.result.points,
                    "stated_points": game.stated_points,
                    "end": game.end,
                }
                for game in self.games
            ],
            "winner": None if winner is None else winner + 1,
            "resigned": None if self.resigned is None else self.resigned + 1,
            "final_score": list(self.final_score),
            "warnings": [w.to_dict() for w in self.warnings],
        }
