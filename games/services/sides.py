"""Who a user is in a match: the side they play, and who is kept as having entered a turn."""

from __future__ import annotations

from typing import Any

from games.models import Match


def player_side(user: Any, match: Match) -> int | None:
    """1 or 2 when ``user`` is linked to that player of the match."""
    if user is None or not user.is_authenticated:
        return None
    if match.player1.user_id == user.pk:
        return 1
    if match.player2.user_id == user.pk:
        return 2
    return None


def recorder(user: Any) -> Any:
    """The user kept as having entered a turn (None only for the system)."""
    return user if user is not None and user.is_authenticated else None
