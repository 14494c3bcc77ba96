"""Every change to matches, games, turns and results.

Recording a turn locks the match row, replays the current game through the
engine, applies the new action and saves it in one transaction: an illegal
turn is refused with the engine's code and reason and saves nothing, and of
two clients sending the same turn exactly one is saved (the turn number
guards it).  A result becomes official only when it is confirmed.
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from clubs import permissions
from clubs.models import Discipline, Federation, Player
from engine import game as eg
from engine.errors import EngineError
from engine.notation import format_moves, parse_moves
from games import adapters, clocks, scorecheck
from games.events import result_confirmed, result_withdrawn
from games.models import (
    ClockMode,
    Game,
    GameEnd,
    Match,
    MatchState,
    ReportResponse,
    ReportSource,
    ReportStatus,
    ResponseKind,
    ResultReport,
    ResultStatus,
    Turn,
    TurnKind,
    UndoRequest,
)


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
    """The engine refused the turn: ``code`` and ``reason`` come from it."""

    def __init__(self, error: EngineError, turn: int) -> None:
        super().__init__(error.reason)
        self.code = error.code
        self.reason = error.reason
        self.turn = turn
        self.data = {k: v for k, v in error.data.items() if k != "turn"}


def _player_side(user: Any, match: Match) -> int | None:
    """1 or 2 when ``user`` is linked to that player of the match."""
    if user is None or not user.is_authenticated:
        return None
    if match.player1.user_id == user.pk:
        return 1
    if match.player2.user_id == user.pk:
        return 2
    return None


# --- Matches


@transaction.atomic
def create_match(
    *,
    by: Any,
    player1: Player,
    player2: Player,
    discipline: Discipline,
    length: int,
    federation: Federation | None = None,
    recorded: bool = False,
    clock_mode: str = ClockMode.NONE,
    clock_reserve_seconds: int = 0,
    clock_per_point_seconds: int = 0,
    clock_move_seconds: int = 0,
) -> Match:
    if player1.pk == player2.pk:
        raise ValidationError(_("A match needs two different players."))
    match = Match(
        player1=player1,
        player2=player2,
        discipline=discipline,
        federation=federation or player1.federation,
        length=length,
        recorded=recorded,
        clock_mode=clock_mode,
        clock_reserve_seconds=clock_reserve_seconds,
        clock_per_point_seconds=clock_per_point_seconds,
        clock_move_seconds=clock_move_seconds,
        created_by=by if by is not None and by.is_authenticated else None,
    )
    permissions.require(by, "match.create", match)
    match.full_clean()
    match.save()
    return match


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
    clock: tuple[int | None, int | None] = (None, None),
) -> Recorded:
    """Record the next action of the current game; ``number`` must be the next turn number."""
    match = (
        Match.objects.select_for_update(of=("self",))
        .select_related("player1", "player2", "discipline")
        .get(pk=match.pk)
    )
    permissions.require(by, "match.record", match)
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
    try:
        new_state = adapters.apply_turn(
            state, adapters.TurnInput(kind, tuple(dice), moves.strip(), level)
        )
    except EngineError as error:
        raise RecordingError(error, expected) from error
    side = adapters.player_of(new_state.starter if kind == TurnKind.OPENING else actor)  # type: ignore[arg-type]
    if match.clock_mode != ClockMode.NONE and clock == (None, None):
        clock = _charged_clock(match, live, side, kind)
    try:
        with transaction.atomic():
            turn = Turn.objects.create(
                game=game,
                number=expected,
                side=side,
                kind=kind,
                dice=list(dice) if kind in (TurnKind.OPENING, TurnKind.PLAY) else [],
                moves=_canonical_moves(kind, moves),
                level=level if kind == TurnKind.RESIGN else "",
                position_id=adapters.position_id(new_state),
                clock1_ms=clock[0],
                clock2_ms=clock[1],
                recorded_by=by if by is not None and by.is_authenticated else None,
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


def _charged_clock(
    match: Match, live: Sequence[Turn], side: int, kind: str
) -> tuple[int | None, int | None]:
    """Both reserves once this turn is recorded: the time since the game's previous
    turn is charged to ``side`` (games.clocks).  The opening roll charges nobody."""
    values = list(adapters.stored_clocks(match))
    if kind != TurnKind.OPENING and live:
        elapsed = int((timezone.now() - live[-1].recorded_at).total_seconds() * 1000)
        values[side - 1] = clocks.after_move(
            match.clock_mode, match.clock_move_seconds, values[side - 1], elapsed
        )
    return values[0], values[1]


def _canonical_moves(kind: str, written: str) -> str:
    """Store plays in canonical notation, whatever equivalent form was typed."""
    if kind != TurnKind.PLAY:
        return ""
    return format_moves(parse_moves(written)) if written.strip() else "Ø"


def _close_game(match: Match, game: Game, result: eg.GameResult) -> None:
    end = {"bearoff": GameEnd.BEAROFF, "pass": GameEnd.PASS, "resign": GameEnd.RESIGN}.get(
        result.end, result.end
    )
    game.winner = adapters.player_of(result.winner)
    game.result = result.result_name
    game.multiplier = result.multiplier
    game.cube = result.cube
    game.points = result.points
    game.end = end
    game.save()
    record = adapters.engine_match(
        match, match.games.filter(winner__isnull=False).order_by("number")
    )
    if record.finished:
        final = record.final_score
        _finish_recorded_match(match, final[0], final[1])


def _finish_recorded_match(match: Match, score1: int, score2: int) -> None:
    match.state = MatchState.FINISHED
    match.finished_at = timezone.now()
    match.save(update_fields=["state", "finished_at"])
    _open_report(
        match,
        source=ReportSource.RECORD,
        by=None,
        reporter_side=None,
        score1=score1,
        score2=score2,
        games=adapters.game_log(match.games.order_by("number")),
    )


@transaction.atomic
def end_session(match: Match, *, by: Any) -> Match:
    """Close a money session (it has no length to reach) at its current score."""
    match = Match.objects.select_for_update().get(pk=match.pk)
    permissions.require(by, "match.record", match)
    if match.length != 0:
        raise ValidationError(_("Only a money session is closed by hand; a match ends when won."))
    games = list(match.games.order_by("number"))
    if games and not games[-1].finished:
        if games[-1].turns.filter(undone_at__isnull=True).exists():
            raise ValidationError(_("Finish the game in progress first."))
        games.pop().delete()
    record = adapters.engine_match(match, games)
    _finish_recorded_match(match, *record.score)
    return match


@transaction.atomic
def record_timeout(match: Match, *, by: Any, loser: int) -> Match:
    """A player ran out of time: they lose the match (TOURNAMENTS.md, clocks)."""
    match = Match.objects.select_for_update().get(pk=match.pk)
    permissions.require(by, "match.record", match)
    if loser not in (1, 2):
        raise ValidationError(_("The loser is player 1 or player 2."))
    if match.state in (MatchState.FINISHED, MatchState.CANCELLED):
        raise ValidationError(_("The match is over."))
    game = _open_game(match)
    live = game.turns.filter(undone_at__isnull=True).count()
    Turn.objects.create(
        game=game,
        number=live + 1,
        side=loser,
        kind=TurnKind.TIMEOUT,
        recorded_by=by if by is not None and by.is_authenticated else None,
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
    _open_report(
        match,
        source=ReportSource.RECORD,
        by=None,
        reporter_side=None,
        score1=scores[0],
        score2=scores[1],
        games=adapters.game_log(match.games.order_by("number")),
    )
    return match


# --- Undo


@transaction.atomic
def request_undo(match: Match, *, by: Any) -> UndoRequest:
    """A player asks to take back the last live turn; the opponent must agree."""
    match = (
        Match.objects.select_for_update(of=("self",))
        .select_related("player1", "player2")
        .get(pk=match.pk)
    )
    side = _player_side(by, match)
    if side is None:
        raise ValidationError(_("Only a player of the match can ask to undo a turn."))
    turn = _last_live_turn(match)
    UndoRequest.objects.filter(match=match, closed_at__isnull=True).update(closed_at=timezone.now())
    return UndoRequest.objects.create(match=match, turn=turn, requested_by=by, requester_side=side)


@transaction.atomic
def agree_undo(request: UndoRequest, *, by: Any) -> Turn:
    match = (
        Match.objects.select_for_update(of=("self",))
        .select_related("player1", "player2")
        .get(pk=request.match_id)
    )
    request = UndoRequest.objects.select_for_update().get(pk=request.pk)
    if request.closed_at is not None:
        raise ValidationError(_("This undo request is closed."))
    if _player_side(by, match) != 3 - request.requester_side:
        raise ValidationError(_("The opponent of the player who asked must agree."))
    if _last_live_turn(match).pk != request.turn_id:
        raise ValidationError(_("The game has moved on since the request; ask again."))
    request.agreed_by = by
    request.closed_at = timezone.now()
    request.save(update_fields=["agreed_by", "closed_at"])
    return _undo(match, by)


@transaction.atomic
def arbiter_undo(match: Match, *, by: Any) -> Turn:
    match = Match.objects.select_for_update().get(pk=match.pk)
    permissions.require(by, "match.arbitrate", match)
    return _undo(match, by)


def _last_live_turn(match: Match) -> Turn:
    turn = (
        Turn.objects.filter(game__match=match, undone_at__isnull=True)
        .order_by("-game__number", "-number")
        .select_related("game")
        .first()
    )
    if turn is None:
        raise ValidationError(_("There is no turn to undo."))
    return turn


def _undo(match: Match, by: Any) -> Turn:
    """Mark the last live turn undone (kept in the history) and reopen what it closed."""
    turn = _last_live_turn(match)
    if match.result_status == ResultStatus.CONFIRMED:
        raise ValidationError(_("The result is confirmed; only an override can change it."))
    turn.undone_at = timezone.now()
    turn.undone_by = by if by is not None and by.is_authenticated else None
    turn.save(update_fields=["undone_at", "undone_by"])
    game = turn.game
    if game.finished:
        game.winner = None
        game.result, game.end = "", ""
        game.multiplier = game.points = None
        game.cube = 1
        game.save()
        # A later game opened by the end of this one has no turns yet: remove it.
        match.games.filter(number__gt=game.number, turns__isnull=True).delete()
    if match.state == MatchState.FINISHED:
        match.state = MatchState.PLAYING
        match.finished_at = None
        match.lost_on_time = False
        match.save(update_fields=["state", "finished_at", "lost_on_time"])
        match.reports.filter(status__in=[ReportStatus.PENDING, ReportStatus.DISPUTED]).update(
            status=ReportStatus.SUPERSEDED, decided_at=timezone.now()
        )
        match.result_status = ResultStatus.NONE
        match.save(update_fields=["result_status"])
    return turn


# --- Result reports


def _deadline() -> datetime.datetime:
    return timezone.now() + datetime.timedelta(hours=settings.RESULT_CONFIRMATION_HOURS)


def _open_report(
    match: Match,
    *,
    source: str,
    by: Any,
    reporter_side: int | None,
    score1: int,
    score2: int,
    games: list[dict[str, Any]],
    mat_text: str = "",
    reason: str = "",
) -> ResultReport:
    match.reports.filter(status__in=[ReportStatus.PENDING, ReportStatus.DISPUTED]).update(
        status=ReportStatus.SUPERSEDED, decided_at=timezone.now()
    )
    report = ResultReport.objects.create(
        match=match,
        source=source,
        reported_by=by if by is not None and by.is_authenticated else None,
        reporter_side=reporter_side,
        score1=score1,
        score2=score2,
        games=games,
        mat_text=mat_text,
        reason=reason,
        deadline=_deadline(),
    )
    match.result_status = ResultStatus.PENDING
    match.save(update_fields=["result_status"])
    return report


@transaction.atomic
def submit_report(
    match: Match,
    *,
    by: Any,
    score1: int,
    score2: int,
    games: list[dict[str, Any]] | None = None,
    mat_text: str = "",
) -> ResultReport:
    """A player reports the final score (optionally with the game log or a .mat file)."""
    match = (
        Match.objects.select_for_update(of=("self",))
        .select_related("player1", "player2", "discipline")
        .get(pk=match.pk)
    )
    permissions.require(by, "match.report", match)
    if match.result_status == ResultStatus.CONFIRMED:
        raise ValidationError(_("The result is confirmed; only an override can change it."))
    if match.recorded and match.games.exists():
        raise ValidationError(
            _("This match is recorded move by move; its record gives the result.")
        )
    log = list(games or [])
    if mat_text.strip():
        log, final = adapters.log_from_mat(match, mat_text)
        if (score1, score2) != final:
            raise ValidationError(
                _("The match file ends %(a)d–%(b)d, not %(c)d–%(d)d as reported.")
                % {"a": final[0], "b": final[1], "c": score1, "d": score2}
            )
    adapters.check_report(match, score1, score2, log)
    side = _player_side(by, match)
    report = _open_report(
        match,
        source=ReportSource.PLAYER,
        by=by,
        reporter_side=side,
        score1=score1,
        score2=score2,
        games=log,
        mat_text=mat_text,
    )
    if match.state == MatchState.SCHEDULED:
        match.state = MatchState.FINISHED
        match.finished_at = timezone.now()
        match.save(update_fields=["state", "finished_at"])
    return report


def _lock_open_report(report: ResultReport) -> tuple[ResultReport, Match]:
    report = ResultReport.objects.select_for_update().get(pk=report.pk)
    match = (
        Match.objects.select_for_update(of=("self",))
        .select_related("player1", "player2")
        .get(pk=report.match_id)
    )
    return report, match


def _confirmers(report: ResultReport) -> set[int]:
    """Player sides that have confirmed (the reporter counts for their side)."""
    sides: set[int] = set()
    match = report.match
    for response in report.responses.filter(kind=ResponseKind.CONFIRM).select_related("by"):
        side = _player_side(response.by, match)
        if side:
            sides.add(side)
    if report.reporter_side:
        sides.add(report.reporter_side)
    return sides


@transaction.atomic
def confirm_report(report: ResultReport, *, by: Any) -> ResultReport:
    report, match = _lock_open_report(report)
    if report.status != ReportStatus.PENDING:
        raise ValidationError(
            _("This result can no longer be confirmed (it is %(status)s).")
            % {"status": report.get_status_display()}
        )
    side = _player_side(by, match)
    if side is None or side == report.reporter_side:
        raise ValidationError(_("Only the opponent of the player who reported can confirm."))
    if report.responses.filter(kind=ResponseKind.CONFIRM, by=by).exists():
        raise ValidationError(_("You have confirmed this result already."))
    ReportResponse.objects.create(report=report, kind=ResponseKind.CONFIRM, by=by)
    if _confirmers(report) >= {1, 2}:
        _make_official(report, match)
    return report


@transaction.atomic
def dispute_report(report: ResultReport, *, by: Any, reason: str) -> ResultReport:
    report, match = _lock_open_report(report)
    if report.status != ReportStatus.PENDING:
        raise ValidationError(
            _("This result can no longer be disputed (it is %(status)s).")
            % {"status": report.get_status_display()}
        )
    side = _player_side(by, match)
    if side is None or side == report.reporter_side:
        raise ValidationError(_("Only the opponent of the player who reported can dispute."))
    if not reason.strip():
        raise ValidationError(_("Say what is wrong with the reported result."))
    ReportResponse.objects.create(report=report, kind=ResponseKind.DISPUTE, by=by, reason=reason)
    report.status = ReportStatus.DISPUTED
    report.save(update_fields=["status"])
    match.result_status = ResultStatus.DISPUTED
    match.save(update_fields=["result_status"])
    return report


@transaction.atomic
def decide_dispute(
    report: ResultReport,
    *,
    by: Any,
    uphold: bool,
    reason: str,
    score1: int | None = None,
    score2: int | None = None,
) -> ResultReport:
    """The arbiter upholds the report or sets the result; the decision is official."""
    report, match = _lock_open_report(report)
    permissions.require(by, "match.arbitrate", match)
    if report.status != ReportStatus.DISPUTED:
        raise ValidationError(_("Only a disputed result is decided by the arbiter."))
    if not reason.strip():
        raise ValidationError(_("Give the reason for the decision."))
    if uphold:
        ReportResponse.objects.create(report=report, kind=ResponseKind.UPHOLD, by=by, reason=reason)
        _make_official(report, match)
        return report
    if score1 is None or score2 is None:
        raise ValidationError(_("Give the score the arbiter decided."))
    adapters.check_report(match, score1, score2, [])
    ReportResponse.objects.create(report=report, kind=ResponseKind.OVERTURN, by=by, reason=reason)
    report.status = ReportStatus.REJECTED
    report.decided_at = timezone.now()
    report.save(update_fields=["status", "decided_at"])
    decision = ResultReport.objects.create(
        match=match,
        source=ReportSource.ARBITER,
        reported_by=by,
        score1=score1,
        score2=score2,
        reason=reason,
        status=ReportStatus.PENDING,
    )
    _make_official(decision, match)
    return decision


@transaction.atomic
def override_result(
    match: Match, *, by: Any, score1: int, score2: int, reason: str, forfeit: bool = False
) -> ResultReport:
    """An organizer sets the result with a written reason (kept with every earlier version)."""
    match = Match.objects.select_for_update().get(pk=match.pk)
    permissions.require(by, "match.override", match)
    if not reason.strip():
        raise ValidationError(_("An override needs a written reason."))
    adapters.check_report(match, score1, score2, [])
    match.reports.filter(
        status__in=[ReportStatus.PENDING, ReportStatus.DISPUTED, ReportStatus.CONFIRMED]
    ).update(status=ReportStatus.SUPERSEDED, decided_at=timezone.now())
    report = ResultReport.objects.create(
        match=match,
        source=ReportSource.OVERRIDE,
        reported_by=by,
        score1=score1,
        score2=score2,
        reason=reason,
    )
    match.forfeit = forfeit
    match.save(update_fields=["forfeit"])
    _make_official(report, match)
    return report


@transaction.atomic
def cancel_match(match: Match, *, by: Any, reason: str) -> Match:
    """The organizer voids a match: nobody wins it (both absent, paired by mistake...).

    Open and confirmed reports are superseded (kept, like every version), the
    turns stay as a record, and a result the match had stops counting
    (``result_withdrawn``).  An override later gives it a result again.
    """
    match = Match.objects.select_for_update().get(pk=match.pk)
    permissions.require(by, "match.override", match)
    if match.state == MatchState.CANCELLED:
        raise ValidationError(_("The match %(match)s is cancelled already.") % {"match": match})
    if not reason.strip():
        raise ValidationError(_("Cancelling a match needs a written reason."))
    had_result = match.result_status == ResultStatus.CONFIRMED
    now = timezone.now()
    match.reports.filter(
        status__in=[ReportStatus.PENDING, ReportStatus.DISPUTED, ReportStatus.CONFIRMED]
    ).update(status=ReportStatus.SUPERSEDED, decided_at=now)
    match.undo_requests.filter(closed_at__isnull=True).update(closed_at=now)
    match.state = MatchState.CANCELLED
    match.result_status = ResultStatus.NONE
    match.score1 = match.score2 = match.winner = None
    match.forfeit = match.lost_on_time = False
    match.cancel_reason = reason.strip()
    match.cancelled_at = now
    match.save(
        update_fields=[
            "state",
            "result_status",
            "score1",
            "score2",
            "winner",
            "forfeit",
            "lost_on_time",
            "cancel_reason",
            "cancelled_at",
        ]
    )
    if had_result:
        result_withdrawn.send(match_id=match.pk)
    return match


def _make_official(report: ResultReport, match: Match) -> None:
    report.status = ReportStatus.CONFIRMED
    report.decided_at = timezone.now()
    report.save(update_fields=["status", "decided_at"])
    match.score1, match.score2 = report.score1, report.score2
    match.winner = scorecheck.winner_of(match.length, report.score1, report.score2)
    match.result_status = ResultStatus.CONFIRMED
    match.state = MatchState.FINISHED
    match.finished_at = match.finished_at or timezone.now()
    match.cancelled_at = None  # an override gives a cancelled match its result
    match.save(
        update_fields=[
            "score1",
            "score2",
            "winner",
            "result_status",
            "state",
            "finished_at",
            "cancelled_at",
        ]
    )
    result_confirmed.send(match_id=match.pk)


def confirm_overdue_reports(now: datetime.datetime | None = None) -> int:
    """Reports nobody answered by their deadline become official (a periodic task)."""
    now = now or timezone.now()
    confirmed = 0
    overdue = ResultReport.objects.filter(
        status=ReportStatus.PENDING, deadline__lt=now
    ).values_list("pk", flat=True)
    for pk in list(overdue):
        with transaction.atomic():
            report = (
                ResultReport.objects.select_for_update()
                .filter(pk=pk, status=ReportStatus.PENDING, deadline__lt=now)
                .first()
            )
            if report is None:  # decided meanwhile, or by another run of this task
                continue
            match = Match.objects.select_for_update().get(pk=report.match_id)
            ReportResponse.objects.create(report=report, kind=ResponseKind.AUTO)
            _make_official(report, match)
            confirmed += 1
    return confirmed


def pending_for(user: Any) -> Q:
    """Reports waiting for ``user`` to answer (as a queryset filter)."""
    return (
        Q(status=ReportStatus.PENDING)
        & (Q(match__player1__user=user) | Q(match__player2__user=user))
        & ~Q(reported_by=user)
    )


# --- Importing a .mat file (added for the match file upload)


def _mat_error(error: EngineError) -> ValidationError:
    return ValidationError(
        _("The match file is not valid: %(reason)s") % {"reason": error.reason},
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
    from engine import matfile
    from engine.notation import format_play

    try:
        parsed = matfile.parse_mat(file_text)
    except EngineError as error:
        raise _mat_error(error) from error
    variant = parsed.settings.variant
    if variant.name != discipline.variant:
        raise ValidationError(
            _("The match file is %(file)s, but %(discipline)s is another game.")
            % {"file": variant.name, "discipline": discipline}
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
                record_turn(match, by=None, number=number, kind=kind, **turn)
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
