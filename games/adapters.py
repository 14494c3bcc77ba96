"""The one adapter between stored games and the rules engine.

Stored turns are replayed through ``engine.rules.game`` to rebuild a game's state;
a new turn is checked by applying it to that state.  Player 1 is the engine's
side 0, player 2 side 1, in every variant.  Player 1 plays White unless the
variant's opening names the colours (Nauka i Zhizn: the higher thrower plays
White and starts), where `white_player` says who does in each game.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from base.engine_messages import message_for
from engine import movegen
from engine.errors import EngineError, GameStateError
from engine.records.gnubgid import encode_position_id
from engine.records.notation import format_moves, format_play, parse_moves
from engine.rules import actions as ea
from engine.rules import game as eg
from engine.rules import match as em
from engine.rules.dice import RecordedDice
from engine.rules.plays import ClassStep, Play, Step
from engine.rules.scoring import ScoringPreset, get_preset, preset_from_dict
from engine.rules.variants import Variant, get_variant
from engine.soldiers import bridge
from engine.soldiers.army import LETTERS as CLASS_LETTERS  # K G D E O P, by class number
from games import scorecheck
from games.models import Game, GameEnd, Match, Turn, TurnKind


def side_of(player_number: int) -> int:
    return player_number - 1


def player_of(side: int) -> int:
    return side + 1


def colours_by_opening(match: Match) -> bool:
    """Whether each game's opening names who plays White (Nauka i Zhizn)."""
    return eg.colours_by_opening(get_variant(match.discipline.variant))


def white_player(state: eg.GameState) -> int | None:
    """The player (1 or 2) who plays White in this game: player 1, unless the
    variant's opening names the colours (then the opening's winner, None
    until it is thrown).  Colours are names only: the sides' paths and rules
    are the same either way, so only what is shown depends on this."""
    seat = eg.white_seat(state)
    return None if seat is None else player_of(seat)


def preset_for(match: Match) -> ScoringPreset:
    discipline = match.discipline
    if discipline.custom_scoring is not None:
        return preset_from_dict(discipline.custom_scoring)
    return get_preset(discipline.scoring_preset or get_variant(discipline.variant).scoring)


def rules_for(match: Match) -> eg.GameRules:
    variant = get_variant(match.discipline.variant)
    return eg.GameRules(
        variant=variant,
        scoring=preset_for(match),
        cube=match.discipline.has_cube,  # the discipline's one answer
        options=match.game_options,  # Soldiers' army and placement
    )


def result_of(game: Game) -> eg.GameResult:
    assert game.winner is not None, "only finished games have a result"
    return eg.GameResult(
        winner=side_of(game.winner),
        result_name=game.result,
        multiplier=game.multiplier or 1,
        cube=game.cube,
        points=game.points or 0,
        end=game.end,
    )


def stored_clocks(match: Match) -> tuple[int, int]:
    """Both reserves (ms) as of the match's last live turn: each side's latest reading,
    the full reserve where there is none yet (an API caller may send one side only)."""
    live = Turn.objects.filter(game__match=match, undone_at__isnull=True).order_by(
        "-game__number", "-number"
    )
    reserve = match.clock_reserve_ms()
    first = live.filter(clock1_ms__isnull=False).values_list("clock1_ms", flat=True).first()
    second = live.filter(clock2_ms__isnull=False).values_list("clock2_ms", flat=True).first()
    return (reserve if first is None else first, reserve if second is None else second)


def engine_match(match: Match, finished_games: Iterable[Game]) -> em.Match:
    """The engine's view of the match so far: score, Crawford, winner.

    A game lost on time scores nothing by itself (the timeout awards the whole
    match, see games.services.record_timeout), so it is left out here.
    """
    record = em.Match(rules_for(match), length=match.length)
    for game in finished_games:
        if game.end == GameEnd.TIME:
            continue
        record = record.record(result_of(game))
    return record


@dataclass(frozen=True)
class TurnInput:
    kind: str
    dice: tuple[int, ...] = ()
    moves: str = ""
    level: str = ""
    # The engine's own play for these dice, found by a reader that generated the
    # legal plays of the very position this turn is played from (a match file's
    # record, replayed from the same start on the same variant): ``apply_turn``
    # applies it without generating them again.
    play: Play | None = None


def engine_action(turn: TurnInput, variant: Variant | None = None) -> ea.GameAction:
    """The engine action a stored turn records, its moves read as ``variant``
    writes them (class letters in Soldiers); GameStateError for an unknown kind."""
    kind = turn.kind
    if kind == TurnKind.OPENING:
        return ea.OpeningThrow(turn.dice)
    if kind == TurnKind.PLAY:
        return ea.RecordedTurn(turn.dice, tuple(parse_moves(turn.moves, variant)))
    if kind == TurnKind.RESIGN:
        return ea.Resign(turn.level or "single")
    action = _SIMPLE_ACTIONS.get(kind)
    if action is None:
        raise GameStateError("unknown_action", f"unknown action {kind!r}")
    return action


