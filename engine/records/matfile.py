"""Match records in the ``.mat`` text format (Jellyfish, GNU Backgammon, XG,
Backgammon Galaxy, Backgammon Studio, DailyGammon): import, check, export.

The format is described in ``shared/formats/MAT.md``.  Import reads the text
line by line and replays every game on the engine (``engine.rules.game``): every
checker play must be legal, every cube action allowed, and every stated
score and ``Wins n`` must agree with the games as replayed.  The first
discrepancy raises ``MatError`` with its 1-based ``line``; tolerated oddities
(``Illegal play (...)`` junk, names that change) become ``MatWarning``s.
The same replay (``MatchBuilder``) checks GNU Backgammon ``.sgf`` records
(``engine.records.sgf``).

Player 1 (the left column, or ``PW`` in SGF) is engine side 0 (white),
player 2 side 1 (black); plays are in the mover's own numbering.

Decisions where the format is loose (documented, tested in
tests/engine/test_matfile.py):

- A turn line is split where whitespace is followed by dice (``62:``) or a
  keyword; the first action is the left player's when it starts before
  column 20, otherwise the left column is blank.  Turn numbers must run
  1, 2, 3... within a game, so a dropped turn line is reported at the line
  after it.
- A checker play is matched as MAT.md's last paragraph says (``written_play``):
  the legal play with the same net movement of the mover's checkers; every
  written journey must be a move of the dice (Galaxy's each-die-separately
  tokens and chains both are) landing on open points; blots it lands on and
  ``*`` marks must be hit, and otherwise the fewest hits.  The legal plays
  are generated once per turn; refusals are explained by
  ``engine.movegen.find_play`` (the rule broken, as its error code).
- A roll with no move (or ``????``) right before a resignation is a roll
  before resigning; elsewhere a roll with no move must have no legal play.
- Every game ends with a ``Wins n`` line.  After a bear-off or a dropped
  double ``n`` must be the points the engine scores; otherwise the game
  ended by resignation of the other player (whether or not a ``Losses``,
  ``Resigns``, ``Forfeits`` or ``Lost on time`` is written) and ``n / cube``
  gives its level (1 single, 2 mars, 3 koks).
- Galaxy caps ``Wins n`` at the points the winner still needs in a match's
  last game (not always: in the corpus only marses are capped).  Any record
  is accepted where the winner's ``n`` equals exactly what it needed and is
  less than the game's value (``MatGame.capped``); for a resignation the
  level is then the lowest that reaches ``n``, as GNU Backgammon reads it.
- Galaxy's "16 point match" money sessions are read as 16-point matches, as
  GNU Backgammon reads them (a mars would score 2 x cube; none of the three
  in the corpus ends in one, so the "mars scores 1" rule cannot be seen).
- The Crawford game is the first game in which a player needs exactly one
  point, unless the ``Crawford`` header is ``Off``; doubling in it is an
  error.  ``Jacoby`` and ``Beaver`` headers apply to money sessions only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from engine import movegen
from engine.errors import MAX_RECORD_NUMBER, EngineError, bounded_int
from engine.records.notation import format_play, parse_moves
from engine.rules import game as g
from engine.rules.board import Position, other
from engine.rules.dice import RecordedDice
from engine.rules.plays import Move, Play
from engine.rules.variants import HYPERGAMMON, NACKGAMMON, SHORT, Variant

__all__ = [
    "BEAVER",
    "DOUBLE",
    "DROP",
    "PLAY",
    "RESIGN",
    "ROLL",
    "TAKE",
    "WIN",
    "MatAction",
    "MatError",
    "MatGame",
    "MatMatch",
    "MatWarning",
    "MatchBuilder",
    "MatchSettings",
    "export_mat",
    "parse_mat",
    "replay_mat",
    "variant_of",
]

# Action kinds, as written and as kept in a checked record.
PLAY: Final = "play"  # dice and a checker play (possibly none)
ROLL: Final = "roll"  # a roll before resigning (dice None: "????")
DOUBLE: Final = "double"
TAKE: Final = "take"
DROP: Final = "drop"
BEAVER: Final = "beaver"
RESIGN: Final = "resign"  # Losses / Resigns / Forfeits / Lost on time
WIN: Final = "win"

_RIGHT_COLUMN: Final = 20  # an action starting at or after this column is the right player's
_LEFT: Final = 5  # GNU Backgammon's columns
_RIGHT: Final = 33


class MatError(EngineError):
    """A match record that cannot be read or does not add up, at ``line`` (1-based)."""

    def __init__(self, code: str, reason: str, line: int, **data: Any) -> None:
        data.pop("line", None)
        super().__init__(code, f"line {line}: {reason}", line=line, **data)
        self.line = line


@dataclass(frozen=True, slots=True)
class MatWarning:
    line: int
    code: str
    text: str


@dataclass(frozen=True, slots=True)
class MatAction:
    """One action of a game.  As written it carries ``moves``; once checked,
    ``play`` is the engine's play (its position is the one after the turn).
    ``value`` is the new cube for a double or beaver and the stated points
    of ``Wins``/``Losses``."""

    line: int
    side: int
    kind: str
    dice: tuple[int, int] | None = None
    moves: tuple[Move, ...] = ()
    value: int | None = None
    match_won: bool = False  # "Wins n points and the match"
    play: Play | None = None


@dataclass(frozen=True, slots=True)
class MatGame:
    number: int
    line: int
    score_before: tuple[int, int]
    crawford: bool
    actions: tuple[MatAction, ...]  # plays, rolls before resigning, cube actions
    result: g.GameResult
    stated_points: int  # the file's "Wins n"
    capped: bool  # n was the points the winner needed, below the game's value
    final_position: Position

    @property
    def end(self) -> str:
        return {g.END_PASS: "drop"}.get(self.result.end, self.result.end)

    @property
    def result_name(self) -> str:
        return "single" if self.result.end == g.END_PASS else self.result.result_name


@dataclass(frozen=True, slots=True)
class MatchSettings:
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
class MatMatch:
    settings: MatchSettings
    games: tuple[MatGame, ...]
    warnings: tuple[MatWarning, ...] = ()

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
        for side, points in enumerate(self.score):
            if points >= self.length:
                return side
        return None

    @property
    def final_score(self) -> tuple[int, int]:
        """The score with the winner capped at the match length."""
        if not self.length:
            return self.score
        first, second = self.score
        return min(first, self.length), min(second, self.length)

    def fingerprint(self) -> tuple[object, ...]:
        """What "the same match" means across formats and round trips: length,
        players, variant, Crawford rule, and per game its number, score,
        Crawford flag, actions (side, kind, dice, position after a play, cube
        value) and result.  Line numbers, headers and stated points are left out."""
        return (
            self.length,
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
            "final_score": list(self.final_score),
            "warnings": [{"line": w.line, "code": w.code, "text": w.text} for w in self.warnings],
        }


def variant_of(name: str) -> Variant | None:
    """The engine variant for a ``Variation`` header or SGF rule name."""
    key = name.strip().casefold()
    if key in ("backgammon", "standard", ""):
        return SHORT
    if key == "nackgammon":
        return NACKGAMMON
    if key in ("hypergammon", "hypergammon3"):
        return HYPERGAMMON
    return None


# --- Matching a written play ------------------------------------------------------


def written_play(
    variant: Variant,
    position: Position,
    side: int,
    dice: Sequence[int],
    moves: Sequence[Move],
    *,
    first_turn: bool = False,
) -> Play:
    """The legal play that ``moves`` (journeys as written) describe (MAT.md's rule).

    Decided from one generation of the legal plays: those with the same net
    movement of the mover's checkers, when every journey is a move of the
    dice landing only on open points; of these, the ones that hit every blot
    a written point lands on and every ``*`` mark, and of those the one with
    fewest hits (as ``movegen.find_play`` reads an unmarked chain).  Anything
    else goes to ``movegen.find_play``, which explains a refusal with the
    rule broken.
    """
    legal = movegen.legal_plays(variant, position, side, dice, first_turn=first_turn)
    if not moves:
        if not legal[0].steps:
            return legal[0]
        return movegen.find_play(variant, position, side, dice, moves, first_turn=first_turn)
    row = list(position.sides[side])
    for move in moves:
        row[move.origin] -= 1
        row[move.dest] += 1
    target = tuple(row)
    same = [p for p in legal if p.position.sides[side] == target]
    if same:
        hits = _written_hits(variant, position, side, dice, moves)
        if hits is not None:
            if len(same) == 1:
                if not hits or hits <= {s.dest for s in same[0].steps if s.hit}:
                    return same[0]
            else:
                best = sorted(
                    (len(hit), i)
                    for i, hit in enumerate({s.dest for s in p.steps if s.hit} for p in same)
                    if hits <= hit
                )
                if len(best) == 1 or (len(best) > 1 and best[0][0] < best[1][0]):
                    return same[best[0][1]]
    return movegen.find_play(variant, position, side, dice, moves, first_turn=first_turn)


def _written_hits(
    variant: Variant, position: Position, side: int, dice: Sequence[int], moves: Sequence[Move]
) -> set[int] | None:
    """The points the written play must hit (blots it names a landing on, and
    ``*`` marks), or None unless the journeys share out the dice, each die a
    step that lands on the board (or bears off, last), through the written
    points, none of them closed."""
    opponent = position.sides[1 - side]
    cross = variant.geometry.cross[side]
    closes = variant.closes_at
    hitting = variant.hitting
    first, second = dice
    rolled = (first,) * 4 if first == second else (first, second)
    left = list(rolled)
    exact = True  # each journey one die, so far
    hits: set[int] = set()
    for move in moves:
        if move.hits:
            hits.update(move.hits)
        for q in move.via:
            count = opponent[cross[q]]
            if count >= closes:
                return None
            if count == 1 and hitting:
                hits.add(q)
        q = move.dest
        if q:
            count = opponent[cross[q]]
            if count >= closes:
                return None
            if count == 1 and hitting:
                hits.add(q)
        if exact:
            distance = move.origin - q
            if move.via or distance not in left:
                exact = False
            else:
                left.remove(distance)
    if exact or _share(moves, 0, list(rolled)):
        return hits
    return None


def _share(moves: Sequence[Move], i: int, left: list[int]) -> bool:
    if i == len(moves):
        return True
    move = moves[i]
    for rest in _routes(move.origin, move.dest, move.via, left):
        if _share(moves, i + 1, rest):
            return True
    return False


def _routes(at: int, dest: int, via: tuple[int, ...], left: list[int]) -> list[list[int]]:
    """The dice left over by each way of taking one checker from ``at`` to
    ``dest`` through the points ``via`` (in order) with dice from ``left``."""
    out: list[list[int]] = []
    for k, die in enumerate(left):
        if die in left[:k]:
            continue
        to = at - die
        if via:
            if to == via[0]:
                out += _routes(to, dest, via[1:], left[:k] + left[k + 1 :])
            elif to > via[0]:
                out += _routes(to, dest, via, left[:k] + left[k + 1 :])
        elif to == dest or (dest == 0 and to < 0):
            out.append(left[:k] + left[k + 1 :])
        elif to > dest:
            out += _routes(to, dest, via, left[:k] + left[k + 1 :])
    return out


# --- Replaying a match ---------------------------------------------------------


@dataclass
class _Game:
    number: int
    line: int
    score_before: tuple[int, int]
    state: g.GameState
    actions: list[MatAction] = field(default_factory=list)
    # A roll without a play (or "????") that is only right before a resignation.
    roll_before_resign: MatError | None = None
    resigner: tuple[int, int | None, int] | None = None  # side, stated value, line
    stated: int | None = None
    capped: bool = False


class MatchBuilder:
    """Replays a match action by action on the engine.

    Importers call ``start_game``, then ``act`` for each action in order,
    then ``finish``; each raises ``MatError`` at the first discrepancy.
    """

    def __init__(self, settings: MatchSettings, warnings: list[MatWarning] | None = None):
        if settings.length < 0:
            raise ValueError("a match length is 0 (money) or more")
        self.settings = settings
        self.rules = settings.rules
        self.warnings = warnings if warnings is not None else []
        self.games: list[MatGame] = []
        self.score = [0, 0]
        self.crawford_played = False
        self.current: _Game | None = None

    # -- games

    def start_game(
        self,
        line: int,
        *,
        number: int | None = None,
        score: tuple[int, int] | None = None,
        score_line: int | None = None,
        crawford: bool | None = None,
    ) -> None:
        """A new game at ``line``; ``number``, ``score`` (before the game, as
        written at ``score_line``) and ``crawford`` are checked when given."""
        self._close(line)
        length = self.settings.length
        if length and max(self.score) >= length:
            raise MatError(
                "match_over",
                f"the match is already over ({self.score[0]}-{self.score[1]} to {length})",
                line,
            )
        expected = len(self.games) + 1
        if number is not None and number != expected:
            raise MatError("game_number", f"game {number} where game {expected} was expected", line)
        if score is not None and tuple(score) != tuple(self.score):
            raise MatError(
                "score_mismatch",
                f"the score is written {score[0]}-{score[1]}, "
                f"the games so far give {self.score[0]}-{self.score[1]}",
                score_line if score_line is not None else line,
                written=list(score),
                expected=list(self.score),
            )
        is_crawford = (
            self.settings.crawford_rule
            and length > 0
            and not self.crawford_played
            and length - 1 in self.score
        )
        if crawford is not None and crawford != is_crawford:
            raise MatError(
                "crawford_mismatch",
                f"game {expected} is {'' if crawford else 'not '}marked as the Crawford game, "
                f"but the score {self.score[0]}-{self.score[1]} makes it "
                f"{'' if is_crawford else 'not '}the Crawford game",
                line,
            )
        self.crawford_played = self.crawford_played or is_crawford
        context = g.MatchContext(length, (self.score[0], self.score[1])) if length else None
        state = g.new_game(self.rules, crawford=is_crawford, match_context=context)
        self.current = _Game(expected, line, (self.score[0], self.score[1]), state)

    def finish(self, line: int) -> MatMatch:
        """The checked match; ``line`` is where the record ends (for an unfinished game)."""
        self._close(line)
        if not self.games:
            raise MatError("no_games", "the record holds no game", line)
        return MatMatch(self.settings, tuple(self.games), tuple(self.warnings))

    def _close(self, line: int) -> None:
        game = self.current
        if game is None:
            return
        if game.stated is None:
            raise MatError(
                "game_not_finished",
                f"game {game.number} (from line {game.line}) ends without a result (Wins n)",
                line,
                game=game.number,
            )
        result = game.state.result
        assert result is not None  # a Wins line always finishes the game
        self.games.append(
            MatGame(
                number=game.number,
                line=game.line,
                score_before=game.score_before,
                crawford=game.state.crawford,
                actions=tuple(game.actions),
                result=result,
                stated_points=game.stated,
                capped=game.capped,
                final_position=game.state.position,
            )
        )
        self.score[result.winner] += result.points
        self.current = None

    # -- actions

    def act(self, action: MatAction) -> None:
        game = self.current
        if game is None:
            raise MatError("outside_game", "an action before any game", action.line)
        if game.stated is not None:
            raise MatError("after_result", f"game {game.number} is already over", action.line)
        if game.roll_before_resign is not None and action.kind not in (RESIGN, WIN):
            raise game.roll_before_resign
        if game.resigner is not None and action.kind != WIN:
            raise MatError(
                "after_resignation",
                f"a resignation (line {game.resigner[2]}) is followed by its result, "
                "not by more play",
                action.line,
            )
        try:
            handler = _HANDLERS[action.kind]
        except KeyError:
            raise MatError("bad_action", f"unknown action {action.kind!r}", action.line) from None
        try:
            handler(self, game, action)
        except MatError:
            raise
        except EngineError as error:
            raise _at(error, action.line) from error

    def _play(self, game: _Game, a: MatAction) -> None:
        state = game.state
        if a.dice is None:  # "????": only as the roll before resigning
            self._on_turn(state, a)
            game.roll_before_resign = MatError(
                "unknown_roll", "a roll with unknown dice is only allowed before resigning", a.line
            )
            return
        if state.phase is g.Phase.OPENING:
            state = g.set_opening(state, a.side, a.dice)
        else:
            self._on_turn(state, a)
            if state.phase is not g.Phase.ROLL:
                raise MatError("wrong_phase", f"{self._name(a.side)} cannot roll now", a.line)
            state = g.roll(state, RecordedDice([a.dice]))
        if a.kind == ROLL:
            game.state = state
            game.roll_before_resign = MatError(
                "roll_not_played", "a roll before resigning must be followed by the result", a.line
            )
            game.actions.append(replace(a, moves=()))
            return
        side = a.side
        try:
            found = self.find_play(state, side, a.dice, a.moves)
        except EngineError as error:
            if a.moves or error.code != "must_play":
                raise
            # Perhaps the roll before resigning: decided by what follows.
            game.state = state
            game.roll_before_resign = _at(error, a.line)
            game.actions.append(MatAction(a.line, side, ROLL, a.dice))
            return
        # The legal plays were generated once; g.choose_play would generate
        # them again, so the found play (one of them) is applied directly.
        game.state = g.apply_legal_play(state, found)
        game.actions.append(MatAction(a.line, side, PLAY, a.dice, a.moves, play=found))

    def find_play(
        self, state: g.GameState, side: int, dice: tuple[int, int], moves: Sequence[Move]
    ) -> Play:
        """The legal play written as ``moves`` (a hook: benchmarks swap the generator)."""
        return written_play(
            state.variant, state.position, side, dice, moves, first_turn=state.first_turn[side]
        )

    def _double(self, game: _Game, a: MatAction) -> None:
        self._on_turn(game.state, a)
        game.state = g.double(game.state)
        self._cube_action(game, a)

    def _answer(self, game: _Game, a: MatAction) -> None:
        self._on_turn(game.state, a)
        if a.kind == TAKE:
            game.state = g.take(game.state)
            game.actions.append(MatAction(a.line, a.side, TAKE, value=game.state.cube))
        elif a.kind == DROP:
            game.state = g.pass_(game.state)
            game.actions.append(MatAction(a.line, a.side, DROP))
        else:
            game.state = g.beaver(game.state)
            self._cube_action(game, a)

    @staticmethod
    def _cube_action(game: _Game, a: MatAction) -> None:
        """Record a double or beaver, checking the cube value written with it."""
        offer = game.state.offer
        offered = offer.value if offer is not None else 0
        if a.value is not None and a.value != offered:
            raise MatError(
                "cube_value",
                f"the cube goes to {offered}, not {a.value}",
                a.line,
                written=a.value,
                expected=offered,
            )
        game.actions.append(MatAction(a.line, a.side, a.kind, value=offered))

    def _resign(self, game: _Game, a: MatAction) -> None:
        if game.resigner is not None:
            raise MatError("already_resigned", "a second resignation", a.line)
        game.resigner = (a.side, a.value, a.line)
        game.roll_before_resign = None

    def _win(self, game: _Game, a: MatAction) -> None:
        state = game.state
        if a.value is None:
            raise MatError("bad_action", "Wins needs the points won", a.line)
        winner, stated = a.side, a.value
        needed = self.settings.length - self.score[winner] if self.settings.length else 0
        capped = False
        if state.finished:
            result = state.result
            assert result is not None
            if result.winner != winner:
                raise MatError(
                    "wrong_winner",
                    f"{self._name(winner)} claims the game, "
                    f"but {self._name(result.winner)} won it ({_how(result)})",
                    a.line,
                )
            if stated != result.points:
                if not (self.settings.length and stated < result.points and stated == needed):
                    raise MatError(
                        "wrong_points",
                        f"Wins {stated}, but the game is worth {result.points} "
                        f"({_how(result)}, cube {result.cube})",
                        a.line,
                        written=stated,
                        expected=result.points,
                    )
                capped = True
        else:
            loser = other(winner)
            if game.resigner is not None:
                side, value, line = game.resigner
                if side != loser:
                    raise MatError(
                        "wrong_winner",
                        f"{self._name(side)} resigned (line {line}) but also wins",
                        a.line,
                    )
                if value is not None and value != stated:
                    raise MatError(
                        "wrong_points",
                        f"Wins {stated}, but the resignation on line {line} gives {value}",
                        a.line,
                    )
            if state.phase is g.Phase.TAKE:
                raise MatError(
                    "double_unanswered", "the game ends while a double awaits its answer", a.line
                )
            level, capped = self._level(state, stated, needed, a.line)
            state = g.accept_resignation(g.resign(state, level, side=loser))
            game.state = state
        result = game.state.result
        assert result is not None
        if a.match_won and not (
            self.settings.length and self.score[winner] + result.points >= self.settings.length
        ):
            raise MatError(
                "not_match_won", "the game is said to win the match, but the match goes on", a.line
            )
        game.roll_before_resign = None
        game.stated = stated
        game.capped = capped

    def _level(self, state: g.GameState, stated: int, needed: int, line: int) -> tuple[str, bool]:
        """The resignation level that ``Wins stated`` means, and whether it was capped."""
        preset = self.rules.preset
        levels: dict[int, str] = {}
        for name in preset.result_names():
            multiplier = preset.multiplier_of(name)
            if multiplier is not None:
                levels.setdefault(multiplier, name)
        jacoby = self.rules.jacoby and not state.in_match and not state.cube_turned
        cube = state.cube
        if stated % cube == 0 and stated // cube in levels:
            return levels[stated // cube], False
        if jacoby and stated == cube:
            return levels[1], False
        if self.settings.length and stated == needed:
            for multiplier in sorted(levels):
                if cube * multiplier >= stated:
                    return levels[multiplier], True
        raise MatError(
            "wrong_points",
            f"a resignation with the cube at {cube} cannot win {stated} "
            f"(it wins {', '.join(str(cube * m) for m in sorted(levels))})",
            line,
            written=stated,
        )

    def _on_turn(self, state: g.GameState, a: MatAction) -> None:
        if state.phase is g.Phase.OPENING:
            raise MatError("opening", "a game starts with the first player's opening roll", a.line)
        if state.to_act != a.side:
            raise MatError(
                "out_of_turn",
                f"{self._name(a.side)} acts out of turn: {self._name(other(a.side))} "
                f"is to {_phase_verb(state)}",
                a.line,
            )

    def _name(self, side: int) -> str:
        name = self.settings.players[side]
        return f"player {side + 1}" + (f" ({name})" if name else "")


def _phase_verb(state: g.GameState) -> str:
    return {
        g.Phase.ROLL: "roll or double",
        g.Phase.TAKE: "answer the double",
        g.Phase.PLAY: "play",
    }.get(state.phase, "act")


def _how(result: g.GameResult) -> str:
    if result.end == g.END_PASS:
        return "a dropped double"
    return f"{result.result_name} by {'bear-off' if result.end == g.END_BEAROFF else 'resignation'}"


def _at(error: EngineError, line: int) -> MatError:
    data = {k: v for k, v in error.data.items() if k != "line"}
    return MatError(error.code, error.reason, line, **data)


_HANDLERS = {
    PLAY: MatchBuilder._play,
    ROLL: MatchBuilder._play,
    DOUBLE: MatchBuilder._double,
    TAKE: MatchBuilder._answer,
    DROP: MatchBuilder._answer,
    BEAVER: MatchBuilder._answer,
    RESIGN: MatchBuilder._resign,
    WIN: MatchBuilder._win,
}


# --- Reading .mat text -------------------------------------------------------------

_LENGTH = re.compile(
    r"\s*(?:(?P<n>\d+)\s+points?\s+match|match\s+of\s+(?P<m>\d+)\s+points?)\s*", re.IGNORECASE
)
_GAME = re.compile(r"\s*game\s+(?P<n>\d+)\s*", re.IGNORECASE)
# A score line's pieces, matched around its colons (see ``_score_line``).
_SCORE_TAIL = re.compile(r"\s*(\d+)")
_SCORE_MIDDLE = re.compile(r"\s*(\d+)\s+(?=\S)")
_TURN = re.compile(r"\s*(?P<k>\d+)\)")
# Where an action starts: dice or a keyword after whitespace (never a fixed column).
_START = re.compile(
    r"(?<!\S)(?:[1-6][1-6]\s*:|\?\?\?\?|(?:doubles|takes|drops|accepts|rejects|passes|beavers"
    r"|wins|losses|resigns|forfeits|lost\s+on\s+time|illegal\s+play)\b)",
    re.IGNORECASE,
)
_DICE = re.compile(r"(?P<a>[1-6])(?P<b>[1-6])\s*:\s*(?P<rest>.*)", re.DOTALL)
_CUBE = re.compile(r"(?P<word>doubles|beavers)(?:\s*=>\s*(?P<v>\d+))?\s*", re.IGNORECASE)
_WINS = re.compile(r"wins\s+(?P<v>\d+)\s+points?(?P<match>\s+and\s+the\s+match)?\s*", re.IGNORECASE)
_LOSSES = re.compile(
    r"(?:losses|resigns|forfeits|lost\s+on\s+time)(?:\s+(?P<v>\d+)\s+points?)?.*",
    re.IGNORECASE | re.DOTALL,
)
_ANSWERS = {
    "takes": TAKE,
    "accepts": TAKE,
    "drops": DROP,
    "passes": DROP,
    "rejects": DROP,
}
_ON = frozenset({"on", "yes", "true", "1"})
_OFF = frozenset({"off", "no", "false", "0"})


def _header(line: str) -> tuple[str, str] | None:
    """``; [Key "value"]`` as (key, value): the key has no ``"`` or ``]``, the
    value runs to the last ``"``, which only spaces may separate from the
    closing ``]``.  Done with str methods: the regex that said the same
    backtracked catastrophically on a ``; [`` followed by many spaces."""
    text = line.strip()
    if not text.startswith(";"):
        return None
    text = text[1:].lstrip()
    if not text.startswith("[") or not text.endswith("]"):
        return None
    inner = text[1:-1].rstrip()
    opening = inner.find('"')
    if opening < 0 or not inner.endswith('"') or opening == len(inner) - 1:
        return None
    key = inner[:opening]
    if "]" in key:
        return None
    return key.strip(), inner[opening + 1 : -1]


def _score_line(line: str) -> tuple[str, str, str, str] | None:
    """``name : score   name : score`` as (name 1, score 1, name 2, score 2).

    The second score follows the last colon; the first name ends at the
    first colon that a score and then a non-empty second name follow.  Each
    colon is tried with an anchored pattern that reads only the spaces and
    digits after it, so the whole line is read in linear time (the single
    regex it replaces took seconds on a 2 KB line)."""
    head, colon, tail = line.rpartition(":")
    if not colon:
        return None
    last = _SCORE_TAIL.fullmatch(tail.rstrip())
    if last is None:
        return None
    name_at = len(head) - len(head.lstrip())  # the first name starts here
    at = head.find(":")
    while at >= 0:
        middle = _SCORE_MIDDLE.match(head, at + 1) if name_at < at else None
        if middle is not None:
            # The lookahead saw a non-space: the second name is not empty.
            return head[:at].strip(), middle[1], head[middle.end() :].strip(), last[1]
        at = head.find(":", at + 1)
    return None


def _number(digits: str, field: str, line: int) -> int:
    """A number of the record (``field`` names it), refused past
    ``MAX_RECORD_NUMBER`` before any conversion (Python's int() fails on
    more than 4,300 digits)."""
    value = bounded_int(digits)
    if value is None:
        raise MatError(
            "number_too_large",
            f"the {field.replace('_', ' ')} {digits[:12]}... is larger than {MAX_RECORD_NUMBER}",
            line,
            field=field,
            maximum=MAX_RECORD_NUMBER,
        )
    return value


def _flag(headers: dict[str, tuple[str, int]], key: str, default: bool) -> bool:
    value = headers.get(key)
    if value is None:
        return default
    word = value[0].strip().casefold()
    if word in _ON:
        return True
    if word in _OFF:
        return False
    raise MatError("bad_header", f"{key} must be On or Off, not {value[0]!r}", value[1])


class _MatReader:
    def __init__(self, text: str, builder_class: type[MatchBuilder] = MatchBuilder) -> None:
        self.builder_class = builder_class
        if text.startswith("\ufeff"):
            text = text[1:]
        self.lines = text.splitlines()
        self.warnings: list[MatWarning] = []
        self.headers: list[tuple[str, str]] = []
        self.header_lines: dict[str, tuple[str, int]] = {}
        self.builder: MatchBuilder | None = None
        self.game_line: tuple[int, int] | None = None  # (line, number) awaiting its score line
        self.turn = 0  # last turn number in the current game
        self.names: tuple[str, str] | None = None

    def read(self) -> MatMatch:
        for number, raw in enumerate(self.lines, start=1):
            line = raw.rstrip()
            if line.strip():
                self._line(number, line)
        end = len(self.lines) or 1
        if self.builder is None:
            raise MatError("no_match_line", "no match length line (N point match)", end)
        if self.game_line is not None:
            raise MatError("no_score_line", "a game without its score line", end)
        return self.builder.finish(end)

    def _line(self, n: int, line: str) -> None:
        header = _header(line)
        if header is not None:
            if self.builder is not None:
                self.warnings.append(MatWarning(n, "late_header", line.strip()))
                return
            key, value = header
            self.headers.append((key, value))
            self.header_lines[key.casefold()] = (value, n)
            return
        if line.lstrip().startswith(";"):
            return  # a comment
        length = _LENGTH.fullmatch(line)
        if length is not None:
            if self.builder is not None:
                raise MatError("second_match", "a second match length line", n)
            self._start_match(n, _number(length["n"] or length["m"], "match_length", n))
            return
        if self.builder is None:
            if _GAME.fullmatch(line) or _TURN.match(line):
                raise MatError("no_match_line", "a game before the match length line", n)
            self.warnings.append(MatWarning(n, "ignored_text", line.strip()))
            return
        game = _GAME.fullmatch(line)
        if game is not None:
            if self.game_line is not None:
                raise MatError("no_score_line", "a game without its score line", n)
            self.game_line = (n, _number(game["n"], "game_number", n))
            self.turn = 0
            return
        if self.game_line is not None:
            score = None if _TURN.match(line) else _score_line(line)
            if score is None:
                raise MatError(
                    "no_score_line", "the score line (name : score   name : score) is missing", n
                )
            self._score(n, score)
            return
        turn = _TURN.match(line)
        current = self.builder.current
        if current is None or (current.stated is not None and turn is None):
            raise MatError("outside_game", "text outside a game (a Game n line missing?)", n)
        if turn is not None:
            k = _number(turn["k"], "turn_number", n)
            if k != self.turn + 1:
                raise MatError(
                    "turn_number",
                    f"turn {k} where turn {self.turn + 1} was expected (a line is missing?)",
                    n,
                )
            self.turn = k
            self._actions(n, line, turn.end())
            return
        if _START.match(line, len(line) - len(line.lstrip())):
            self._actions(n, line, 0)
            return
        raise MatError("unrecognised_line", f"unrecognised line {line.strip()!r}", n)

    def _start_match(self, n: int, length: int) -> None:
        h = self.header_lines
        variant = SHORT
        if "variation" in h:
            value, where = h["variation"]
            found = variant_of(value)
            if found is None:
                raise MatError(
                    "unsupported_variation", f"variation {value!r} is not supported", where
                )
            variant = found
        settings = MatchSettings(
            length=length,
            variant=variant,
            crawford_rule=_flag(h, "crawford", True) and length > 0,
            jacoby=_flag(h, "jacoby", False),
            beaver=_flag(h, "beaver", False),
            players=(h.get("player 1", ("", 0))[0], h.get("player 2", ("", 0))[0]),
            headers=tuple(self.headers),
        )
        self.builder = self.builder_class(settings, self.warnings)

    def _score(self, n: int, m: tuple[str, str, str, str]) -> None:
        assert self.builder is not None and self.game_line is not None
        names = (m[0], m[2])
        written_score = (_number(m[1], "score", n), _number(m[3], "score", n))
        builder = self.builder
        if self.names is None:
            self.names = names
            for side, name in enumerate(names):
                written = builder.settings.players[side]
                if written and written != name:
                    self.warnings.append(
                        MatWarning(
                            n, "player_name", f"player {side + 1} is {written!r} in the header"
                        )
                    )
            builder.settings = replace(builder.settings, players=names)
        elif names != self.names:
            self.warnings.append(
                MatWarning(n, "player_name", f"names {names} differ from game 1's {self.names}")
            )
        line, number = self.game_line
        self.game_line = None
        builder.start_game(line, number=number, score=written_score, score_line=n)

    def _actions(self, n: int, line: str, start: int) -> None:
        assert self.builder is not None
        rest = line[start:]
        starts = [m.start() for m in _START.finditer(rest)]
        lead = rest[: starts[0]] if starts else rest
        if lead.strip():
            raise MatError("bad_action", f"unrecognised action {lead.strip()!r}", n)
        if len(starts) > 2:
            raise MatError("too_many_actions", "more than two actions on one line", n)
        for i, at in enumerate(starts):
            text = rest[at : starts[i + 1] if i + 1 < len(starts) else len(rest)].strip()
            right = i == 1 or start + at >= _RIGHT_COLUMN
            if i == 0 and len(starts) == 2 and right:
                raise MatError("bad_columns", "two actions but the left column is blank", n)
            action = self._action(n, 1 if right else 0, text)
            if action is not None:
                self.builder.act(action)

    def _action(self, n: int, side: int, text: str) -> MatAction | None:
        dice = _DICE.fullmatch(text)
        if dice is not None:
            rest = dice["rest"].strip()
            moves: list[Move] = []
            if rest and rest.casefold() != "cannot move":
                try:
                    moves = parse_moves(rest)
                except EngineError as error:
                    raise _at(error, n) from error
            return MatAction(n, side, PLAY, (int(dice["a"]), int(dice["b"])), tuple(moves))
        word = text.split()[0].casefold()
        if text == "????":
            return MatAction(n, side, ROLL)
        cube = _CUBE.fullmatch(text)
        if cube is not None:
            value = _number(cube["v"], "cube_value", n) if cube["v"] else None
            kind = DOUBLE if cube["word"].casefold() == "doubles" else BEAVER
            return MatAction(n, side, kind, value=value)
        if word in _ANSWERS and len(text.split()) == 1:
            return MatAction(n, side, _ANSWERS[word])
        wins = _WINS.fullmatch(text)
        if wins is not None:
            return MatAction(
                n,
                side,
                WIN,
                value=_number(wins["v"], "points", n),
                match_won=bool(wins["match"]),
            )
        losses = _LOSSES.fullmatch(text)
        if losses is not None:
            value = _number(losses["v"], "points", n) if losses["v"] else None
            return MatAction(n, side, RESIGN, value=value)
        if word == "illegal":
            self.warnings.append(MatWarning(n, "illegal_play_note", text))
            return None
        raise MatError("bad_action", f"unrecognised action {text!r}", n)


def parse_mat(text: str, *, builder_class: type[MatchBuilder] = MatchBuilder) -> MatMatch:
    """Read and check a ``.mat`` record; raises ``MatError`` at the first discrepancy.

    ``builder_class`` replays the games (a subclass may check plays another
    way: the benchmark checks them with GNU Backgammon's generator)."""
    return _MatReader(text, builder_class).read()


def replay_mat(text: str) -> dict[str, Any]:
    """The checked match as JSON-ready data (see ``MatMatch.to_dict``)."""
    return parse_mat(text).to_dict()


# --- Writing .mat text -------------------------------------------------------------


def _points(n: int) -> str:
    return f"{n} point{'s' if n != 1 else ''}"


def _column(action: MatAction) -> str:
    if action.kind in (PLAY, ROLL):
        dice = f"{action.dice[0]}{action.dice[1]}:" if action.dice else "????"
        if action.kind == ROLL or action.play is None or not action.play.steps:
            return dice
        return f"{dice} {format_play(action.play)}"
    if action.kind == DOUBLE:
        return f" Doubles => {action.value}"
    if action.kind == BEAVER:
        return f" Beavers => {action.value}"
    return {TAKE: " Takes", DROP: " Drops"}[action.kind]


def export_mat(match: MatMatch) -> str:
    """The match in GNU Backgammon's ``.mat`` layout (columns 5 and 33)."""
    out: list[str] = [f'; [{key} "{value}"]' for key, value in match.settings.headers]
    if out:
        out.append("")
    out += [f" {match.length} point match", ""]
    names = match.players
    score = [0, 0]
    for game in match.games:
        out.append(f" Game {game.number}")
        left = f" {names[0]} : {score[0]}"
        out.append(f"{left:<31} {names[1]} : {score[1]}")
        rows: list[list[str]] = []
        for action in game.actions:
            if action.side == 0 or not rows or rows[-1][1]:
                rows.append(["", ""])
            rows[-1][action.side] = _column(action)
        result = game.result
        score[result.winner] += result.points
        won = match.length and score[result.winner] >= match.length
        wins = f" Wins {_points(result.points)}{' and the match' if won else ''}"
        # As GNU Backgammon: the right player's Wins goes in a free right cell
        # of the last turn line (its importer misreads it on a line of its own
        # after a left "Drops"); otherwise Wins has a line of its own.
        own_line = not (result.winner == 1 and rows and not rows[-1][1])
        if not own_line:
            rows[-1][1] = wins
        for k, (first, second) in enumerate(rows, start=1):
            head = f"{k:3d}) {first}"
            gap = max(_RIGHT - len(head), 2)
            out.append(f"{head}{' ' * gap}{second}".rstrip() if second else head.rstrip())
        if own_line:
            out.append(" " * (_LEFT if result.winner == 0 else _RIGHT) + wins)
        out.append("")
    return "\n".join(out) + "\n"
