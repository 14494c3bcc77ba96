"""A match's own life: creating it, switching scorer mode, cancelling it.

Its turns are recorded by games.services.recording and its result by
games.services.results; a change here locks the match row first (base.locking).
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from base import locking
from clubs import permissions
from clubs.models import Discipline, Federation, Player, checked_variant_options
from games.events import result_withdrawn
from games.models import (
    ArchiveImport,
    ClockMode,
    Match,
    MatchState,
    ReportStatus,
    ResultStatus,
)
from games.permissions import side_of


def new_match(
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
    archive: ArchiveImport | None = None,
    source_hash: str = "",
    variant_options: dict[str, str] | None = None,
) -> Match:
    """``create_match`` inside the caller's transaction, which rolls back whatever
    it raises (``matfiles.store_record``: a match and its whole record are one
    write, and a savepoint of its own would be two statements more a file)."""
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
        archive=archive,
        source_hash=source_hash,
        # A tournament's house rules for its discipline's variant (checked: the
        # engine's reason under ``variant_options``).
        variant_options=checked_variant_options(discipline.variant, variant_options),
    )
    permissions.require(by, "match.create", match)
    # The related rows are instances the caller read: their existence is the insert's
    # own foreign-key constraints to check, not five queries more (an archive's
    # import creates thousands of matches).
    match.full_clean(
        exclude=["player1", "player2", "discipline", "federation", "created_by", "archive"]
    )
    match.save()
    return match


# A new match (``archive``: the archive it is imported with), in a transaction of its own.
create_match = transaction.atomic(new_match)


@transaction.atomic
def set_scorer_mode(match: Match, *, by: Any, on: bool) -> Match:
    """Switch scorer mode (one device enters both sides) on or off.

    An arbiter of the match switches it on or off at once and is kept as the
    scorer.  Players need both to consent: the first to ask only proposes it
    (``scorer_proposed_by``), the opponent's ask switches it on; either player
    withdraws a proposal or switches off the mode they agreed to, but not one
    an arbiter switched on.
    """
    match = locking.row(Match.objects.select_related("player1", "player2"), pk=match.pk)
    permissions.require(by, "match.switch_scorer_mode", match)
    if match.state in (MatchState.FINISHED, MatchState.CANCELLED) and on:
        raise ValidationError(_("The match is over."))
    fields = ["scorer_mode", "scorer", "scorer_proposed_by"]
    if permissions.can(by, "match.arbitrate", match):
        match.scorer_mode, match.scorer, match.scorer_proposed_by = on, by if on else None, None
        match.save(update_fields=fields)
        return match
    side = side_of(by, match)
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


def clear_result(match: Match) -> list[str]:
    """Take ``match``'s result off it (unsaved): no score, winner, forfeit or loss
    on time, nothing official; the fields to save."""
    match.result_status = ResultStatus.NONE
    match.score1 = match.score2 = match.winner = None
    match.forfeit = match.lost_on_time = False
    return ["result_status", "score1", "score2", "winner", "forfeit", "lost_on_time"]


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
    match.cancel_reason = reason.strip()
    match.cancelled_at = now
    match.save(update_fields=["state", "cancel_reason", "cancelled_at", *clear_result(match)])
    if had_result:
        result_withdrawn.send(match_id=match.pk)
    return match
