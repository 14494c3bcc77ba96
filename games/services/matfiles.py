"""Importing a ``.mat`` match file: it becomes a recorded match, turn by turn."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from base.engine_messages import message_for, variant_label
from clubs.models import Discipline, Federation, Player
from engine.errors import EngineError
from engine.rules import game as eg
from games import adapters
from games.models import Match, MatchState, TurnKind
from games.services.matches import create_match
from games.services.recording import RecordingError, end_session, record_turn


def _mat_error(error: EngineError) -> ValidationError:
    return ValidationError(
        _("The match file is not valid: %(reason)s") % {"reason": message_for(error)},
        code=error.code,
    )


@transaction.atomic
def import_mat(
    file_text: str,
    *,
    by: Any,
    player1: Player,
    player2: Player,
    discipline: Discipline,
    federation: Federation | None = None,
) -> Match:
    """A ``.mat`` file becomes a recorded match between ``player1`` (the file's
    left column, White) and ``player2``.

    The engine parses the file and checks every play; each game is then stored
    turn by turn through ``record_turn`` exactly as players record it (opening
    roll, plays, cube actions, resignations), so the record replays like any
    other.  A finished match opens its result report for both players to
    confirm (a money session is closed at its final score).  Anything wrong
    refuses the whole file: nothing is saved.
    """
    from engine.records import matfile
    from engine.records.notation import format_play

    try:
        parsed = matfile.parse_mat(file_text)
    except EngineError as error:
        raise _mat_error(error) from error
    variant = parsed.settings.variant
    if variant.name != discipline.variant:
        raise ValidationError(
            _("The match file is %(file)s, but %(discipline)s is another game.")
            % {"file": variant_label(variant.name), "discipline": discipline}
        )
    match = create_match(
        by=by,
        player1=player1,
        player2=player2,
        discipline=discipline,
        length=parsed.length,
        federation=federation,
        recorded=True,
    )
    if adapters.preset_for(match).name != parsed.settings.rules.preset.name:
        raise ValidationError(
            _("%(discipline)s scores games differently from a .mat file.")
            % {"discipline": discipline}
        )
    for mat_game in parsed.games:
        turns: list[tuple[str, dict[str, Any]]] = []
        for index, action in enumerate(mat_game.actions):
            if index == 0:
                if action.kind != matfile.PLAY or action.dice is None:
                    raise ValidationError(
                        _("Game %(game)d does not start with an opening roll.")
                        % {"game": mat_game.number}
                    )
                low, high = sorted(action.dice)
                opening = [high, low] if action.side == 0 else [low, high]
                turns.append((TurnKind.OPENING, {"dice": opening}))
            if action.kind == matfile.PLAY:
                assert action.play is not None and action.dice is not None
                turns.append(
                    (TurnKind.PLAY, {"dice": list(action.dice), "moves": format_play(action.play)})
                )
            elif action.kind in (matfile.DOUBLE, matfile.TAKE, matfile.DROP, matfile.BEAVER):
                kind = {
                    matfile.DOUBLE: TurnKind.DOUBLE,
                    matfile.TAKE: TurnKind.TAKE,
                    matfile.DROP: TurnKind.PASS,
                    matfile.BEAVER: TurnKind.BEAVER,
                }[action.kind]
                turns.append((kind, {}))
            # A roll right before resigning (matfile.ROLL) is not kept: the player resigns.
        result = mat_game.result
        if result.end == eg.END_RESIGN:
            turns += [(TurnKind.RESIGN, {"level": result.result_name}), (TurnKind.ACCEPT, {})]
        for number, (kind, turn) in enumerate(turns, start=1):
            try:
                record_turn(match, by=None, imported_by=by, number=number, kind=kind, **turn)
            except RecordingError as error:
                raise ValidationError(
                    _("Game %(game)d, turn %(turn)d: %(reason)s")
                    % {"game": mat_game.number, "turn": number, "reason": error.reason},
                    code=error.code,
                ) from error
        game = match.games.get(number=mat_game.number)
        if game.winner != adapters.player_of(result.winner) or game.points != result.points:
            raise ValidationError(
                _("Game %(game)d: the file's result does not follow from its moves.")
                % {"game": mat_game.number}
            )
    match.refresh_from_db()
    if match.length == 0 and match.state != MatchState.FINISHED:
        end_session(match, by=None)
        match.refresh_from_db()
    return match
