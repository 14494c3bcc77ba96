"""Replaying a match record on the engine: ``MatchBuilder`` checks every
action of every game and builds the ``MatchRecord`` (``engine.records.record``)
that the file formats read into (``.mat``, ``.sgf``).

Lenient where the record is redundant, strict where it matters: every checker
play must be legal and every cube action allowed, and the first that is not
raises ``RecordError`` with its 1-based ``line``; so does a record that names
another match winner than its games give.  A written score, game value or
game winner that disagrees with the games as replayed, where it does not
change who won the match, is a ``RecordWarning`` (code and data) and the
engine's own values are kept.  Each action goes through
``engine.rules.actions.apply``.  The decisions where records are loose (a
written play's matching, a roll before resigning, the points of a win, a
capped win, the Crawford game) are those of ``engine.records.matfile``'s
module documentation, tested in tests/engine/test_matfile.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine import movegen
from engine.errors import EngineError
from engine.records.record import (
    BEAVER,
    DOUBLE,
    DROP,
    PLAY,
    RESIGN,
    ROLL,
    TAKE,
    WIN,
    MatchRecord,
    MatchSettings,
    RecordAction,
    RecordedGame,
    RecordError,
    RecordWarning,
)
from engine.rules import game as g
from engine.rules.actions import (
    AcceptResignation,
    Beaver,
    ChoosePlay,
    Double,
    Pass,
    Resign,
    Roll,
    SetOpening,
    Take,
    apply,
)
from engine.rules.board import Position, other
from engine.rules.dice import RecordedDice
from engine.rules.plays import Move, Play
from engine.rules.variants import Variant

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

    Decided from the legal plays (`movegen.plays_reaching` finds them
    without generating the others when it can): those with the same net
    movement of the mover's checkers, when every journey is a move of the
    dice landing only on open points; of these, the ones that hit every blot
    a written point lands on and every ``*`` mark, and of those the one with
    fewest hits (as ``movegen.find_play`` reads an unmarked chain).  Anything
    else goes to ``movegen.find_play``, which explains a refusal with the
    rule broken.
    """
    if not moves:
        if movegen.nothing_enters(variant, position, side, dice):
            return Play((), position)
        legal = movegen.legal_plays(variant, position, side, dice, first_turn=first_turn)
        if not legal[0].steps:
            return legal[0]
        return movegen.find_play(variant, position, side, dice, moves, first_turn=first_turn)
    # Most written plays use every die: the plays on their row are then found
    # without generating the others (the same plays; None when not decided so).
    same = movegen.plays_reaching(variant, position, side, dice, moves)
    if same is None:
        legal = movegen.legal_plays(variant, position, side, dice, first_turn=first_turn)
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
    if exact:
        return hits
    shared = _plain_share(moves, first, second)
    if shared is None:
        shared = _share(moves, 0, list(rolled))
    return hits if shared else None


def _plain_share(moves: Sequence[Move], first: int, second: int) -> bool | None:
    """`_share` for journeys without written intermediate points that end on
    the board (None otherwise): their landings are then on the board in any
    order of dice, so each needs dice that add up to its distance.  With two
    different dice, whose journeys are not one die each, that is one journey
    of both; with a doublet, distances of whole dice, four at most."""
    distances = []
    for move in moves:
        if move.via or not move.origin > move.dest > 0:
            return None
        distances.append(move.origin - move.dest)
    if first != second:
        return distances == [first + second]
    return all(d % first == 0 for d in distances) and sum(distances) <= 4 * first


def _share(moves: Sequence[Move], i: int, left: list[int]) -> bool:
    """True when the journeys from the ``i``-th on can each be carried by a
    dice route, together using no more than the dice ``left``."""
    if i == len(moves):
        return True
    for route in movegen.dice_routes(moves[i], left):
        rest = list(left)
        for die in route:
            rest.remove(die)
        if _share(moves, i + 1, rest):
            return True
    return False


# --- Replaying a match ---------------------------------------------------------


