"""Recording a match move by move: turns, the end of a game and of the match, a loss on time.

Recording a turn locks the match row, replays the current game through the
engine, applies the new action and saves it in one transaction: an illegal
turn is refused with the engine's code and reason and saves nothing, and of
two clients sending the same turn exactly one is saved (the turn number
guards it).  When the record ends the match, its result report is opened
(games.services.results), official at once when each side entered or
consented to its own actions.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from base import locking
from base.engine_messages import message_for
from clubs import permissions
from engine.errors import EngineError
from engine.rules import game as eg
from games import adapters
from games import permissions as side_rules
from games.models import (
    ClockMode,
    ClockSource,
    Game,
    GameEnd,
    Match,
    MatchState,
    ReportSource,
    ResultReport,
    Turn,
    TurnKind,
)
from games.services import clock_readings, results
from games.services.sides import recorder


class TurnConflict(Exception):
    """The turn was recorded already (by the other client, or a stale page)."""

    code = "turn_already_recorded"

    def __init__(self, expected: int, given: int) -> None:
        super().__init__(
            _("Turn %(given)d was already recorded; the next turn is %(expected)d.")
            % {"given": given, "expected": expected}
        )
        self.expected = expected
        self.given = given


class RecordingError(Exception):
    """The engine refused the turn: ``code`` and data come from it, ``reason`` is
    the user's sentence for them (``engine_reason`` keeps the engine's English for logs)."""

    def __init__(self, error: EngineError, turn: int) -> None:
        reason = message_for(error)
        super().__init__(reason)
        self.code = error.code
        self.reason = reason
        self.engine_reason = error.reason
        self.turn = turn
        self.data = {k: v for k, v in error.data.items() if k != "turn"}


def _open_game(match: Match) -> Game:
    """The game being played, creating the next one when the last has ended."""
    games = list(match.games.order_by("number"))
    if games and not games[-1].finished:
        return games[-1]
    record = adapters.engine_match(match, games)
    if record.finished:
        raise ValidationError(_("The match is over."))
    score = record.score
    return Game.objects.create(
        match=match,
        number=len(games) + 1,
        score1_before=score[0],
        score2_before=score[1],
        crawford=record.next_game_crawford,
    )


@dataclass(frozen=True)
class Recorded:
    turn: Turn
    state: eg.GameState
    game: Game


@transaction.atomic
def record_turn(
    match: Match,
    *,
    by: Any,
    number: int,
    kind: str,
    dice: Sequence[int] = (),
    moves: str = "",
    level: str = "",
    physical_clock: tuple[int, int] | None = None,
    imported_by: Any = None,
) -> Recorded:
    """Record the next action of the current game; ``number`` must be the next turn number.

    Only the player of the side that must act records it (the opening roll:
    either player), or a scorer in scorer mode (games.permissions); anyone
    else gets PermissionDenied and nothing is saved.  ``by`` None is the
    system: an imported match file, whose importer (``imported_by``) is kept
    as the one who entered the turn.

    The server charges the clocks of a clocked match from its own time stamps.
    ``physical_clock`` is instead what a physical clock shows after the turn
    (milliseconds of players 1 and 2), in a game played over the board: only
    someone ``match.enter_clock`` allows enters it (``clock_not_yours``
    otherwise, nothing saved), and the turn keeps who did."""
    match = locking.row(
        Match.objects.select_related("player1", "player2", "discipline"), pk=match.pk
    )
    if physical_clock is not None:
        _check_physical_clock(match, by)
    if not match.recorded:
        raise ValidationError(_("This match is not recorded move by move."))
    if match.state in (MatchState.FINISHED, MatchState.CANCELLED):
        raise ValidationError(_("The match is over."))
    game = _open_game(match)
    live = list(game.turns.filter(undone_at__isnull=True).order_by("number"))
    expected = len(live) + 1
    if number != expected:
        raise TurnConflict(expected, number)
    state = adapters.replay(match, game, live)
    actor = state.to_act if kind != TurnKind.OPENING else None
    # The side whose action this is: whoever the game waits for (the resigner's
    # opponent accepts, the doubler's opponent takes); the opening roll has none.
    side_rules.require_side(
        by,
        match,
        adapters.player_of(actor) if actor is not None else None,
        str(dict(TurnKind.choices).get(kind, kind)),
    )
    try:
        new_state = adapters.apply_turn(
            state, adapters.TurnInput(kind, tuple(dice), moves.strip(), level)
        )
    except EngineError as error:
        raise RecordingError(error, expected) from error
    side = adapters.player_of(new_state.starter if kind == TurnKind.OPENING else actor)  # type: ignore[arg-type]
    clock: tuple[int | None, int | None] = (None, None)
    if physical_clock is not None:
        clock = physical_clock
    elif match.clock_mode != ClockMode.NONE:
        clock = clock_readings.charged_clock(match, live, side, kind)
    try:
        with transaction.atomic():
            turn = Turn.objects.create(
                game=game,
                number=expected,
                side=side,
                kind=kind,
                dice=list(dice) if kind in (TurnKind.OPENING, TurnKind.PLAY) else [],
                moves=_canonical_moves(new_state.variant, kind, moves),
                level=level if kind == TurnKind.RESIGN else "",
                **adapters.position_fields(new_state),
                clock1_ms=clock[0],
                clock2_ms=clock[1],
                clock_source=ClockSource.SERVER if physical_clock is None else ClockSource.PHYSICAL,
                clock_entered_by=recorder(by) if physical_clock is not None else None,
                recorded_by=recorder(by if by is not None else imported_by),
            )
    except IntegrityError as error:  # another connection won the race for this number
        raise TurnConflict(expected + 1, number) from error
    if match.state == MatchState.SCHEDULED:
        match.state = MatchState.PLAYING
        match.started_at = timezone.now()
        match.save(update_fields=["state", "started_at"])
    if new_state.finished:
        _close_game(match, game, new_state.result)  # type: ignore[arg-type]
    return Recorded(turn=turn, state=new_state, game=game)


def _check_physical_clock(match: Match, by: Any) -> None:
    """Refuse a physical clock's reading from anyone ``match.enter_clock`` does not allow:
    a player who could set the clocks could then claim a win on time."""
    if by is None or not permissions.can(by, "match.enter_clock", match):
        raise ValidationError(
            _(
                "Clock readings are refused: the server keeps the players' clocks.  Only an "
                "arbiter of the match, or the scorer an arbiter appointed, enters the "
                "readings of a physical clock."
            ),
            code="clock_not_yours",
        )
    if match.clock_mode == ClockMode.NONE:
        raise ValidationError(
            _("This match is played without a clock: there are no clock readings to enter."),
            code="no_clock",
        )


def _canonical_moves(variant: adapters.Variant, kind: str, written: str) -> str:
    """Store plays in canonical notation, whatever equivalent form was typed."""
    if kind != TurnKind.PLAY:
        return ""
    return adapters.canonical_moves(variant, written)


def _set_result(game: Game, result: eg.GameResult) -> None:
    """The engine's end of the game on its row (not saved)."""
    game.winner = adapters.player_of(result.winner)
    game.result = result.result_name
    game.multiplier = result.multiplier
    game.cube = result.cube
    game.points = result.points
    game.end = {"bearoff": GameEnd.BEAROFF, "pass": GameEnd.PASS, "resign": GameEnd.RESIGN}.get(
        result.end, result.end
    )


