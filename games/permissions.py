"""Who may create, record, report and arbitrate matches (rules of the one policy).

Registered from GamesConfig.ready.  The tournaments app extends
``match.arbitrate`` and ``match.override`` for its arbiters and organizers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from django.core.exceptions import PermissionDenied
from django.db.models import Q
from django.utils.translation import gettext as _

from clubs.models import Club, Federation, Role
from clubs.permissions import (
    can,
    is_club_admin,
    is_federation_admin,
    is_site_admin,
    manages_player,
    register,
    scope_ids,
)
from games.models import Match


def plays_in(user: Any, match: Match) -> bool:
    return user.pk is not None and user.pk in (match.player1.user_id, match.player2.user_id)


@register("match.create")
def _match_create(user: Any, match: Match) -> bool:
    """A player arranges their own match; staff arrange matches of players they manage."""
    return (
        plays_in(user, match)
        or is_federation_admin(user, match.federation)
        or (manages_player(user, match.player1) and manages_player(user, match.player2))
    )


@register("matches.import_archive")
def _matches_import_archive(user: Any, scope: Federation | Club) -> bool:
    """Who brings in a whole archive of match files: the federation's admins, or a
    club's (then the new players it names join the club)."""
    if isinstance(scope, Club):
        return is_club_admin(user, scope) or is_federation_admin(user, scope.federation)
    return is_federation_admin(user, scope)


@register("match.arbitrate")
def _match_arbitrate(user: Any, match: Match) -> bool:
    return is_federation_admin(user, match.federation)


@register("match.override")
def _match_override(user: Any, match: Match) -> bool:
    return is_federation_admin(user, match.federation)


# --- ``match.arbitrate`` as a filter, for counting a user's queue in one query.
# A higher app that extends the rule (the tournaments app: arbiters and managers of
# a match's tournament) registers the same cases as a filter with
# ``extend_arbitrated_q``; a filter answers None when the user holds no role that
# could reach a match through it (decided from the cached roles, no query).

ArbitratedQ = Callable[[Any], Q | None]

_ARBITRATED_Q: list[ArbitratedQ] = []


def extend_arbitrated_q(rule: ArbitratedQ) -> ArbitratedQ:
    if rule not in _ARBITRATED_Q:
        _ARBITRATED_Q.append(rule)
    return rule


def arbitrated_matches_q(user: Any) -> Q | None:
    """The matches ``user`` may arbitrate (``match.arbitrate``) as a filter on Match,
    or None when there are none; the superuser's pass is an empty filter."""
    if user is None or not user.is_authenticated or not user.is_active:
        return None
    if is_site_admin(user):
        return Q()
    parts = []
    federation_ids = scope_ids(user, Role.FEDERATION_ADMIN, Federation)
    if federation_ids:
        parts.append(Q(federation_id__in=federation_ids))
    parts.extend(part for part in (rule(user) for rule in _ARBITRATED_Q) if part is not None)
    if not parts:
        return None
    found = parts[0]
    for part in parts[1:]:
        found |= part
    return found


def decides_disputes(user: Any) -> bool:
    """Whether ``user`` may decide some disputed results (no query: cached roles)."""
    return arbitrated_matches_q(user) is not None


class SideAction(NamedTuple):
    """The target of ``match.act_for_side``: an action of ``side`` (1 or 2) in ``match``.

    ``side`` None is the opening roll: no side acts yet, both dice are rolled
    in front of both players, so either player enters it (as over-the-board
    recording apps let either player key in the opening dice); a wrong entry is
    taken back like any turn (an undo the opponent agrees to, or the arbiter).
    """

    match: Match
    side: int | None


def side_of(user: Any, match: Match) -> int | None:
    """1 or 2 when ``user`` is that player of the match, else None."""
    if user is None or user.pk is None:
        return None
    if match.player1.user_id == user.pk:
        return 1
    if match.player2.user_id == user.pk:
        return 2
    return None


