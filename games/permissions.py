"""Who may create, record, report and arbitrate matches (rules of the one policy).

Registered from GamesConfig.ready.  The tournaments app extends
``match.arbitrate`` and ``match.override`` for its arbiters and organizers.
"""

from __future__ import annotations

from typing import Any

from clubs.permissions import is_federation_admin, manages_player, register
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


@register("match.arbitrate")
def _match_arbitrate(user: Any, match: Match) -> bool:
    return is_federation_admin(user, match.federation)


@register("match.override")
def _match_override(user: Any, match: Match) -> bool:
    return is_federation_admin(user, match.federation)


@register("match.record")
def _match_record(user: Any, match: Match) -> bool:
    """The players record their game at the board; an arbiter may record for them."""
    from clubs.permissions import can

    return plays_in(user, match) or can(user, "match.arbitrate", match)


@register("match.report")
def _match_report(user: Any, match: Match) -> bool:
    from clubs.permissions import can

    return plays_in(user, match) or can(user, "match.arbitrate", match)