_SIMPLE_ACTIONS: dict[str, ea.GameAction] = {
    TurnKind.DOUBLE: ea.Double(),
    TurnKind.TAKE: ea.Take(),
    TurnKind.PASS: ea.Pass(),
    TurnKind.BEAVER: ea.Beaver(),
    TurnKind.ACCEPT: ea.AcceptResignation(),
    TurnKind.REJECT: ea.RejectResignation(),
    # The engine refuses it (with its reason) in variants without the bomb.
    TurnKind.EXPLODE: ea.Explode(),
}


def apply_turn(state: eg.GameState, turn: TurnInput) -> eg.GameState:
    """Apply one recorded action; raises EngineError (code + reason) when it is not allowed."""
    if turn.play is not None and turn.kind == TurnKind.PLAY:
        checked = _apply_found_play(state, turn.dice, turn.play)
        if checked is not None:
            return checked
    return ea.apply(state, engine_action(turn, state.variant))


def _apply_found_play(
    state: eg.GameState, dice: tuple[int, ...], play: Play
) -> eg.GameState | None:
    """A turn whose play the reader found among the legal plays of this position:
    the dice rolled (as ``RecordedTurn`` rolls them) and the play applied as one of
    them.  None where the turn is not a plain roll and play (the opening's dice
    still to play with other dice, a variant whose mover names the dice): the
    caller checks it the whole way."""
    if len(dice) != 2 or state.variant.mover_names_dice:
        return None
    if state.phase is eg.Phase.ROLL:
        state = ea.apply(state, ea.Roll(RecordedDice([(dice[0], dice[1])])))
    elif state.phase is not eg.Phase.PLAY or sorted(dice) != sorted(state.dice):
        return None
    return ea.apply(state, ea.ChoosePlay(play, from_legal_plays=True))


def new_game_state(match: Match, game: Game) -> eg.GameState:
    context = (
        eg.MatchContext(length=match.length, score=(game.score1_before, game.score2_before))
        if match.length
        else None
    )
    return eg.new_game(rules_for(match), crawford=game.crawford, match_context=context)


# The state of the games replayed lately, with the exact start and turns it came
# from.  Recording a turn replays its game so far (the engine judges every action
# against the whole record), which made recording grow with the square of a game's
# length: a 760-turn long-nardy game took about a minute.  A replay whose start is
# the same and whose turns begin with the kept turns continues from the kept state,
# so what is kept never stands for other turns, committed or not (an undone turn,
# a rolled-back import): it is only a shortcut through the same steps.
_REPLAYS_KEPT = 256
_replays: OrderedDict[int, tuple[eg.GameState, tuple[TurnInput, ...], eg.GameState]] = OrderedDict()
_replays_lock = threading.Lock()


def replay(match: Match, game: Game, turns: Sequence[Turn]) -> eg.GameState:
    """The game's state after its live turns, in order."""
    start = new_game_state(match, game)
    inputs = tuple(TurnInput(t.kind, tuple(t.dice), t.moves, t.level) for t in turns)
    state, done = start, 0
    with _replays_lock:
        kept = _replays.get(game.pk)
    if kept is not None and kept[0] == start and inputs[: len(kept[1])] == kept[1]:
        state, done = kept[2], len(kept[1])
    for turn, step in zip(turns[done:], inputs[done:], strict=True):
        try:
            state = apply_turn(state, step)
        except EngineError as error:  # a stored record that no longer replays is corrupt
            raise RuntimeError(
                f"stored turn {turn.pk} of game {game.pk} does not replay: {error}"
            ) from error
    with _replays_lock:
        _replays[game.pk] = (start, inputs, state)
        _replays.move_to_end(game.pk)
        while len(_replays) > _REPLAYS_KEPT:
            _replays.popitem(last=False)
    return state


def position_fields(state: eg.GameState) -> dict[str, str]:
    """The position after a turn as a Turn row stores it: GNU Backgammon's
    Position ID, or for checker classes (Soldiers), which no Position ID holds,
    the canonical position text with the side the game waits for."""
    if state.variant.checker_classes:
        turn = None if state.finished else state.turn
        return {"position_id": "", "position_text": bridge.position_text(state.position, turn)}
    return {"position_id": encode_position_id(state.position), "position_text": ""}


def canonical_moves(variant: Variant, written: str) -> str:
    """A play as stored: canonical notation, whatever equivalent form was typed
    (class letters kept in Soldiers); ``Ø`` for none."""
    return format_moves(parse_moves(written, variant)) if written.strip() else "Ø"


