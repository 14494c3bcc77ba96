"""Who is kept as having entered a turn (the side a user plays is the policy's answer:
``games.permissions.side_of``)."""

from __future__ import annotations

from typing import Any


def recorder(user: Any) -> Any:
    """The user kept as having entered a turn (None only for the system)."""
    return user if user is not None and user.is_authenticated else None