@dataclass
class _Game:
    number: int
    line: int
    score_before: tuple[int, int]
    state: g.GameState
    actions: list[RecordAction] = field(default_factory=list)
    # A roll without a play (or "????") that is only right before a resignation.
    roll_before_resign: RecordError | None = None
    resigner: tuple[int, int | None, int] | None = None  # side, stated value, line
    stated: int | None = None
    capped: bool = False


class MatchBuilder:
    """Replays a match action by action on the engine.

    Importers call ``start_game``, then ``act`` for each action in order,
    then ``finish``; each raises ``RecordError`` at the first discrepancy.
    """

    def __init__(self, settings: MatchSettings, warnings: list[RecordWarning] | None = None):
        if settings.length < 0:
            raise ValueError("a match length is 0 (money) or more")
        self.settings = settings
        self.rules = settings.rules
        self.warnings = warnings if warnings is not None else []
        self.games: list[RecordedGame] = []
        self.score = [0, 0]
        self.crawford_played = False
        self.current: _Game | None = None
        self.resigned: int | None = None  # the side that resigned the whole match

    def warn(self, line: int, code: str, text: str, **data: Any) -> None:
        self.warnings.append(RecordWarning(line, code, f"line {line}: {text}", data))

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
        if length and (max(self.score) >= length or self.resigned is not None):
            raise RecordError(
                "match_over",
                f"the match is already over ({self.score[0]}-{self.score[1]} to {length})",
                line,
            )
        expected = len(self.games) + 1
        if number is not None and number != expected:
            raise RecordError(
                "game_number", f"game {number} where game {expected} was expected", line
            )
        if score is not None and tuple(score) != tuple(self.score):
            # The games are the record; a score line only repeats them.
            self.warn(
                score_line if score_line is not None else line,
                "score_mismatch",
                f"the score is written {score[0]}-{score[1]}, "
                f"the games so far give {self.score[0]}-{self.score[1]}",
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
            raise RecordError(
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

    def finish(self, line: int) -> MatchRecord:
        """The checked match; ``line`` is where the record ends (for an unfinished game)."""
        self._close(line)
        if not self.games:
            raise RecordError("no_games", "the record holds no game", line)
        return MatchRecord(
            self.settings, tuple(self.games), tuple(self.warnings), resigned=self.resigned
        )

    def _close(self, line: int) -> None:
        game = self.current
        if game is None:
            return
        if game.stated is None:
            raise RecordError(
                "game_not_finished",
                f"game {game.number} (from line {game.line}) ends without a result (Wins n)",
                line,
                game=game.number,
            )
        result = game.state.result
        assert result is not None  # a Wins line always finishes the game
        self.games.append(
            RecordedGame(
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

    def act(self, action: RecordAction) -> None:
        game = self.current
        if game is None:
            raise RecordError("outside_game", "an action before any game", action.line)
        if game.stated is not None:
            raise RecordError("after_result", f"game {game.number} is already over", action.line)
        if game.roll_before_resign is not None and action.kind not in (RESIGN, WIN):
            raise game.roll_before_resign
        if game.resigner is not None and action.kind != WIN:
            raise RecordError(
                "after_resignation",
                f"a resignation (line {game.resigner[2]}) is followed by its result, "
                "not by more play",
                action.line,
            )
        try:
            handler = _HANDLERS[action.kind]
        except KeyError:
            raise RecordError(
                "bad_action", f"unknown action {action.kind!r}", action.line
            ) from None
        try:
            handler(self, game, action)
        except RecordError:
            raise
        except EngineError as error:
            raise error_at(error, action.line) from error

    def _play(self, game: _Game, a: RecordAction) -> None:
        state = game.state
        if a.dice is None:  # "????": only as the roll before resigning
            self._on_turn(state, a)
            game.roll_before_resign = RecordError(
                "unknown_roll", "a roll with unknown dice is only allowed before resigning", a.line
            )
            return
        if state.phase is g.Phase.OPENING:
            state = apply(state, SetOpening(a.side, a.dice))
        else:
            self._on_turn(state, a)
            if state.phase is not g.Phase.ROLL:
                raise RecordError("wrong_phase", f"{self._name(a.side)} cannot roll now", a.line)
            state = apply(state, Roll(RecordedDice([a.dice])))
        if a.kind == ROLL:
            game.state = state
            game.roll_before_resign = RecordError(
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
            game.roll_before_resign = error_at(error, a.line)
            game.actions.append(RecordAction(a.line, side, ROLL, a.dice))
            return
        # The legal plays were generated once; a checked ChoosePlay would
        # generate them again, so the found play (one of them) is applied directly.
        game.state = apply(state, ChoosePlay(found, from_legal_plays=True))
        game.actions.append(RecordAction(a.line, side, PLAY, a.dice, a.moves, play=found))

    def find_play(
        self, state: g.GameState, side: int, dice: tuple[int, int], moves: Sequence[Move]
    ) -> Play:
        """The legal play written as ``moves`` (a hook: benchmarks swap the generator)."""
        return written_play(
            state.variant, state.position, side, dice, moves, first_turn=state.first_turn[side]
        )

    def _double(self, game: _Game, a: RecordAction) -> None:
        self._on_turn(game.state, a)
        game.state = apply(game.state, Double())
        self._cube_action(game, a)

    def _answer(self, game: _Game, a: RecordAction) -> None:
        self._on_turn(game.state, a)
        if a.kind == TAKE:
            game.state = apply(game.state, Take())
            game.actions.append(RecordAction(a.line, a.side, TAKE, value=game.state.cube))
        elif a.kind == DROP:
            game.state = apply(game.state, Pass())
            game.actions.append(RecordAction(a.line, a.side, DROP))
        else:
            game.state = apply(game.state, Beaver())
            self._cube_action(game, a)

    @staticmethod
    def _cube_action(game: _Game, a: RecordAction) -> None:
        """Record a double or beaver, checking the cube value written with it."""
        offer = game.state.offer
        offered = offer.value if offer is not None else 0
        if a.value is not None and a.value != offered:
            raise RecordError(
                "cube_value",
                f"the cube goes to {offered}, not {a.value}",
                a.line,
                written=a.value,
                expected=offered,
            )
        game.actions.append(RecordAction(a.line, a.side, a.kind, value=offered))

    def _resign(self, game: _Game, a: RecordAction) -> None:
        if game.resigner is not None:
            raise RecordError("already_resigned", "a second resignation", a.line)
        game.resigner = (a.side, a.value, a.line)
        game.roll_before_resign = None

    def _win(self, game: _Game, a: RecordAction) -> None:
        """``Wins n``: the game's end.  Who won is the engine's (the bear-off, the
        dropped double) or the resignation's (the opponent of the side that wrote
        ``Losses``); the value is the engine's, or for a resignation the level that
        ``n`` means.  A written value or winner that disagrees is a warning; a
        ``Wins ... and the match`` that names another match winner is refused."""
        state = game.state
        if a.value is None:
            raise RecordError("bad_action", "Wins needs the points won", a.line)
        stated = a.value
        length = self.settings.length
        capped = False
        if state.finished:
            result = state.result
            assert result is not None
            winner = result.winner
            if a.side != winner:
                if a.match_won:  # the match winner is what must not be in doubt
                    raise RecordError(
                        "wrong_winner",
                        f"{self._name(a.side)} claims the game and the match, "
                        f"but {self._name(winner)} won it ({_how(result)})",
                        a.line,
                        written=a.side + 1,
                        expected=winner + 1,
                    )
                self.warn(
                    a.line,
                    "wrong_winner",
                    f"{self._name(a.side)} is written as the winner, "
                    f"but {self._name(winner)} won the game ({_how(result)})",
                    written=a.side + 1,
                    expected=winner + 1,
                )
            needed = length - self.score[winner] if length else 0
            if stated != result.points:
                # Galaxy caps the last game's value (at the points needed or at
                # the match length): below the value, at least what was needed.
                capped = bool(length) and needed <= stated < result.points
                if not capped:
                    self._wrong_points(a.line, stated, result.points, _how(result))
        else:
            if game.resigner is not None:
                resigner, value, line = game.resigner
                winner = other(resigner)
                if a.side != winner:
                    # Galaxy writes the Wins of a match resigned in any column: the
                    # side that wrote Losses is the certain part.
                    self.warn(
                        a.line,
                        "wins_column",
                        f"Wins is written for {self._name(a.side)}, who resigned "
                        f"(line {line}); {self._name(winner)} wins",
                        resigner=resigner + 1,
                        resign_line=line,
                    )
                if value is not None and value != stated:
                    self.warn(
                        a.line,
                        "resign_points",
                        f"Wins {stated}, but the resignation on line {line} gives {value}",
                        written=stated,
                        expected=value,
                    )
            else:
                winner = a.side
            if state.phase is g.Phase.TAKE:
                raise RecordError(
                    "double_unanswered", "the game ends while a double awaits its answer", a.line
                )
            needed = length - self.score[winner] if length else 0
            level, capped = self._level(state, stated, needed, a.line, a.match_won)
            state = apply(apply(state, Resign(level, side=other(winner))), AcceptResignation())
            game.state = state
        result = game.state.result
        assert result is not None
        if a.match_won and not (length and self.score[winner] + result.points >= length):
            if game.resigner is None or result.end != g.END_RESIGN:
                raise RecordError(
                    "not_match_won",
                    "the game is said to win the match, but the match goes on",
                    a.line,
                )
            # A player who leaves or resigns the whole match (Galaxy): the match
            # goes to the opponent, the game keeps the resignation's points.
            self.resigned = other(winner)
            self.warn(
                a.line,
                "match_resigned",
                f"{self._name(other(winner))} resigned the match",
                resigner=other(winner) + 1,
                game=game.number,
            )
        game.roll_before_resign = None
        game.stated = stated
        game.capped = capped

    def _wrong_points(self, line: int, stated: int, points: int, how: str) -> None:
        self.warn(
            line,
            "wrong_points",
            f"Wins {stated}, but the game is worth {points} ({how})",
            written=stated,
            expected=points,
        )

    def _level(
        self, state: g.GameState, stated: int, needed: int, line: int, match_won: bool
    ) -> tuple[str, bool]:
        """The resignation level that ``Wins stated`` means, and whether it was capped.

        A value no level gives is a warning, and the level is then the lowest
        that reaches the points needed when the Wins says it wins the match (the
        highest where none does: the match was resigned), otherwise the highest
        whose points do not exceed ``stated`` (a single game where none)."""
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
        multipliers = sorted(levels)
        reaching = [m for m in multipliers if cube * m >= needed]
        if self.settings.length and stated == needed and reaching:
            return levels[reaching[0]], True
        if self.settings.length and match_won:
            chosen = reaching[0] if reaching else multipliers[-1]
        else:
            below = [m for m in multipliers if cube * m <= stated]
            chosen = below[-1] if below else multipliers[0]
        self.warn(
            line,
            "wrong_points",
            f"a resignation with the cube at {cube} cannot win {stated} "
            f"(it wins {', '.join(str(cube * m) for m in multipliers)}); "
            f"read as {levels[chosen]}, {cube * chosen}",
            written=stated,
            expected=cube * chosen,
        )
        return levels[chosen], False

    def _on_turn(self, state: g.GameState, a: RecordAction) -> None:
        if state.phase is g.Phase.OPENING:
            raise RecordError(
                "opening", "a game starts with the first player's opening roll", a.line
            )
        if state.to_act != a.side:
            raise RecordError(
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


def error_at(error: EngineError, line: int) -> RecordError:
    """``error`` (its code and data) as a record error at ``line``."""
    data = {k: v for k, v in error.data.items() if k != "line"}
    return RecordError(error.code, error.reason, line, **data)


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
