"""Errors the rating maths reports: a stable code plus the data a message needs.

Like ``engine.errors``: no user-facing sentences here; the Django side
translates the code, ``str()`` gives a plain English reason for logs.
"""

from __future__ import annotations

from typing import Any


class RatingError(ValueError):
    """Input the rating maths refuses (unrated match, bad order, bad setting)."""

    def __init__(self, code: str, reason: str, **data: Any) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.data: dict[str, Any] = data
