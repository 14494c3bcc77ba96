from __future__ import annotations

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AnalysisConfig(AppConfig):
    name = "analysis"
    verbose_name = _("Analysis")

    def ready(self) -> None:
        from analysis import (
            extras,
            permissions,  # noqa: F401  (registers the analysis's rules)
            player_pr,
            receivers,
        )
        from clubs import player_page
        from games import match_extras
        from games.events import result_confirmed

        result_confirmed.subscribe(receivers.on_result_confirmed)
        player_page.extend(player_pr.SECTION)
        match_extras.extend(
            block=extras.match_block, turn_notes=extras.turn_notes, stylesheet=extras.STYLESHEET
        )