def is_scorer(user: Any, match: Match) -> bool:
    """Whether ``user`` enters both sides' actions of ``match`` now (scorer mode is on).

    The arbiters of the match are scorers whenever the mode is on (whoever of
    them switched it on, kept in ``Match.scorer``); when both players agreed to
    it, either player is a scorer too.  Anyone else enters nothing for a side.
    """
    if not match.scorer_mode or user is None or not user.is_authenticated:
        return False
    if match.scorer_id is None and plays_in(user, match):
        return True
    return can(user, "match.arbitrate", match)


# No site-admin pass: a site admin who plays a match acts only for their own
# side like anyone; as an arbiter they may switch scorer mode on.
@register("match.act_for_side", superuser_bypass=False)
def _match_act_for_side(user: Any, target: SideAction) -> bool:
    """Only the player of the side that must act enters its action, or a scorer."""
    match, side = target
    if is_scorer(user, match):
        return True
    mine = side_of(user, match)
    return mine is not None and (side is None or side == mine)


# No site-admin pass for a player: nobody sets the clocks of a match they play.
@register("match.enter_clock", superuser_bypass=False)
def _match_enter_clock(user: Any, match: Match) -> bool:
    """Who enters the readings of a physical clock with a turn (a game played over
    the board): an arbiter of the match, or the scorer an arbiter appointed for it
    (``Match.scorer``, set only when an arbiter switches scorer mode on).  Never a
    player of the match, even one who may arbitrate it, and never scorers by the
    players' agreement: players' clocks are the server's otherwise."""
    if plays_in(user, match):
        return False
    appointed = match.scorer_mode and match.scorer_id is not None and match.scorer_id == user.pk
    return appointed or can(user, "match.arbitrate", match)


@register("match.switch_scorer_mode")
def _match_switch_scorer_mode(user: Any, match: Match) -> bool:
    """Who may touch the switch at all: an arbiter turns it on or off; a player
    proposes, agrees to, or withdraws from players' scorer mode (the service
    decides what each press does)."""
    return plays_in(user, match) or can(user, "match.arbitrate", match)


def require_side(
    user: Any, match: Match, side: int | None, action: str, refusal: str | None = None
) -> None:
    """Raise PermissionDenied unless ``user`` may enter ``action`` (words, translated)
    for ``side``.  The message (``refusal``, or one made here) names the action
    and whose it is.  ``user`` None is the system (a task, or an import of a
    whole match file checked as a whole)."""
    if user is None or can(user, "match.act_for_side", SideAction(match, side)):
        return
    if refusal is None and side is None:
        refusal = _(
            "You may not record “%(action)s”: only the players of this match "
            "(or a scorer in scorer mode) record it."
        ) % {"action": action}
    elif refusal is None:
        refusal = _(
            "You may not record “%(action)s”: it is %(name)s's turn, and each player "
            "records only their own side's actions (or a scorer in scorer mode)."
        ) % {"action": action, "name": match.player(side)}  # type: ignore[arg-type]
    raise PermissionDenied(refusal)


@register("match.record")
def _match_record(user: Any, match: Match) -> bool:
    """Who sees the recording controls of a match: its players and arbiters.
    Which side's actions each of them enters is ``match.act_for_side``."""
    return plays_in(user, match) or can(user, "match.arbitrate", match)


@register("match.report")
def _match_report(user: Any, match: Match) -> bool:
    return plays_in(user, match) or can(user, "match.arbitrate", match)


@register("match.answer_for_absent")
def _match_answer_for_absent(user: Any, match: Match) -> bool:
    """Who answers a reported result for the players of ``match`` who have no account
    (they cannot confirm or dispute it themselves): a club or federation official
    who manages each of them, or an arbiter of the match.  The service adds that
    this official neither plays in the match nor reported the result."""
    absent = [player for player in (match.player1, match.player2) if player.user_id is None]
    return bool(absent) and (
        all(manages_player(user, player) for player in absent)
        or can(user, "match.arbitrate", match)
    )
