"""The tournaments app's subscribers to the games and clubs events: each only queues a task.

They run inside the games transaction that announced the event, which holds
the match's row lock; a tournament row is locked only by the task, in its own
transaction after the commit (see ``base.locking`` for the lock order).
"""

from __future__ import annotations

from base.tasks import owe
from games.services import archives as archive_imports
from tournaments import tasks
from tournaments.models import Pairing


def on_result_confirmed(match_id: int) -> None:
    """A games result became official: if it is a pairing's, the standings and the
    webhook follow once the transaction commits.  (A match an archive import is
    storing now is no pairing's: asked without a query.)"""
    if not archive_imports.storing() and _is_a_pairings(match_id):
        owe(tasks.result_confirmed_task, match_id)


def on_result_withdrawn(match_id: int) -> None:
    """A pairing's match was cancelled: its result stops counting once the transaction
    commits."""
    if _is_a_pairings(match_id):
        owe(tasks.result_withdrawn_task, match_id)


def on_analysis_changed(match_id: int) -> None:
    """A match's analysis changed (analysis; it runs after the result, so the
    standings and the pages computed from it do not know its PR yet): if it is a
    pairing's, they follow once it commits."""
    if _is_a_pairings(match_id):
        owe(tasks.analysis_changed_task, match_id)


def on_names_changed(player_ids: list[int], club_ids: list[int]) -> None:
    """Names or clubs changed (clubs): the tournament pages showing them are rendered
    again once the transaction commits."""
    owe(tasks.names_changed_task, sorted(player_ids), sorted(club_ids))


def _is_a_pairings(match_id: int) -> bool:
    # A plain read (no lock): a match outside every tournament owes the outbox nothing.
    return Pairing.objects.filter(match_id=match_id).exists()
