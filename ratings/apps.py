from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


def on_result_changed(match_id: int) -> None:
    """A result became official, or stopped counting (its match was cancelled): bring
    the pools up to date with it once the transaction commits."""
    from base.events import queue_on_commit
    from ratings import tasks

    queue_on_commit(tasks.update_for_match, match_id)


def on_player_merged(survivor_id: int, duplicate_id: int) -> None:
    """Two player records become one (sent inside the merge, before the generic move).

    The duplicate's PlayerRating rows that would clash with the survivor's are
    deleted now; the pools whose history changes are recomputed from the
    duplicate's first match once the merge commits.
    """
    from base.events import queue_on_commit
    from ratings import services, tasks

    for pool_id, (played_at, match_id) in services.fold_merged_player(survivor_id, duplicate_id):
        queue_on_commit(tasks.recompute_pool_from, pool_id, played_at.isoformat(), match_id)


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = _("Ratings")

    def ready(self) -> None:
        from clubs.events import player_merged
        from games.events import result_confirmed, result_withdrawn
        from ratings import permissions  # noqa: F401  (registers the rating rules)

        result_confirmed.subscribe(on_result_changed)
        result_withdrawn.subscribe(on_result_changed)
        player_merged.subscribe(on_player_merged)
