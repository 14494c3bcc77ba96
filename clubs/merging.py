"""What a merge of two player records asks the apps above clubs to do at once.

``services.merge_players`` moves every foreign key to the duplicate onto the
survivor generically, so the history of every app follows without clubs
importing them.  A row that cannot simply be moved (one row per player, such
as a rating in a pool where both players have one) would break a unique
constraint: the app that owns it registers a fold with ``extend`` in its
``AppConfig.ready``, and the merge calls every fold inside its transaction,
with both players locked, before the move.  A fold changes only its own
app's rows of the two players, and only what the move needs; work that can
wait (recomputing ratings) is no fold: a subscriber of
``clubs.events.player_merged`` queues it.
"""

from __future__ import annotations

from collections.abc import Callable

# fold(survivor_id, duplicate_id)
Fold = Callable[[int, int], None]

_FOLDS: list[Fold] = []


def extend(fold: Fold) -> Fold:
    """Let a higher app fold its own rows of a merge (see the module docstring)."""
    if fold not in _FOLDS:
        _FOLDS.append(fold)
    return fold


def folds() -> tuple[Fold, ...]:
    return tuple(_FOLDS)


def fold(survivor_id: int, duplicate_id: int) -> None:
    """Run every registered fold, in the order the apps registered them."""
    for each in _FOLDS:
        each(survivor_id, duplicate_id)
