"""Taking back the last turn: a player asks, the opponent agrees, or an arbiter undoes.

An undone turn is kept in the history (``undone_at``); undoing the turn that
ended a game or the match reopens them and supersedes the result report the
record had opened.  Each change locks the match row first (base.locking).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from base import locking
from clubs import permissions
from games import permissions as side_rules
from games.models import (
    Match,
    MatchState,
    ReportStatus,
    ResultStatus,
    Turn,
    UndoRequest,
)


@transaction.atomic
def request_undo(match: Match, *, by: Any, side: int | None = None) -> UndoRequest:
    """A player asks to take back the last live turn; the opponent must agree.

    The request is made for the asker's own side; a scorer in scorer mode asks
    for ``side`` (by default the side that made the last turn)."""
    match = locking.row(Match.objects.select_related("player1", "player2"), pk=match.pk)
    turn = _last_live_turn(match)
    if side is None:
        side = side_rules.side_of(by, match) or turn.side
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
    # Every change to a match's undo requests holds the match row: under it the request
    # reads as it stays.  It is written last, after the games and reports the undo
    # reopens (base.locking: an undo request is the last kind of row locked).
    request = UndoRequest.objects.get(pk=request.pk)
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
    undone = _undo(match, by)
    request.agreed_by = by
    request.closed_at = timezone.now()
    request.save(update_fields=["agreed_by", "closed_at"])
    return undone


@transaction.atomic
def arbiter_undo(match: Match, *, by: Any) -> Turn:
    match = locking.row(Match.objects, pk=match.pk)
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
