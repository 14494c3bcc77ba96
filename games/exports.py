"""Match files built from the stored record: ``.mat`` (GNU Backgammon layout)
and ``.sgf``, written by the engine's exporters.

The stored turns of every finished game are fed, in order, to the engine's
match builder (``engine.records.matfile.MatchBuilder``), which replays and checks
them exactly as it checks an imported file; the checked match is what the
exporters write.  So an export always reads back to the same games.

Only the backgammon family has these formats (GNU Backgammon's variations:
backgammon = short nardy, nackgammon, hypergammon) with their standard
scoring.  A Soldiers match (checker classes and pins, RULES §3.1) is refused
with its reason (`refusal`); its record goes to the project's own JSON
(`soldiers_record`): the options, and each game's start, turns and the
canonical position text after each turn, so classes and pins are kept.  Undone turns are left out; a game still in progress and a game
lost on time (a .mat game ends with points won, a loss on time has none) end
the exported record.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from django.utils import timezone

from base.engine_messages import message_for
from engine import movegen
from engine.errors import EngineError
from engine.records import matfile, sgf
from engine.records.notation import format_play, parse_moves
from engine.rules import game as eg
from engine.rules.variants import get_variant
from engine.soldiers import bridge
from engine.soldiers.record import SoldiersRecord, SoldiersTurn, record_from_dict, refuse_export
from games import adapters
from games.models import Game, GameEnd, Match, Turn, TurnKind

# Our discipline variants that the .mat and .sgf formats know, with their names there.
FORMAT_VARIANTS = {"short": "Backgammon", "nackgammon": "Nackgammon", "hypergammon": "Hypergammon"}

_CUBE_ACTIONS = {
    TurnKind.DOUBLE: matfile.DOUBLE,
    TurnKind.TAKE: matfile.TAKE,
    TurnKind.PASS: matfile.DROP,
    TurnKind.BEAVER: matfile.BEAVER,
}


class ExportError(Exception):
    """The stored record does not replay in the engine's match builder (a corrupt record)."""


def mat_supported(match: Match) -> bool:
    """Whether the match can be written in the backgammon family's formats."""
    discipline = match.discipline
    if discipline.variant not in FORMAT_VARIANTS or discipline.custom_scoring is not None:
        return False
    variant = get_variant(discipline.variant)
    return adapters.preset_for(match).name == variant.scoring


def sgf_supported(match: Match) -> bool:
    return mat_supported(match)


def refusal(match: Match, fmt: str) -> str | None:
    """Why ``match`` cannot be written as ``fmt`` (``mat``, ``sgf``, ``position_id``)
    in the reader's language, when its variant's checkers carry what the format
    has no room for (Soldiers' classes and pins); None otherwise."""
    if not get_variant(match.discipline.variant).checker_classes:
        return None
    try:
        refuse_export(fmt)
    except EngineError as error:
        return message_for(error)
    return None  # refuse_export always raises


def record_supported(match: Match) -> bool:
    """Whether the match has the project's own record (`soldiers_record`)."""
    return get_variant(match.discipline.variant).checker_classes


def soldiers_record(match: Match) -> dict[str, Any]:
    """The project's own record of a Soldiers match, every stored live turn of
    every game with the canonical position text after it, and for each game the
    engine's own record of its plays (``engine.soldiers.record``), checked by
    replaying it.  A game with a turn passed without a roll has no ``record``:
    the engine's record has no such turn."""
    options = dict(match.game_options)
    chosen = bridge.game_options(match.game_options)
    games = []
    for game in match.games.order_by("number").prefetch_related("turns"):
        turns = sorted((t for t in game.turns.all() if t.undone_at is None), key=lambda t: t.number)
        state = adapters.new_game_state(match, game)
        start = state.position
        plays: list[SoldiersTurn] = []
        rows: list[dict[str, Any]] = []
        passed = False
        for turn in turns:
            step = adapters.TurnInput(turn.kind, tuple(turn.dice), turn.moves, turn.level)
            if turn.kind == TurnKind.PLAY and len(turn.dice) == 2:
                plays.append(_played(state, step))
            passed = passed or (turn.kind == TurnKind.PLAY and not turn.dice)
            state = adapters.apply_turn(state, step)
            rows.append(
                {
                    "number": turn.number,
                    "player": turn.side,
                    "kind": turn.kind,
                    "dice": list(turn.dice),
                    "moves": turn.moves,
                    "level": turn.level,
                    "position": turn.position_text,
                }
            )
        entry: dict[str, Any] = {
            "number": game.number,
            "score_before": [game.score1_before, game.score2_before],
            "crawford": game.crawford,
            "turns": rows,
            "result": None
            if game.winner is None
            else {
                "winner": game.winner,
                "result": game.result,
                "cube": game.cube,
                "points": game.points,
                "end": game.end,
            },
        }
        if state.starter is not None and not passed:
            first = bridge.soldiers_of(start).with_turn(state.starter).text()
            record = SoldiersRecord(chosen.army, chosen.placed, first, tuple(plays))
            entry["record"] = record.to_dict()
            record_from_dict(entry["record"])  # what is written reads back
        games.append(entry)
    return {
        "format": "zary-soldiers-match",
        "variant": match.discipline.variant,
        "options": {
            "army": chosen.army.text(),
            "placement": [chosen.placed.text(0), chosen.placed.text(1)],
            "given": options,
        },
        "length": match.length,
        "players": [_name(match.player1), _name(match.player2)],
        "games": games,
    }