# --- Results: the game log of a match, and reported scores checked against it.

# Lazy: the words are chosen when the error is shown, in the reader's language.
SCORE_MESSAGES = {
    "negative_score": gettext_lazy("A score cannot be negative."),
    "both_reached_length": gettext_lazy("Both players cannot reach %(length)d points."),
    "nobody_reached_length": gettext_lazy(
        "In a match to %(length)d the winner must reach %(length)d points."
    ),
    "bad_game_entry": gettext_lazy("Game %(game)d of the log needs a winner and its points."),
    "bad_game_winner": gettext_lazy("Game %(game)d: the winner is player 1 or player 2."),
    "bad_game_points": gettext_lazy("Game %(game)d: a game scores at least one point."),
    "game_after_match_won": gettext_lazy("Game %(game)d comes after the match was already won."),
    "crawford_points": gettext_lazy(
        "Game %(game)d is the Crawford game: it scores at most %(most)d points, not %(points)d."
    ),
    "log_mismatch": gettext_lazy("The games add up to %(log)s, not the reported %(reported)s."),
    "log_incomplete": gettext_lazy("The games add up to %(log)s: nobody reached %(length)d."),
}


def _score_error(error: scorecheck.ScoreError) -> ValidationError:
    data = {
        key: "–".join(map(str, value)) if isinstance(value, list) else value
        for key, value in error.data.items()
    }
    return ValidationError(SCORE_MESSAGES[error.code] % data, code=error.code)


def max_points_without_cube(match: Match) -> int:
    return max([rule.multiplier for rule in preset_for(match).rules] + [1])


def check_report(match: Match, score1: int, score2: int, log: list[dict[str, Any]]) -> None:
    """Raise ValidationError unless the score (and its log) can end this match."""
    check_score_bounds(match, score1, score2)
    try:
        scorecheck.check_final_score(match.length, score1, score2)
        if log:
            scorecheck.check_log(
                match.length,
                score1,
                score2,
                scorecheck.parse_log(log),
                cube=rules_for(match).cube_enabled,
                max_points_without_cube=max_points_without_cube(match),
            )
    except scorecheck.ScoreError as error:
        raise _score_error(error) from error


# The score columns (PositiveSmallIntegerField) hold no more than this.
MOST_POINTS = 32_767


def check_score_bounds(match: Match, score1: int, score2: int) -> None:
    """Refuse, by field, a score above the match length (a money session's: above what
    its column holds); the winner's score is written as the length, not the points won."""
    most = match.length or MOST_POINTS
    if match.length:
        message = _(
            "The score of player %(side)d, %(score)d, is more than the match length, %(most)d."
        )
    else:
        message = _("The score of player %(side)d, %(score)d, is more than %(most)d points.")
    errors = {
        name: message % {"side": side, "score": score, "most": most}
        for side, (name, score) in enumerate((("score1", score1), ("score2", score2)), start=1)
        if score > most
    }
    if errors:
        raise ValidationError(errors, code="score_above_length")


def game_log(games: Iterable[Game]) -> list[dict[str, Any]]:
    return [
        {
            "number": game.number,
            "winner": game.winner,
            "points": game.points,
            "result": game.result,
            "cube": game.cube,
            "crawford": game.crawford,
            "end": game.end,
        }
        for game in games
        if game.winner is not None
    ]


def log_from_mat(match: Match, text: str) -> tuple[list[dict[str, Any]], tuple[int, int]]:
    """The games and final score of a .mat file, validated play by play by the engine."""
    from engine.records.matfile import replay_mat  # the engine's .mat importer

    if variant_for(match).checker_classes:
        raise ValidationError(
            _(
                "A Soldiers match cannot be checked against a .mat file: the format has no "
                "room for checker classes and pinned checkers."
            ),
            code="export_unsupported",
        )
    try:
        report = replay_mat(text)
    except EngineError as error:
        raise ValidationError(
            _("The match file is not valid: %(reason)s") % {"reason": message_for(error)},
            code=error.code,
        ) from error
    if report.get("match_length") != match.length:
        raise ValidationError(
            _("The match file is a match to %(file)s points, this match is to %(match)s.")
            % {"file": report.get("match_length"), "match": match.length}
        )
    games = [
        {
            "number": g["number"],
            "winner": g["winner"],
            "points": g["points"],
            "result": g["result"],
            "cube": g["cube"],
            "crawford": g["crawford"],
            "end": g["end"],
        }
        for g in report["games"]
    ]
    final = report["final_score"]
    return games, (int(final[0]), int(final[1]))


# --- The board page: what games/views/board.py reads of a game (no view imports the engine).

