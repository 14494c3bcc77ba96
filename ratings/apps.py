from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RatingsConfig(AppConfig):
    name = "ratings"
    verbose_name = _("Ratings")

    def ready(self) -> None:
        from clubs import merging
        from clubs.events import names_changed, player_merged
        from games import archive_extras
        from games.events import result_confirmed, result_withdrawn
        from ratings import (
            archives,
            permissions,  # noqa: F401  (registers the rating rules)
            receivers,
            services,
        )

        result_confirmed.subscribe(receivers.on_result_changed)
        result_withdrawn.subscribe(receivers.on_result_changed)
        player_merged.subscribe(receivers.on_player_merged)
        names_changed.subscribe(receivers.on_names_changed)
        merging.extend(services.fold_merged_player)
        archive_extras.extend(archives.archive_block)
