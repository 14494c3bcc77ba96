"""What every tournaments service shares: row locks, state checks, the audit log,
the core's errors worded for people, and the players' current ratings."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db.models import F, Q
from django.utils.translation import gettext as _

from base import locking, pagecache
from clubs.models import Player
from clubs.services import audit
from ratings.queries import current_ratings
from tournaments import core
from tournaments.models import Round, Tournament, TournamentState

# States in which the field is still open: entries come and go, seeds change.
OPEN_STATES = (TournamentState.DRAFT, TournamentState.REGISTRATION, TournamentState.CHECK_IN)


def core_error(error: core.TournamentError) -> ValidationError:
    """The core's error code, worded for people."""
    data = error.data
    messages = {
        "too_few_entries": _("Too few players for this format."),
        "bad_group_count": _(
            "Every group needs at least two players: %(entries)s players cannot fill %(groups)s groups."
        ),
        "duplicate_seed": _("Two entries share seed %(seed)s."),
        "duplicate_entry": _("A player is entered twice."),
        "unknown_tiebreak": _("Unknown tie-break: %(tiebreak)s."),
        "no_valid_pairing": _(
            "No pairing of round %(round)s avoids a rematch: edit the pairings by hand."
        ),
        "event_finished": _("The event is complete: no further round is paired."),
        "nothing_to_pair": _("Fewer than two players are left to pair."),
        "tie_at_cut": _(
            "Players share a place at the qualifying cut: break the tie (by lot or a play-off) first."
        ),
        "not_enough_places": _("Fewer players are ranked than there are qualifying places."),
        "bad_setting": _("These settings do not fit the format: %(reason)s"),
    }
    template = messages.get(error.code, _("The tournament cannot do this: %(reason)s"))
    values = {"reason": error.reason, **{k: v for k, v in data.items() if k != "reason"}}
    try:
        message = template % values
    except (KeyError, TypeError, ValueError):
        message = template.split("%(")[0].rstrip(" :") + "."
    return ValidationError(message, code=error.code)


def lock_tournament(tournament: Tournament) -> Tournament:
    """The tournament's row, locked and read again (with its federation, club and
    discipline) for the rest of the transaction."""
    locked = locking.row(
        Tournament.objects.select_related("federation", "club", "discipline"), pk=tournament.pk
    )
    # Keep the caller's object current (a service that saves the whole row then
    # writes back the version it read under the lock, never an older one).
    for field in ("state", "standings_requested_at", "public_version"):
        setattr(tournament, field, getattr(locked, field))
    return locked


def lock_round_with_tournament(rnd: Round) -> Round:
    """The round's row locked, read again with its tournament, whose row is locked too."""
    # The tournament first (base.locking): closing a round then asks for standings.
    locking.row(Tournament.objects, pk=rnd.tournament_id)
    return locking.row(
        Round.objects.select_related(
            "tournament__federation", "tournament__club", "tournament__discipline"
        ),
        pk=rnd.pk,
    )


def bump_public_version(tournament: Tournament) -> None:
    """Say that what the tournament's public pages, pairings or standings show has
    changed: one more on ``Tournament.public_version``, in the caller's transaction
    (their cached renderings and ETags are keyed by it, base.httpcache).  Readers
    that see the change see the new version, once this commits.

    The UPDATE locks the tournament's row: a caller holding rows that come after
    it in base.locking's order takes the tournament's lock first."""
    Tournament.objects.filter(pk=tournament.pk).update(public_version=F("public_version") + 1)
    tournament.public_version += 1
    pagecache.expire_on_commit("tournament", tournament.pk)


def bump_where_names_show(player_ids: Sequence[int], club_ids: Sequence[int]) -> int:
    """Names or clubs shown on tournament pages changed (``clubs.names_changed``): one
    more on the public version of every tournament that shows them (the players'
    entries, the clubs' current members' entries, the clubs as hosts).  How many moved."""
    shown = Q(entries__player_id__in=player_ids) | Q(club_id__in=club_ids)
    if club_ids:
        shown |= Q(
            entries__player__memberships__club_id__in=club_ids,
            entries__player__memberships__end__isnull=True,
        )
    showing = list(Tournament.objects.filter(shown).values_list("pk", flat=True).distinct())
    # In the task's own transaction: should two such tasks deadlock, the database
    # error is transient and the task base tries again.
    moved = Tournament.objects.filter(pk__in=showing).update(public_version=F("public_version") + 1)
    pagecache.expire_on_commit("tournament", *showing)
    return moved


def require_state(tournament: Tournament, states: Iterable[str], action: str) -> None:
    states = tuple(states)
    if tournament.state not in states:
        allowed = ", ".join(str(TournamentState(s).label) for s in states)
        raise ValidationError(
            _(
                "%(action)s is not possible while the tournament is %(state)s (only when: %(allowed)s)."
            )
            % {"action": action, "state": tournament.get_state_display(), "allowed": allowed}
        )


def tournament_audit(
    by: Any, action: str, target: Any, tournament: Tournament, before: Any, after: Any
) -> None:
    audit(by, action, target, federation=tournament.federation, before=before, after=after)


def ratings_now(tournament: Tournament, players: Sequence[Player]) -> dict[int, float]:
    """Current ratings of the players in the tournament's federation and discipline
    (players without one keep the rating given at entry)."""
    found = current_ratings(tournament.federation, tournament.discipline, [p.pk for p in players])
    return {int(k): float(v) for k, v in found.items()}
