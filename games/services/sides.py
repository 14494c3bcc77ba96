"""Who a user is in a match: the side they play, and who is kept as having entered a turn."""

from __future__ import annotations

from typing import Any

from games import permissions
from games.models import Match


def player_side(user: Any, match: Match) -> int | None:
    """1 or 2 when ``user`` is linked to that player of the match: the policy's answer."""
    return permissions.side_of(user, match)


def recorder(user: Any) -> Any:
    """The user kept as having entered a turn (None only for the system)."""
    return user if user is not None and user.is_authenticated else None