def _close_game(match: Match, game: Game, result: eg.GameResult) -> None:
    _set_result(game, result)
    game.save()
    record = adapters.engine_match(
        match, match.games.filter(winner__isnull=False).order_by("number")
    )
    if record.finished:
        final = record.final_score
        _finish_recorded_match(match, final[0], final[1])


def _finish_recorded_match(
    match: Match,
    score1: int,
    score2: int,
    *,
    closed_by: Any = None,
    known: tuple[Sequence[Game], Iterable[tuple[int, str, int | None]]] | None = None,
    first_report: bool = False,
    entrants: Iterable[Any] = (),
    also: Mapping[str, Any] | None = None,
) -> ResultReport:
    """The record gives the result.  It is official at once when each side's actions
    were entered by that side's own player, by an arbiter or organizer of the match,
    or by a scorer in scorer mode (switched on by an arbiter, or by both players):
    the engine checked every action, and each side entered or consented to its own,
    so there is nothing left to confirm.  A side whose actions another player
    entered (a loss on time claimed by the opponent, a match file one player
    uploaded, a money session one player closed) confirms once; the side that
    entered everything counts as the reporter.

    ``known``: the match's games and its live turns' (side, kind, recorded by) as
    the caller holds them already (``record_games`` wrote them all), instead of
    reading them back, and ``entrants`` the users who entered them as the caller
    holds them.  ``first_report``: the match was created in this transaction (it
    has no report to supersede), so a result with nothing to confirm is written
    official at once (``results.official_at_once``).  ``also``: more values of the
    match's fields (an imported file's warnings and dates), saved with its end."""
    match.state = MatchState.FINISHED
    match.finished_at = timezone.now()
    for name, value in (also or {}).items():
        setattr(match, name, value)
    # Its start too: a whole record starts and ends the match in one call.
    fields = ("state", "started_at", "finished_at", *(also or {}))
    unvouched = _sides_entered_by_others(
        match, closed_by, None if known is None else known[1], entrants
    )
    games = adapters.game_log(match.games.order_by("number") if known is None else known[0])
    if first_report and not unvouched:
        return results.official_at_once(
            match,
            source=ReportSource.RECORD,
            score1=score1,
            score2=score2,
            games=games,
            also=fields,
        )
    match.save(update_fields=fields)
    vouched = {1, 2} - unvouched
    report = results.file_report(
        match,
        source=ReportSource.RECORD,
        by=None,
        reporter_side=vouched.pop() if len(vouched) == 1 else None,
        score1=score1,
        score2=score2,
        games=games,
    )
    if not unvouched:
        report.deadline = None  # nothing to wait for
        report.save(update_fields=["deadline"])
        results.make_official(report, match)
    return report