def _played(state: eg.GameState, turn: adapters.TurnInput) -> SoldiersTurn:
    """A stored play as the engine's Soldiers record keeps it: the dice, the
    play as the engine writes it, and the position after it (opponent to move)."""
    rolled = state
    if state.phase is eg.Phase.ROLL:
        rolled = adapters.with_dice(state, list(turn.dice))
    side = rolled.turn
    assert side is not None
    play = movegen.find_play(
        rolled.variant,
        rolled.position,
        side,
        rolled.dice,
        parse_moves(turn.moves, rolled.variant),
    )
    dice = (int(turn.dice[0]), int(turn.dice[1]))
    return SoldiersTurn(dice, format_play(play), bridge.position_text(play.position))


def _name(player: Any) -> str:
    """A player's name as the formats take it (Latin script, no colon or quote)."""
    text = player.name_latin or str(player)
    return re.sub(r'[:"\]\[]', " ", text).strip() or f"Player {player.pk}"


def _settings(match: Match) -> matfile.MatchSettings:
    variant = get_variant(match.discipline.variant)
    cube = adapters.rules_for(match).cube_enabled
    names = (_name(match.player1), _name(match.player2))
    played = match.started_at or match.created_at or timezone.now()
    headers = [
        ("Site", "Zary"),
        ("Match ID", str(match.pk)),
        ("Player 1", names[0]),
        ("Player 2", names[1]),
        ("EventDate", timezone.localtime(played).strftime("%Y.%m.%d")),
        ("Variation", FORMAT_VARIANTS[variant.name]),
        ("Crawford", "On" if cube else "Off"),
    ]
    return matfile.MatchSettings(
        length=match.length,
        variant=variant,
        crawford_rule=cube,
        players=names,
        headers=tuple(headers),
    )


def _exported_games(match: Match) -> list[Game]:
    games = []
    for game in match.games.all().order_by("number").prefetch_related("turns"):
        if game.winner is None or game.end == GameEnd.TIME:
            break
        games.append(game)
    return games


def _action_turns(game: Game) -> list[Turn]:
    """The game's stored turns that become the record's actions, in their order.

    The match builder keeps exactly one action for each (a play, or a roll it
    cannot play; a double, take, pass or beaver), so the turn of the record's
    action ``i`` is this list's item ``i``.  Undone turns are left out; the opening
    roll is the starter's first play (its dice come with that play's turn); a
    resignation and its answer are the result line; a rejected resignation leaves
    no trace in the file.
    """
    turns = sorted(
        (turn for turn in game.turns.all() if turn.undone_at is None), key=lambda t: t.number
    )
    return [turn for turn in turns if turn.kind == TurnKind.PLAY or turn.kind in _CUBE_ACTIONS]


def action_turn_ids(game: Game) -> list[int]:
    """The ids of the stored turns of ``game`` in the order of its actions in the
    record ``mat_match`` builds: what locates a decision given by its action's index
    (the analysis) on the stored turns (the replay)."""
    return [turn.pk for turn in _action_turns(game)]


def _actions(game: Game, counter: Iterable[int]) -> list[matfile.MatAction]:
    """The game's live turns as the match builder's actions (line numbers from ``counter``)."""
    lines = iter(counter)
    actions: list[matfile.MatAction] = []
    for turn in _action_turns(game):
        side = adapters.side_of(turn.side)
        if turn.kind == TurnKind.PLAY:
            moves = tuple(parse_moves(turn.moves))
            dice = (int(turn.dice[0]), int(turn.dice[1]))
            actions.append(matfile.MatAction(next(lines), side, matfile.PLAY, dice, moves))
        else:
            actions.append(matfile.MatAction(next(lines), side, _CUBE_ACTIONS[turn.kind]))
    return actions


def mat_match(match: Match) -> matfile.MatMatch:
    """The engine's checked match for the stored record (finished games only)."""
    settings = _settings(match)
    builder = matfile.MatchBuilder(settings)
    line = iter(range(1, 10**9))
    score = [0, 0]
    games = _exported_games(match)
    # A match imported as resigned by a player (Galaxy's "Losses" on its last game):
    # written again as that player's resignation of the match.
    resigned = bool(match.length) and any(
        isinstance(w, dict) and w.get("code") == "match_resigned" for w in match.import_warnings
    )
    try:
        for game in games:
            builder.start_game(
                next(line),
                number=game.number,
                score=(game.score1_before, game.score2_before),
                crawford=game.crawford,
            )
            for action in _actions(game, line):
                builder.act(action)
            winner = adapters.side_of(game.winner)  # type: ignore[arg-type]
            points = game.points or 0
            score[winner] += points
            won = bool(match.length) and score[winner] >= match.length
            if resigned and game is games[-1] and not won and game.end == GameEnd.RESIGN:
                builder.act(matfile.MatAction(next(line), 1 - winner, matfile.RESIGN, value=points))
                won = True
            builder.act(
                matfile.MatAction(next(line), winner, matfile.WIN, value=points, match_won=won)
            )
        if not games:
            return matfile.MatMatch(settings, ())
        record = builder.finish(next(line))
    except matfile.MatError as error:
        raise ExportError(f"match {match.pk} does not replay: {error.reason}") from error
    # The stored games are the engine's own: anything the builder reads otherwise
    # (a score, a game's value) means the stored record is corrupt.
    disagreements = [w for w in record.warnings if w.code != "match_resigned"]
    if disagreements:
        raise ExportError(f"match {match.pk} does not replay: {disagreements[0].text}")
    return record


def mat_text(match: Match) -> str:
    """The match as a ``.mat`` file (GNU Backgammon's layout)."""
    return matfile.export_mat(mat_match(match))


def sgf_text(match: Match) -> str:
    """The match as a GNU Backgammon ``.sgf`` file."""
    return sgf.export_sgf(mat_match(match), application="Zary")
