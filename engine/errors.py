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
