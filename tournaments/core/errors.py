"""Errors the tournament core reports: a stable code plus the data a message needs.

Like ``engine.errors``: no user-facing sentences are built here; the Django
side translates the ``code``.  ``str()`` gives a plain English reason for logs.

Codes in use:

    config:   duplicate_entry, duplicate_seed, bad_setting, too_few_entries,
              bad_group_count, unknown_tiebreak, unknown_entry
    pairing:  no_valid_pairing, nothing_to_pair, event_finished
    bracket:  unknown_match, match_not_ready, not_in_match, already_decided,
              downstream_decided, no_such_pairing
    qualification: tie_at_cut, not_enough_places
"""

from __future__ import annotations

from typing import Any


class TournamentError(Exception):
    """Base of every error the tournament core raises on bad input."""

    def __init__(self, code: str, reason: str, **data: Any) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason
        self.data: dict[str, Any] = data


class ConfigError(TournamentError):
    """Settings or entries that no format can work with."""


class PairingError(TournamentError):
    """No pairing satisfies the rules (e.g. every remaining pairing is a rematch)."""


class BracketError(TournamentError):
    """A result that does not fit the bracket's current state."""


class QualificationError(TournamentError):
    """Standings that cannot be turned into the requested qualifiers."""