def _sides_entered_by_others(
    match: Match,
    closed_by: Any,
    turns: Iterable[tuple[int, str, int | None]] | None = None,
    entrants: Iterable[Any] = (),
) -> set[int]:
    """Sides with an action in the live record entered by another player (not by
    their own player, an official of the match, or a scorer in scorer mode).
    ``entrants``: users the caller holds (an archive's uploader, whose roles are
    read once for the whole import), not read again."""
    from django.contrib.auth import get_user_model

    own = {1: match.player1.user_id, 2: match.player2.user_id}
    rows = (
        turns
        if turns is not None
        else Turn.objects.filter(game__match=match, undone_at__isnull=True).values_list(
            "side", "kind", "recorded_by_id"
        )
    )
    entered: dict[int, set[int]] = {}  # user -> sides they entered that are not theirs
    for side, kind, entrant in rows:
        if kind == TurnKind.OPENING:  # both dice are rolled at once: either player enters them
            continue
        # An uploaded match file is recorded by the system for the uploader.
        entrant = entrant if entrant is not None else match.created_by_id
        if entrant is not None and entrant != own[side]:
            entered.setdefault(entrant, set()).add(side)
    users = {user.pk: user for user in entrants if user is not None and user.pk in entered}
    if len(users) < len(entered):
        users.update(get_user_model().objects.in_bulk([pk for pk in entered if pk not in users]))
    sides: set[int] = set()
    for pk, their in entered.items():
        user = users.get(pk)
        if user is None or not _vouches_for_both(user, match):
            sides |= their
    closer = side_rules.side_of(closed_by, match)
    if closer is not None and not _vouches_for_both(closed_by, match):
        sides.add(3 - closer)  # closing a money session is the closer's word, like a report
    return sides


