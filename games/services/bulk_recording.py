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

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from django.core.exceptions import ValidationError
from django.db import connections, router, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from base import locking
from engine.errors import EngineError
from games import adapters, clocks
from games import permissions as side_rules
from games.models import ClockMode, ClockSource, Game, Match, MatchState, Turn, TurnKind
from games.services.recording import (
    RecordingError,
    _canonical_moves,
    _finish_recorded_match,
    _set_result,
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
        Match.objects.select_related("player1", "player2", "discipline", "federation"), pk=match.pk
    )
    _check_open(match)
    if match.games.exists():
        raise ValidationError(
            _("This match has recorded turns already: a whole record goes into a new match.")
        )
    return _record(match, games, by=by, imported_by=imported_by)


def _check_open(match: Match) -> None:
    if not match.recorded:
        raise ValidationError(_("This match is not recorded move by move."))
    if match.state in (MatchState.FINISHED, MatchState.CANCELLED):
        raise ValidationError(_("The match is over."))


def record_new_match(
    match: Match,
    games: Sequence[Sequence[adapters.TurnInput]],
    *,
    imported_by: Any,
    also: Mapping[str, Any] | None = None,
) -> Stored:
    """``record_games`` for a match the caller created in its transaction, which
    rolls back whatever this raises (``matfiles.store_record``): nobody else sees
    the match yet, so it is neither locked nor asked for turns it cannot have, and
    a record that ends it with nothing to confirm writes its result official at
    once.  ``also``: more values of the match's fields, set and saved with its end
    when the record ends it (else the caller saves them).  ``match`` is the
    caller's instance, kept up to date."""
    _check_open(match)
    return _record(match, games, by=None, imported_by=imported_by, new=True, also=also)


def _record(
    match: Match,
    games: Sequence[Sequence[adapters.TurnInput]],
    *,
    by: Any,
    imported_by: Any,
    new: bool = False,
    also: Mapping[str, Any] | None = None,
) -> Stored:
    entered_by = recorder(by if by is not None else imported_by)
    now = timezone.now()
    # The clocks as the last turn left them (adapters.stored_clocks): each turn sets both.
    reserve = match.clock_reserve_ms()
    readings: tuple[int | None, int | None] = (reserve, reserve)
    allowed: set[tuple[int | None, str]] = set()  # (side, kind) ``by`` may enter
    # Every game is replayed in memory first, then written in two inserts (the games,
    # then all their turns): a refusal anywhere has written nothing, and a long
    # record costs a few queries instead of several per game.
    planned: list[tuple[Game, list[Turn]]] = []
    finished: list[Game] = []
    for index, actions in enumerate(games, start=1):
        if not actions and index == len(games):
            break  # nothing of the last game played yet: record_turn opens it on its first turn
        # As ``_open_game`` opens the next game: by the score of the games before it.
        so_far = adapters.engine_match(match, finished)
        if so_far.finished:
            raise ValidationError(_("The match is over."))
        game = Game(
            match=match,
            number=index,
            score1_before=so_far.score[0],
            score2_before=so_far.score[1],
            crawford=so_far.next_game_crawford,
        )
        state = adapters.new_game_state(match, game)
        rows: list[dict[str, Any]] = []
        for number, action in enumerate(actions, start=1):
            actor = state.to_act if action.kind != TurnKind.OPENING else None
            player = adapters.player_of(actor) if actor is not None else None
            if (player, action.kind) not in allowed:
                side_rules.require_side(
                    by, match, player, str(dict(TurnKind.choices).get(action.kind, action.kind))
                )
                allowed.add((player, action.kind))
            turn = adapters.TurnInput(
                action.kind, tuple(action.dice), action.moves.strip(), action.level, action.play
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
                {
                    "number": number,
                    "side": side,
                    "kind": action.kind,
                    "dice": list(action.dice)
                    if action.kind in (TurnKind.OPENING, TurnKind.PLAY)
                    else [],
                    # A reader's play is written canonically already (format_play).
                    "moves": action.moves
                    if action.play is not None and action.moves
                    else _canonical_moves(new_state.variant, action.kind, action.moves),
                    "level": action.level if action.kind == TurnKind.RESIGN else "",
                    **adapters.position_fields(new_state),
                    "clock1_ms": clock[0],
                    "clock2_ms": clock[1],
                }
            )
            state = new_state
        if state.finished:
            _set_result(game, state.result)  # type: ignore[arg-type]
            finished.append(game)
        elif index < len(games):
            raise ValidationError(
                _("Game %(game)d stops before it is over, and another game follows it.")
                % {"game": index}
            )
        planned.append((game, rows))
    Game.objects.bulk_create([game for game, _rows in planned])
    count = _insert_turns(
        [
            {**row, "game_id": game.pk, "recorded_by_id": entered_by.pk if entered_by else None}
            for game, rows in planned
            for row in rows
        ],
        now,
    )
    record = adapters.engine_match(match, finished)
    if count and match.state == MatchState.SCHEDULED:
        match.state = MatchState.PLAYING
        match.started_at = now
        if not record.finished:  # else written with the match's end, just below
            match.save(update_fields=["state", "started_at"])
    if record.finished:
        entrant = entered_by.pk if entered_by is not None else None
        _finish_recorded_match(
            match,
            record.final_score[0],
            record.final_score[1],
            known=(
                [game for game, _rows in planned],
                {(row["side"], row["kind"], entrant) for _game, rows in planned for row in rows},
            ),
            first_report=new,
            entrants=[entered_by],
            also=also,
        )
    return Stored(games=len(planned), turns=count, finished=match.state == MatchState.FINISHED)


# The columns an imported turn sets; the others keep their defaults (no physical
# clock reading, not undone).
_TURN_COLUMNS: Final = (
    "game_id",
    "number",
    "side",
    "kind",
    "dice",
    "moves",
    "level",
    "position_id",
    "position_text",
    "clock1_ms",
    "clock2_ms",
    "recorded_by_id",
)


def _insert_turns(rows: list[dict[str, Any]], now: datetime) -> int:
    """Insert the turns (each a dict of ``_TURN_COLUMNS``), recorded at ``now`` by the
    server's clock.  On PostgreSQL one ``COPY``: a whole archive's turns (a quarter of
    a million for a thousand files) are most of what an import writes, and building
    a model per row and an insert's parameters cost more than checking the plays.
    Elsewhere (SQLite) ``bulk_create``; the rows are the same."""
    if not rows:
        return 0
    connection = connections[router.db_for_write(Turn)]
    if connection.vendor != "postgresql":
        Turn.objects.bulk_create(
            [Turn(**row, clock_source=ClockSource.SERVER, recorded_at=now) for row in rows],
            batch_size=1000,
        )
        return len(rows)
    columns = (*_TURN_COLUMNS, "clock_source", "recorded_at")
    names = ", ".join(connection.ops.quote_name(Turn._meta.get_field(c).column) for c in columns)
    table = connection.ops.quote_name(Turn._meta.db_table)
    # The driver's own cursor (``cursor.cursor``): Django's wrapper has no COPY.
    with (
        connection.cursor() as cursor,
        cursor.cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy,
    ):
        for row in rows:
            values = [row[c] for c in _TURN_COLUMNS]
            values[4] = json.dumps(values[4])  # dice: jsonb, read from its text
            copy.write_row((*values, ClockSource.SERVER.value, now))
    return len(rows)


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
