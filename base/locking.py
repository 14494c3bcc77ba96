"""Row locks in one order, each waited for at most a lock timeout.

Two transactions that lock the same rows in opposite orders wait for each
other until PostgreSQL kills one ("deadlock detected").  So every service
that locks rows of more than one kind takes them through ``rows`` or
``row``, in this order (a kind later in the list is never locked before an
earlier one in the same transaction; rows of one kind in primary-key order):

 1. ``clubs.Player``
 2. ``clubs.ProfileClaim``
 3. ``tournaments.Tournament``
 4. ``tournaments.Round``
 5. ``tournaments.Entry``
 6. ``tournaments.Pairing``
 7. ``games.Match``
 8. ``games.Game``
 9. ``games.ResultReport``
10. ``games.UndoRequest``

Players come first although clubs is the lowest app: merging two players
locks both, then moves every row that points at the duplicate, in every app
(claims, matches, entries), and an UPDATE locks the rows it changes.  So the
merge moves them kind by kind in this order too (``move_order``), and
deciding a profile claim locks the player before the claim.  No other
service locks a player.  Games know only their own kinds (7 to 10): a games
transaction never locks a tournament row.  Work a games change owes a
tournament (standings, webhooks) is queued on commit and locks the
tournament in its own transaction.

On PostgreSQL each lock waits at most ``DATABASE_LOCK_TIMEOUT`` seconds
(``SET LOCAL lock_timeout``, for the rest of the transaction); a lock not
granted by then, or a deadlock all the same, in ``rows``, ``row`` or inside
``changing`` (rows changed without being locked first), raises ``Busy``: a
translated "busy, try again" error (a ValidationError, so pages show it as a
message and the API as a refusal, never a 500), and the transaction is
rolled back.
SQLite serialises writers with its database lock (``BEGIN IMMEDIATE``, see
``config.settings``), so there ``select_for_update`` is a no-op and no
timeout is set.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import DEFAULT_DB_ALIAS, OperationalError, connections
from django.db.models import Model, QuerySet
from django.utils.translation import gettext_lazy as _

M = TypeVar("M", bound=Model)

LOCK_ORDER = (
    "clubs.Player",
    "clubs.ProfileClaim",
    "tournaments.Tournament",
    "tournaments.Round",
    "tournaments.Entry",
    "tournaments.Pairing",
    "games.Match",
    "games.Game",
    "games.ResultReport",
    "games.UndoRequest",
)

DEFAULT_TIMEOUT_SECONDS = 5.0

# PostgreSQL's SQLSTATEs for a lock not granted in time and for a deadlock.
LOCK_NOT_AVAILABLE = "55P03"
DEADLOCK_DETECTED = "40P01"


class Busy(ValidationError):
    """Someone else is changing the same rows right now; trying again shortly works."""

    def __init__(self) -> None:
        super().__init__(
            _("Someone else is changing this right now. Please try again in a moment."),
            code="busy",
        )


def rank(model: type[Model]) -> int:
    """The place of ``model``'s rows in the lock order (a kind not listed is refused)."""
    label = model._meta.label
    if label not in LOCK_ORDER:
        raise ValueError(f"{label} has no place in base.locking.LOCK_ORDER")
    return LOCK_ORDER.index(label)


def move_order(model: type[Model]) -> tuple[int, str]:
    """A sort key for changing rows of many kinds in one transaction without locking
    them first (an UPDATE locks the rows it changes): the kinds of the lock order in
    that order, then the others (which no service locks) by label."""
    label = model._meta.label
    return (LOCK_ORDER.index(label) if label in LOCK_ORDER else len(LOCK_ORDER), label)


def changing(using: str = DEFAULT_DB_ALIAS) -> _translated_lock_errors:
    """Around changes to rows not locked first (in ``move_order``): each waits at most
    the lock timeout, and a lock not granted (or a deadlock) is ``Busy``, not a 500."""
    return _translated_lock_errors(using)


def rows(queryset: QuerySet[M]) -> list[M]:
    """Lock and read the rows of ``queryset`` (only its own table's, in primary-key order)."""
    rank(queryset.model)
    locked = queryset.select_for_update(of=("self",)).order_by("pk")
    with _translated_lock_errors(queryset.db):
        return list(locked)


def row(queryset: QuerySet[M], **lookup: Any) -> M:
    """Lock and read the one row of ``queryset`` matching ``lookup`` (DoesNotExist if none)."""
    rank(queryset.model)
    with _translated_lock_errors(queryset.db):
        return queryset.select_for_update(of=("self",)).get(**lookup)


def timeout_seconds() -> float:
    return float(getattr(settings, "DATABASE_LOCK_TIMEOUT", DEFAULT_TIMEOUT_SECONDS))


class _translated_lock_errors:
    """Set the lock timeout (PostgreSQL), and answer a lock not granted with ``Busy``."""

    def __init__(self, alias: str) -> None:
        self.connection = connections[alias]

    def __enter__(self) -> None:
        if self.connection.vendor == "postgresql" and self.connection.in_atomic_block:
            milliseconds = max(1, round(timeout_seconds() * 1000))
            with self.connection.cursor() as cursor:
                # SET takes no parameters: the value is a whole number, formatted here.
                cursor.execute(f"SET LOCAL lock_timeout = {milliseconds:d}")

    def __exit__(self, kind: Any, error: BaseException | None, traceback: Any) -> bool:
        if isinstance(error, OperationalError) and _is_lock_failure(error):
            raise Busy() from error
        return False


def _is_lock_failure(error: OperationalError) -> bool:
    code = getattr(error.__cause__, "sqlstate", None) or getattr(error.__cause__, "pgcode", None)
    return code in (LOCK_NOT_AVAILABLE, DEADLOCK_DETECTED)
