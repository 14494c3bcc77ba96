"""Who may create and run tournaments: rules of the one policy (clubs.permissions).

Imported by ``TournamentsConfig.ready``.  Roles: the federation's admins and
the host club's admins run the tournaments of their federation or club; an
organizer (``Role.ORGANIZER`` scoped to a tournament) runs that tournament;
an arbiter (``Role.ARBITER`` scoped to it) decides its disputed results.  A
player enters, checks in and withdraws themself.
"""

from __future__ import annotations

from typing import Any

from django.db import models

from clubs.models import Club, Federation, Player, Role
from clubs.permissions import (
    extend,
    is_club_admin,
    is_federation_admin,
    is_site_admin,
    register,
    scope_ids,
)
from games.models import Match
from games.permissions import extend_arbitrated_q
from tournaments.models import Entry, Pairing, Tournament, TournamentState


def _signed_in(user: Any) -> bool:
    return user is not None and user.is_authenticated and user.is_active


def manages(user: Any, tournament: Tournament) -> bool:
    """Organizers of the tournament, admins of its federation and of its host club."""
    if tournament.pk is not None and tournament.pk in scope_ids(user, Role.ORGANIZER, Tournament):
        return True
    if tournament.federation_id in scope_ids(user, Role.FEDERATION_ADMIN, Federation):
        return True
    return tournament.club_id is not None and tournament.club_id in scope_ids(
        user, Role.CLUB_ADMIN, Club
    )


def arbitrates(user: Any, tournament: Tournament) -> bool:
    return tournament.pk is not None and tournament.pk in scope_ids(user, Role.ARBITER, Tournament)


@register("tournament.create")
def _tournament_create(user: Any, scope: Federation | Club) -> bool:
    """Federation admins create tournaments of their federation, club admins of their club."""
    if isinstance(scope, Club):
        return is_club_admin(user, scope) or is_federation_admin(user, scope.federation)
    if isinstance(scope, Federation):
        return is_federation_admin(user, scope)
    return False


@register("tournament.manage")
def _tournament_manage(user: Any, tournament: Tournament) -> bool:
    return manages(user, tournament)


@register("tournament.staff")
def _tournament_staff(user: Any, tournament: Any) -> bool:
    """Who appoints a tournament's organizers and arbiters: whoever manages it."""
    return isinstance(tournament, Tournament) and manages(user, tournament)


@register("tournament.enter")
def _tournament_enter(user: Any, target: tuple[Tournament, Player]) -> bool:
    """A player enters themself while registration is open; managers enter anyone."""
    tournament, player = target
    if manages(user, tournament):
        return True
    return (
        player.user_id is not None
        and player.user_id == user.pk
        and tournament.state == TournamentState.REGISTRATION
        and tournament.is_public
    )


@register("entry.change")
def _entry_change(user: Any, entry: Entry) -> bool:
    """Check in, withdraw or remove an entry: the player themself, or a manager."""
    return entry.player.user_id == user.pk or manages(user, entry.tournament)


def _tournament_of_match(match: Match) -> Tournament | None:
    cached = getattr(match, "_zary_tournament", False)
    if cached is not False:
        return cached
    pairing = (
        Pairing.objects.filter(match_id=match.pk)
        .select_related("round__tournament__federation", "round__tournament__club")
        .first()
        if match.pk is not None
        else None
    )
    tournament = pairing.round.tournament if pairing is not None else None
    match._zary_tournament = tournament
    return tournament


def _may_run_some_tournament(user: Any) -> bool:
    """Whether ``user`` holds a role that can reach a match through its tournament (no
    query: the roles are cached).  Federation admins pass the match rules already."""
    return bool(
        scope_ids(user, Role.ORGANIZER, Tournament)
        or scope_ids(user, Role.ARBITER, Tournament)
        or scope_ids(user, Role.CLUB_ADMIN, Club)
        or scope_ids(user, Role.FEDERATION_ADMIN, Federation)
    )


def _match_arbitrate(user: Any, match: Match) -> bool:
    """Arbiters and managers of the tournament the match belongs to."""
    if not _may_run_some_tournament(user):
        return False
    tournament = _tournament_of_match(match)
    return tournament is not None and (arbitrates(user, tournament) or manages(user, tournament))


def _match_override(user: Any, match: Match) -> bool:
    """Managers (organizers, federation and host-club admins) of the match's tournament."""
    if not _may_run_some_tournament(user):
        return False
    tournament = _tournament_of_match(match)
    return tournament is not None and manages(user, tournament)


extend("match.arbitrate", _match_arbitrate)
extend("match.override", _match_override)


def _arbitrated_q(user: Any) -> models.Q | None:
    """``_match_arbitrate`` as a filter on Match: the matches of the tournaments
    ``user`` manages or arbitrates (games.permissions.arbitrated_matches_q)."""
    if not _may_run_some_tournament(user):
        return None
    pairings = Pairing.objects.filter(
        staff_tournaments_q(user, "round__tournament__"), match_id__isnull=False
    )
    return models.Q(id__in=pairings.values("match_id"))


extend_arbitrated_q(_arbitrated_q)


def runs_tournaments(user: Any) -> bool:
    """Whether the organizer console (/organize/) is ``user``'s desk: site admins,
    admins of a federation or a club (they create tournaments there) and organizers
    of a tournament (no query: the roles are cached)."""
    if not _signed_in(user):
        return False
    return bool(
        is_site_admin(user)
        or scope_ids(user, Role.ORGANIZER, Tournament)
        or scope_ids(user, Role.FEDERATION_ADMIN, Federation)
        or scope_ids(user, Role.CLUB_ADMIN, Club)
    )


# --- Read side (no new rules): which tournaments a user sees, as one query.


def managed_tournaments_q(user: Any, prefix: str = "") -> models.Q:
    """Tournaments ``user`` manages, as a filter (``prefix`` reaches the tournament)."""
    if not _signed_in(user):
        return models.Q(pk__in=[])
    if is_site_admin(user):
        return models.Q()
    return (
        models.Q(**{f"{prefix}id__in": scope_ids(user, Role.ORGANIZER, Tournament)})
        | models.Q(
            **{f"{prefix}federation_id__in": scope_ids(user, Role.FEDERATION_ADMIN, Federation)}
        )
        | models.Q(**{f"{prefix}club_id__in": scope_ids(user, Role.CLUB_ADMIN, Club)})
    )


def staff_tournaments_q(user: Any, prefix: str = "") -> models.Q:
    """Tournaments ``user`` manages or arbitrates."""
    if not _signed_in(user):
        return models.Q(pk__in=[])
    return managed_tournaments_q(user, prefix) | models.Q(
        **{f"{prefix}id__in": scope_ids(user, Role.ARBITER, Tournament)}
    )


def visible_tournaments(user: Any) -> models.QuerySet[Tournament]:
    """Public tournaments past the draft (of federations ``user`` may read), and the
    ones ``user`` manages or arbitrates."""
    from clubs.permissions import visible_federations

    public = (
        models.Q(is_public=True)
        & ~models.Q(state=TournamentState.DRAFT)
        & models.Q(federation__in=visible_federations(user))
    )
    return Tournament.objects.filter(public | staff_tournaments_q(user))
