"""Errors the engine reports: a stable code plus the data a message needs.

The engine never builds user-facing sentences for the web; it returns a code
and data, and the Django side translates.  ``str()`` gives a plain English
reason for the command line and logs.
"""

from __future__ import annotations

from typing import Any


class EngineError(Exception):
    """Base of every error the engine raises on bad input."""

    def __init__(self, code: str, reason: str, **data: Any) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.data: dict[str, Any] = data

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "reason": self.reason, **self.data}


class IllegalPlay(EngineError):
    """A play that the rules do not allow for this position and roll."""


class NotationError(EngineError):
    """Text that is not valid notation."""


class PositionIdError(EngineError):
    """A malformed Position ID or Match ID."""


class GameStateError(EngineError):
    """An action that is not allowed in the game's current state."""


# The largest number a record may write where the rules set no bound of their
# own (match length, game and turn numbers, scores, cube values, points).
# Python's int() refuses strings of more than 4,300 digits with a bare
# ValueError, and a huge number means nothing in a record anyway, so parsers
# read numbers through ``bounded_int`` and report the rest as an EngineError.
MAX_RECORD_NUMBER = 999_999_999


def bounded_int(digits: str, maximum: int = MAX_RECORD_NUMBER) -> int | None:
    """The value of ``digits`` (decimal digits, as ``str.isdecimal`` reads
    them), or None when it exceeds ``maximum``; long strings are refused by
    their length before any conversion."""
    significant = digits.lstrip("0") or "0"
    if len(significant) > len(str(maximum)):
        return None
    value = int(significant)
    return value if value <= maximum else None