GameState = eg.GameState
"""The engine's state of one game, as the board view names it."""

# The engine's actions as the turn kinds a page records.
ACTION_KINDS = {
    eg.Action.OPENING_ROLL: TurnKind.OPENING,
    eg.Action.SET_OPENING: TurnKind.OPENING,
    eg.Action.ROLL: TurnKind.PLAY,
    eg.Action.SET_DICE: TurnKind.PLAY,
    eg.Action.PLAY: TurnKind.PLAY,
    eg.Action.DOUBLE: TurnKind.DOUBLE,
    eg.Action.TAKE: TurnKind.TAKE,
    eg.Action.PASS: TurnKind.PASS,
    eg.Action.BEAVER: TurnKind.BEAVER,
    eg.Action.RESIGN: TurnKind.RESIGN,
    eg.Action.ACCEPT_RESIGNATION: TurnKind.ACCEPT,
    eg.Action.REJECT_RESIGNATION: TurnKind.REJECT,
    eg.Action.EXPLODE: TurnKind.EXPLODE,
}


def variant_for(match: Match) -> Variant:
    """The variant the match is played in (its board, whether checkers hit or pin)."""
    return get_variant(match.discipline.variant)


def acting_player(state: eg.GameState) -> int | None:
    """The player whose action the game waits for; None for the opening roll (either)."""
    return player_of(state.to_act) if state.to_act is not None else None


def awaited(state: eg.GameState) -> str:
    """What the game waits for: ``opening``, ``roll_or_double``, ``roll``, ``play``,
    ``take_or_pass``, ``accept_resignation``, or ``game_over``."""
    phase = state.phase
    if phase is eg.Phase.OPENING:
        return "opening"
    if phase is eg.Phase.ROLL:
        return "roll_or_double" if eg.can_double(state) else "roll"
    if phase is eg.Phase.PLAY:
        return "play"
    if phase is eg.Phase.TAKE and state.offer is not None:
        return "take_or_pass"
    if phase is eg.Phase.RESIGN and state.resignation is not None:
        return "accept_resignation"
    return "game_over"


def action_kinds(state: eg.GameState) -> list[str]:
    """The kinds of turn the game waits for (whoever enters them), each once."""
    kinds: list[str] = []
    for action in eg.legal_actions(state):
        kind = ACTION_KINDS.get(action)
        if kind is not None and kind not in kinds:
            kinds.append(kind)
    return kinds


def resign_levels(state: eg.GameState) -> list[str]:
    """The results a player may resign, cheapest first (the scoring preset's)."""
    preset = state.rules.preset
    names = list(preset.result_names())
    return sorted(names, key=lambda n: preset.multiplier_of(n) or 1)


def clickable_plays(state: eg.GameState, dice: list[int]) -> dict[str, Any]:
    """The legal plays of ``dice`` (rolled now, or those on the table), each by every
    route its checkers may take, with its steps: the board moves checkers by clicks.
    A refusal (dice not valid, no play awaited) is a ValidationError with the engine's code."""
    try:
        rolled = with_dice(state, dice)
        side = rolled.turn
        plays = []
        for play in eg.legal_plays(rolled):
            assert side is not None  # a play is awaited: someone is to move
            notation = format_play(play)
            routes = movegen.play_routes(
                rolled.variant,
                rolled.position,
                side,
                rolled.dice,
                play,
                first_turn=rolled.first_turn[side],
            )
            for route in routes:
                plays.append({"moves": notation, "steps": [_step(s) for s in route.steps]})
    except EngineError as error:
        raise ValidationError(message_for(error), code=error.code) from error
    return {
        "side": player_of(side) if side is not None else None,
        "dice": list(rolled.dice),
        "plays": plays,
    }


def _step(step: Step) -> list[Any]:
    """``[origin, dest, hit]`` in the mover's numbering; a class checker's step
    (Soldiers) adds its class letter (``K G D E O P``), so the board can ask
    which checker of a point moves."""
    if isinstance(step, ClassStep):
        return [step.origin, step.dest, step.hit, CLASS_LETTERS[step.cls]]
    return [step.origin, step.dest, step.hit]


def with_dice(state: eg.GameState, dice: list[int]) -> eg.GameState:
    """The state with the dice on the table (rolled, named, or those already known)."""
    if state.phase is eg.Phase.ROLL:
        if state.variant.mover_names_dice:
            return ea.apply(state, ea.SetDice(tuple(dice)))
        return ea.apply(state, ea.Roll(RecordedDice([dice])))
    if state.phase is eg.Phase.PLAY:
        return state
    raise EngineError(
        "wrong_phase",
        f"no play is awaited: the game is in phase {state.phase.value!r}",
        phase=state.phase.value,
    )
