"""The ratings app's subscribers: each only queues a task.

They run inside the transaction that announced the event (a result, a
merge, a name changed); the pools are computed by the tasks, each in its
own transaction after the commit, so a results, merge or names transaction
never locks a pool.

The one part of a merge that cannot wait, deleting the duplicate's rating
rows that would clash with the survivor's before the move, is no
subscriber's: it is ``services.fold_merged_player``, a ``clubs.merging`` hook
registered in ``apps``.
"""

from __future__ import annotations

from base.tasks import owe
from games.services import archives as archive_imports
from ratings import services, tasks


def on_result_changed(match_id: int) -> None:
    """A result became official, or stopped counting (its match was cancelled): bring
    the pools up to date with it once the transaction commits.  Not a match an
    archive's import is storing: no pool counts it before the import is over, and
    then only when its admin chooses one (``ratings.archives.rate_archive``
    recomputes the pool from the archive's first match)."""
    if archive_imports.storing():
        return
    owe(tasks.update_for_match, match_id)


def on_names_changed(player_ids: list[int], club_ids: list[int]) -> None:
    """Names or clubs changed (clubs): the rating lists showing them are rendered again
    once the transaction commits."""
    owe(tasks.names_changed_task, sorted(player_ids), sorted(club_ids))


def on_player_merged(survivor_id: int, duplicate_id: int) -> None:
    """Two player records become one (sent inside the merge, before the move): the
    pools whose history changes are recomputed from the duplicate's first match
    there once the merge commits (a plain read of the history now decides which)."""
    for pool_id, (played_at, match_id) in services.merge_restarts(survivor_id, duplicate_id):
        owe(tasks.recompute_pool_from, pool_id, played_at.isoformat(), match_id)
