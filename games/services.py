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
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from base import locking
from base.engine_messages import message_for, variant_label
from clubs import permissions
from clubs.models import Discipline, Federation, Player
from engine.errors import EngineError
from engine.records.notation import format_moves, parse_moves
from engine.rules import game as eg
from games import adapters, clocks, scorecheck
from games import permissions as side_rules
from games.events import result_confirmed, result_withdrawn
from games.models import (
    ClockMode,
    ClockSource,
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
    match = (
        Match.objects.select_for_update(of=("self",))
        .select_related("player1", "player2", "discipline")
        .get(pk=match.pk)
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
                clock_source=ClockSource.SERVER if physical_clock is None else ClockSource.PHYSICAL,
                clock_entered_by=_recorder(by) if physical_clock is not None else None,
                recorded_by=_recorder(by if by is not None else imported_by),
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


def _recorder(user: Any) -> Any:
    """The user kept as having entered a turn (None only for the system)."""
    return user if user is not None and user.is_authenticated else None


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


def clocks_now(
    match: Match,
    turns: Sequence[Turn],
    state: eg.GameState,
    now: datetime.datetime | None = None,
) -> dict[str, Any]:
    """Both clocks of a clocked match at ``now`` (games.clocks.running_clocks), from
    what the server recorded: the readings kept with the turns, less what the side
    to act has used since the game's last turn was recorded.  ``turns`` are the live
    turns of the game on the board and ``state`` its engine state.  The clock runs
    from the game's first turn on, for whoever must act, until the match ends."""
    to_act = state.to_act
    running = None
    if match.recorded and match.state == MatchState.PLAYING and turns and to_act is not None:
        running = adapters.player_of(to_act)
    return clocks.running_clocks(
        mode=match.clock_mode,
        move_seconds=match.clock_move_seconds,
        stored_ms=adapters.stored_clocks(match),
        running=running,
        since=turns[-1].recorded_at if turns else None,
        now=timezone.now() if now is None else now,
    )


def last_reading_is_physical(match: Match) -> bool:
    """Whether the newest clock reading of the match was read off a physical clock."""
    source = (
        Turn.objects.filter(game__match=match, undone_at__isnull=True)
        .filter(Q(clock1_ms__isnull=False) | Q(clock2_ms__isnull=False))
        .order_by("-game__number", "-number")
        .values_list("clock_source", flat=True)
        .first()
    )
    return source == ClockSource.PHYSICAL


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


def _finish_recorded_match(
    match: Match, score1: int, score2: int, *, closed_by: Any = None
) -> ResultReport:
    """The record gives the result.  It is official at once when each side's actions
    were entered by that side's own player, by an arbiter or organizer of the match,
    or by a scorer in scorer mode (switched on by an arbiter, or by both players):
    the engine checked every action, and each side entered or consented to its own,
    so there is nothing left to confirm.  A side whose actions another player
    entered (a loss on time claimed by the opponent, a match file one player
    uploaded, a money session one player closed) confirms once; the side that
    entered everything counts as the reporter."""
    match.state = MatchState.FINISHED
    match.finished_at = timezone.now()
    match.save(update_fields=["state", "finished_at"])
    unvouched = _sides_entered_by_others(match, closed_by)
    vouched = {1, 2} - unvouched
    report = _open_report(
        match,
        source=ReportSource.RECORD,
        by=None,
        reporter_side=vouched.pop() if len(vouched) == 1 else None,
        score1=score1,
        score2=score2,
        games=adapters.game_log(match.games.order_by("number")),
    )
    if not unvouched:
        report.deadline = None  # nothing to wait for
        report.save(update_fields=["deadline"])
        _make_official(report, match)
    return report


def _sides_entered_by_others(match: Match, closed_by: Any) -> set[int]:
    """Sides with an action in the live record entered by another player (not by
    their own player, an official of the match, or a scorer in scorer mode)."""
    from django.contrib.auth import get_user_model

    own = {1: match.player1.user_id, 2: match.player2.user_id}
    rows = Turn.objects.filter(game__match=match, undone_at__isnull=True).values_list(
        "side", "kind", "recorded_by_id"
    )
    entered: dict[int, set[int]] = {}  # user -> sides they entered that are not theirs
    for side, kind, entrant in rows:
        if kind == TurnKind.OPENING:  # both dice are rolled at once: either player enters them
            continue
        # An uploaded match file is recorded by the system for the uploader.
        entrant = entrant if entrant is not None else match.created_by_id
        if entrant is not None and entrant != own[side]:
            entered.setdefault(entrant, set()).add(side)
    users = get_user_model().objects.in_bulk(list(entered))
    sides: set[int] = set()
    for pk, their in entered.items():
        user = users.get(pk)
        if user is None or not _vouches_for_both(user, match):
            sides |= their
    closer = _player_side(closed_by, match)
    if closer is not None and not _vouches_for_both(closed_by, match):
        sides.add(3 - closer)  # closing a money session is the closer's word, like a report
    return sides


def _vouches_for_both(user: Any, match: Match) -> bool:
    return enters_officially(user, match) or side_rules.is_scorer(user, match)


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
    _finish_recorded_match(match, *record.score, closed_by=by)
    return match


@transaction.atomic
def record_timeout(match: Match, *, by: Any, loser: int) -> Match:
    """A player ran out of time: they lose the match (TOURNAMENTS.md, clocks).

    The claim is the opponent's (the side still on time), a scorer's in
    scorer mode, or an arbiter's decision; the player whose flag fell does not
    enter it for the opponent, and nobody else may.

    In a match recorded move by move, a claim other than an arbiter's stands only
    on the server's own reading (``_server_flag_fell``): the loser's flag fell by
    the clocks the server charged, and the turn keeps that reading.  A match not
    recorded move by move has no reading at the server: a player's claim there is
    their word, which the loser confirms like a reported result."""
    match = (
        Match.objects.select_for_update(of=("self",))
        .select_related("player1", "player2")
        .get(pk=match.pk)
    )
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
        permissions.can(by, "match.arbitrate", match) and _player_side(by, match) is None
    )
    if match.recorded and not arbiter_rules:
        reading = list(_server_flag_fell(match, game, live, loser))
    Turn.objects.create(
        game=game,
        number=len(live) + 1,
        side=loser,
        kind=TurnKind.TIMEOUT,
        clock1_ms=reading[0],
        clock2_ms=reading[1],
        recorded_by=_recorder(by),
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
    # the opponent (games.services._finish_recorded_match).
    _finish_recorded_match(match, scores[0], scores[1])
    return match


def _server_flag_fell(match: Match, game: Game, live: list[Turn], loser: int) -> list[int]:
    """Both clocks now, as the server charged them, when they show that ``loser``'s
    flag fell; else ValidationError.  Readings of a physical clock are the
    arbiter's to rule on: a claim on them is refused."""
    if last_reading_is_physical(match):
        raise ValidationError(
            _(
                "The clocks of this match are read off a physical clock: the arbiter "
                "rules on a loss on time."
            ),
            code="arbiter_rules_on_time",
        )
    state = adapters.replay(match, game, live)
    remaining: list[int] = clocks_now(match, live, state)["remaining_ms"]
    if remaining[loser - 1] > 0:
        raise ValidationError(
            _(
                "%(name)s still has %(left)s on the clock: a loss on time is claimed "
                "only once their time has run out."
            )
            % {"name": match.player(loser), "left": _clock_text(remaining[loser - 1])},
            code="time_left",
        )
    return remaining


def _clock_text(ms: int) -> str:
    """The time left in whole seconds, rounded up: a clock with time left never reads 0:00."""
    from games.queries import clock_reading  # games.queries reads through this module

    return clock_reading(-(-ms // 1000) * 1000)


# --- Undo


@transaction.atomic
def request_undo(match: Match, *, by: Any, side: int | None = None) -> UndoRequest:
    """A player asks to take back the last live turn; the opponent must agree.

    The request is made for the asker's own side; a scorer in scorer mode asks
    for ``side`` (by default the side that made the last turn)."""
    match = (
        Match.objects.select_for_update(of=("self",))
        .select_related("player1", "player2")
        .get(pk=match.pk)
    )
    turn = _last_live_turn(match)
    if side is None:
        side = _player_side(by, match) or turn.side
    if side not in (1, 2):
        raise ValidationError(_("The side is player 1 or player 2."))
    side_rules.require_side(
        by,
        match,
        side,
        _("ask to undo the last turn"),
        _(
            "Only a player of the match asks to undo a turn, for their own side "
            "(or a scorer in scorer mode)."
        ),
    )
    UndoRequest.objects.filter(match=match, closed_at__isnull=True).update(closed_at=timezone.now())
    return UndoRequest.objects.create(match=match, turn=turn, requested_by=by, requester_side=side)


@transaction.atomic
def agree_undo(request: UndoRequest, *, by: Any) -> Turn:
    match = locking.row(Match.objects.select_related("player1", "player2"), pk=request.match_id)
    request = locking.row(UndoRequest.objects, pk=request.pk)
    if request.closed_at is not None:
        raise ValidationError(_("This undo request is closed."))
    opponent = 3 - request.requester_side
    side_rules.require_side(
        by,
        match,
        opponent,
        _("agree to undo"),
        _("Only %(name)s, the opponent of the player who asked, can agree to undo the turn.")
        % {"name": match.player(opponent)},
    )
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


# --- Scorer mode


@transaction.atomic
def set_scorer_mode(match: Match, *, by: Any, on: bool) -> Match:
    """Switch scorer mode (one device enters both sides) on or off.

    An arbiter of the match switches it on or off at once and is kept as the
    scorer.  Players need both to consent: the first to ask only proposes it
    (``scorer_proposed_by``), the opponent's ask switches it on; either player
    withdraws a proposal or switches off the mode they agreed to, but not one
    an arbiter switched on.
    """
    match = (
        Match.objects.select_for_update(of=("self",))
        .select_related("player1", "player2")
        .get(pk=match.pk)
    )
    permissions.require(by, "match.switch_scorer_mode", match)
    if match.state in (MatchState.FINISHED, MatchState.CANCELLED) and on:
        raise ValidationError(_("The match is over."))
    fields = ["scorer_mode", "scorer", "scorer_proposed_by"]
    if permissions.can(by, "match.arbitrate", match):
        match.scorer_mode, match.scorer, match.scorer_proposed_by = on, by if on else None, None
        match.save(update_fields=fields)
        return match
    side = _player_side(by, match)
    assert side is not None  # match.switch_scorer_mode: a player or an arbiter
    if on:
        if match.scorer_mode:
            raise ValidationError(_("Scorer mode is on already."))
        if match.scorer_proposed_by == side:
            raise ValidationError(
                _("You proposed scorer mode already; %(name)s has to agree.")
                % {"name": match.player(3 - side)}
            )
        if match.scorer_proposed_by == 3 - side:  # the opponent proposed it: both agree now
            match.scorer_mode, match.scorer, match.scorer_proposed_by = True, None, None
        else:
            match.scorer_proposed_by = side
        match.save(update_fields=fields)
        return match
    if match.scorer_mode and match.scorer_id is not None:
        raise PermissionDenied(
            _("An arbiter switched scorer mode on for this match; only an arbiter switches it off.")
        )
    match.scorer_mode, match.scorer, match.scorer_proposed_by = False, None, None
    match.save(update_fields=fields)
    return match


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


def enters_officially(user: Any, match: Match) -> bool:
    """Whether a result ``user`` enters for ``match`` is official at once: an arbiter
    or organizer of the match (games and tournaments rules), or the system
    (``None``).  An official who plays in the match reports as a player: their
    opponent confirms, as for anyone else."""
    if user is None:
        return True
    if not user.is_authenticated or _player_side(user, match) is not None:
        return False
    return permissions.can(user, "match.arbitrate", match) or permissions.can(
        user, "match.override", match
    )


def _sides_to_answer(report: ResultReport) -> set[int]:
    """Player sides whose confirmation ``report`` still waits for."""
    return {1, 2} - _confirmers(report)


def absent_players(report: ResultReport) -> list[Player]:
    """Players whose confirmation a pending ``report`` waits for but who have no
    account to give it: a club or federation official answers for them."""
    if report.status != ReportStatus.PENDING:
        return []
    match = report.match
    return [
        match.player(side)
        for side in sorted(_sides_to_answer(report))
        if match.player(side).user_id is None
    ]


def awaits_official(report: ResultReport) -> bool:
    """The report counts only once an official confirms it (its opponent cannot)."""
    return bool(absent_players(report))


def answers_for_absent(user: Any, report: ResultReport) -> bool:
    """Whether ``user`` may confirm or dispute ``report`` for the players who cannot:
    an official who manages each of them (or arbitrates the match), who neither
    plays in the match nor reported the result."""
    if user is None or not user.is_authenticated:
        return False
    match = report.match
    if _player_side(user, match) is not None or report.reported_by_id == user.pk:
        return False
    return awaits_official(report) and permissions.can(user, "match.answer_for_absent", match)


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
    # Nobody answers for a player without an account when the deadline passes: the
    # report waits for an official instead (no deadline).
    answering = {1, 2} - {reporter_side}
    silent = any(match.player(side).user_id is None for side in answering)
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
        deadline=None if silent else _deadline(),
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
    """Report the final score (optionally with the game log or a .mat file).

    A player's report waits for the opponent's confirmation.  An arbiter or
    organizer of the match who does not play in it enters the result: it is
    official at once, recorded as theirs (``ReportSource.OFFICIAL``)."""
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
    official = enters_officially(by, match)
    if official and match.result_status == ResultStatus.DISPUTED:
        raise ValidationError(
            _("The reported result is disputed: decide the dispute, giving the reason.")
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
    report = _open_report(
        match,
        source=ReportSource.OFFICIAL if official else ReportSource.PLAYER,
        by=by,
        reporter_side=None if official else _player_side(by, match),
        score1=score1,
        score2=score2,
        games=log,
        mat_text=mat_text,
    )
    if official:
        report.deadline = None
        report.save(update_fields=["deadline"])
        _make_official(report, match)
    elif match.state == MatchState.SCHEDULED:
        match.state = MatchState.FINISHED
        match.finished_at = timezone.now()
        match.save(update_fields=["state", "finished_at"])
    return report


def _lock_open_report(report: ResultReport) -> tuple[ResultReport, Match]:
    # The match first, then the report (base.locking): an override locks them so too.
    match_id = ResultReport.objects.values_list("match_id", flat=True).get(pk=report.pk)
    match = locking.row(Match.objects.select_related("player1", "player2"), pk=match_id)
    report = locking.row(ResultReport.objects, pk=report.pk)
    report.match = match
    return report, match


def _confirmers(report: ResultReport) -> set[int]:
    """Player sides that have confirmed (the reporter counts for their side)."""
    sides: set[int] = set()
    match = report.match
    # All responses, filtered here: a page or the API may have prefetched them.
    for response in report.responses.all():
        side = _player_side(response.by, match) if response.kind == ResponseKind.CONFIRM else None
        if side:
            sides.add(side)
    if report.reporter_side:
        sides.add(report.reporter_side)
    return sides


@transaction.atomic
def confirm_report(report: ResultReport, *, by: Any) -> ResultReport:
    """The opponent of the reporter confirms (a record with both sides to answer
    needs both players).  For a player without an account, an official who
    manages them confirms instead, and the result is official at once."""
    report, match = _lock_open_report(report)
    if report.status != ReportStatus.PENDING:
        raise ValidationError(
            _("This result can no longer be confirmed (it is %(status)s).")
            % {"status": report.get_status_display()}
        )
    # Nobody confirms a result they reported, whichever side (or none) it was filed for.
    if report.reported_by_id is not None and report.reported_by_id == by.pk:
        raise ValidationError(_("You reported this result; only someone else can confirm it."))
    side = _player_side(by, match)
    if side is None and answers_for_absent(by, report):
        ReportResponse.objects.create(report=report, kind=ResponseKind.OFFICIAL, by=by)
        _make_official(report, match)
        return report
    if side is None or side == report.reporter_side:
        if awaits_official(report):
            raise ValidationError(
                _(
                    "Only the opponent of the player who reported, or a club or federation "
                    "official who manages a player without an account, can confirm."
                )
            )
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
    for_absent = side is None and answers_for_absent(by, report)
    if not for_absent and (side is None or side == report.reporter_side):
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
    # The match, then (by the update below) its reports: the order of base.locking.
    match = locking.row(Match.objects, pk=match.pk)
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
    # The match, then (by the updates below) its reports and undo requests (base.locking).
    match = locking.row(Match.objects, pk=match.pk)
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


def _no_one_to_answer() -> Q:
    """Reports a side without an account must answer (for the periodic task: these
    wait for an official however old they are, reports made before that rule too)."""
    player1_absent = Q(match__player1__user__isnull=True)
    player2_absent = Q(match__player2__user__isnull=True)
    return (
        (Q(reporter_side=1) & player2_absent)
        | (Q(reporter_side=2) & player1_absent)
        | (Q(reporter_side__isnull=True) & (player1_absent | player2_absent))
    )


def confirm_overdue_reports(now: datetime.datetime | None = None) -> int:
    """Reports nobody answered by their deadline become official (a periodic task),
    except those against a player who has no account to answer with."""
    now = now or timezone.now()
    confirmed = 0
    due = Q(status=ReportStatus.PENDING, deadline__lt=now) & ~_no_one_to_answer()
    overdue = ResultReport.objects.filter(due).values_list("pk", flat=True)
    for pk in list(overdue):
        with transaction.atomic():
            # The match first, then the report (base.locking).
            match_id = ResultReport.objects.filter(pk=pk).values_list("match_id", flat=True).first()
            if match_id is None:
                continue
            match = locking.row(Match.objects, pk=match_id)
            report = next(iter(locking.rows(ResultReport.objects.filter(due, pk=pk))), None)
            if report is None:  # decided meanwhile, or by another run of this task
                continue
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