def _vouches_for_both(user: Any, match: Match) -> bool:
    return results.enters_officially(user, match) or side_rules.is_scorer(user, match)


@transaction.atomic
def end_session(match: Match, *, by: Any) -> Match:
    """Close a money session (it has no length to reach) at its current score."""
    match = locking.row(Match.objects, pk=match.pk)
    permissions.require(by, "match.record", match)
    if match.length != 0:
        raise ValidationError(_("Only a money session is closed by hand; a match ends when won."))
    games = list(match.games.order_by("number"))
    if games and not games[-1].finished:
        if games[-1].turns.filter(undone_at__isnull=True).exists():
            raise ValidationError(_("Finish the game in progress first."))
        games.pop().delete()
    record = adapters.engine_match(match, games)
    _finish_recorded_match(match, *record.score, closed_by=by)
    return match


@transaction.atomic
def record_timeout(match: Match, *, by: Any, loser: int) -> Match:
    """A player ran out of time: they lose the match (TOURNAMENTS.md, clocks).

    The claim is the opponent's (the side still on time), a scorer's in
    scorer mode, or an arbiter's decision; the player whose flag fell does not
    enter it for the opponent, and nobody else may.

    In a match recorded move by move, a claim other than an arbiter's stands only
    on the server's own reading (``clock_readings.server_flag_fell``): the loser's flag fell by
    the clocks the server charged, and the turn keeps that reading.  A match not
    recorded move by move has no reading at the server: a player's claim there is
    their word, which the loser confirms like a reported result."""
    match = locking.row(Match.objects.select_related("player1", "player2"), pk=match.pk)
    if loser not in (1, 2):
        raise ValidationError(_("The loser is player 1 or player 2."))
    if match.clock_mode == ClockMode.NONE:
        raise ValidationError(_("This match is played without a clock: nobody loses on time."))
    if by is not None and not permissions.can(by, "match.arbitrate", match):
        side_rules.require_side(
            by,
            match,
            3 - loser,
            _("loss on time"),
            _(
                "Only %(name)s, the opponent of the player whose time ran out, "
                "or an arbiter records a loss on time."
            )
            % {"name": match.player(3 - loser)},
        )
    if match.state in (MatchState.FINISHED, MatchState.CANCELLED):
        raise ValidationError(_("The match is over."))
    game = _open_game(match)
    live = list(game.turns.filter(undone_at__isnull=True).order_by("number"))
    reading: list[int | None] = [None, None]
    arbiter_rules = by is None or (
        permissions.can(by, "match.arbitrate", match) and side_rules.side_of(by, match) is None
    )
    if match.recorded and not arbiter_rules:
        reading = list(clock_readings.server_flag_fell(match, game, live, loser))
    Turn.objects.create(
        game=game,
        number=len(live) + 1,
        side=loser,
        kind=TurnKind.TIMEOUT,
        clock1_ms=reading[0],
        clock2_ms=reading[1],
        recorded_by=recorder(by),
    )
    winner = 3 - loser
    game.winner, game.result, game.multiplier, game.points, game.end = (
        winner,
        "time",
        1,
        0,
        GameEnd.TIME,
    )
    game.save()
    match.lost_on_time = True
    match.state = MatchState.FINISHED
    match.finished_at = timezone.now()
    match.save(update_fields=["lost_on_time", "state", "finished_at"])
    scores = [game.score1_before, game.score2_before]
    if match.length:
        scores[winner - 1] = match.length  # the match is awarded to the player still on time
    # Official at once when an arbiter records it; the loser confirms a claim by
    # the opponent (``_finish_recorded_match``).
    _finish_recorded_match(match, scores[0], scores[1])
    return match
