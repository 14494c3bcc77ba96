"""Storing a whole record at once: every turn of a match already played elsewhere.

``record_turn`` saves one action per call, with a transaction, a lock and a
replay of the game each time: right for players at a board, slow for a record
that arrives whole (a demo match played by games.demo_player, some 800 turns
of long nardy).  ``record_games`` takes the whole record, checks every action
through the engine exactly as ``record_turn`` does (the same adapters, the same
refusals), and writes each game's turns in one insert.  The rows are the ones
``record_turn`` would have saved turn after turn at the same instant; the end
of each game and of the match go through recording's own functions, so the
score, the result report and its being official follow the same rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from base import locking
from engine.errors import EngineError
from games import adapters, clocks
from games import permissions as side_rules
from games.models import ClockMode, ClockSource, Match, MatchState, Turn, TurnKind
from games.services.recording import (
    RecordingError,
    _canonical_moves,
    _close_game,
    _open_game,
)
from games.services.sides import recorder


@dataclass(frozen=True)
class Stored:
    """What ``record_games`` stored: its games (the last may be under way) and turns,
    and whether the match ended."""

    games: int
    turns: int
    finished: bool


@transaction.atomic
def record_games(
    match: Match,
    games: Sequence[Sequence[adapters.TurnInput]],
    *,
    by: Any,
    imported_by: Any = None,
) -> Stored:
    """Record ``games`` (each the actions of one game, in order, from its opening
    roll) into ``match``, a match recorded move by move with nothing recorded yet.

    Every game but the last must end with its last action; the last may stop
    in the middle (a match still being played continues with ``record_turn``).
    The side rules, the engine's checks and their errors (``RecordingError``,
    numbered from 1 in each game) are ``record_turn``'s, and so is what ``by``
    and ``imported_by`` mean; anything refused saves nothing.  The server's
    clocks charge each turn the time since the one before, as ``record_turn``
    would: nothing, as all of them are recorded now."""
    match = locking.row(
        Match.objects.select_related("player1", "player2", "discipline"), pk=match.pk
    )
    if not match.recorded:
        raise ValidationError(_("This match is not recorded move by move."))
    if match.state in (MatchState.FINISHED, MatchState.CANCELLED):
        raise ValidationError(_("The match is over."))
    if match.games.exists():
        raise ValidationError(
            _("This match has recorded turns already: a whole record goes into a new match.")
        )
    entered_by = recorder(by if by is not None else imported_by)
    now = timezone.now()
    # The clocks as the last turn left them (adapters.stored_clocks): each turn sets both.
    reserve = match.clock_reserve_ms()
    readings: tuple[int | None, int | None] = (reserve, reserve)
    allowed: set[tuple[int | None, str]] = set()  # (side, kind) ``by`` may enter
    count = stored = 0
    for index, actions in enumerate(games, start=1):
        if not actions and index == len(games):
            break  # nothing of the last game played yet: record_turn opens it on its first turn
        # ``_open_game`` refuses a game after the match was won ("The match is over.").
        game = _open_game(match)
        stored += 1
        state = adapters.new_game_state(match, game)
        rows: list[Turn] = []
        for number, action in enumerate(actions, start=1):
            actor = state.to_act if action.kind != TurnKind.OPENING else None
            player = adapters.player_of(actor) if actor is not None else None
            if (player, action.kind) not in allowed:
                side_rules.require_side(
                    by, match, player, str(dict(TurnKind.choices).get(action.kind, action.kind))
                )
                allowed.add((player, action.kind))
            turn = adapters.TurnInput(
                action.kind, tuple(action.dice), action.moves.strip(), action.level
            )
            try:
                new_state = adapters.apply_turn(state, turn)
            except EngineError as error:
                raise RecordingError(error, number) from error
            side = adapters.player_of(
                new_state.starter if action.kind == TurnKind.OPENING else actor  # type: ignore[arg-type]
            )
            clock: tuple[int | None, int | None] = (None, None)
            if match.clock_mode != ClockMode.NONE:
                clock = readings = _charged(match, readings, side, action.kind, first=not rows)
            rows.append(
                Turn(
                    game=game,
                    number=number,
                    side=side,
                    kind=action.kind,
                    dice=list(action.dice)
                    if action.kind in (TurnKind.OPENING, TurnKind.PLAY)
                    else [],
                    moves=_canonical_moves(action.kind, action.moves),
                    level=action.level if action.kind == TurnKind.RESIGN else "",
                    position_id=adapters.position_id(new_state),
                    clock1_ms=clock[0],
                    clock2_ms=clock[1],
                    clock_source=ClockSource.SERVER,
                    recorded_by=entered_by,
                )
            )
            state = new_state
        Turn.objects.bulk_create(rows, batch_size=500)
        count += len(rows)
        if rows and match.state == MatchState.SCHEDULED:
            match.state = MatchState.PLAYING
            match.started_at = now
            match.save(update_fields=["state", "started_at"])
        if state.finished:
            _close_game(match, game, state.result)  # type: ignore[arg-type]
        elif index < len(games):
            raise ValidationError(
                _("Game %(game)d stops before it is over, and another game follows it.")
                % {"game": index}
            )
    return Stored(games=stored, turns=count, finished=match.state == MatchState.FINISHED)


def _charged(
    match: Match,
    readings: tuple[int | None, int | None],
    side: int,
    kind: str,
    *,
    first: bool,
) -> tuple[int | None, int | None]:
    """``clock_readings.charged_clock`` for a turn recorded at the same instant as the
    game's turn before it: the side is charged no time, only the clock's rule for a
    move made (an increment, a delay).  The opening roll and a game's first turn
    charge nobody."""
    values = list(readings)
    if kind != TurnKind.OPENING and not first:
        before = values[side - 1]
        assert before is not None
        values[side - 1] = clocks.after_move(match.clock_mode, match.clock_move_seconds, before, 0)
    return values[0], values[1]
