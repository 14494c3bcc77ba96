from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        from analysis.events import analysis_changed
        from clubs import landing, player_page
        from clubs.events import names_changed
        from games import belonging, visibility
        from games.events import result_confirmed, result_withdrawn
        from tournaments import (
            navigation,
            permissions,  # noqa: F401  (registers the tournament rules)
            receivers,
        )
        from tournaments.services import visibility as results_rule
        from tournaments.views import match_trail, player_events

        result_confirmed.subscribe(receivers.on_result_confirmed)
        result_withdrawn.subscribe(receivers.on_result_withdrawn)
        analysis_changed.subscribe(receivers.on_analysis_changed)
        names_changed.subscribe(receivers.on_names_changed)
        landing.extend(navigation.landing)
        visibility.extend(
            hidden=results_rule.match_result_hidden,
            hidden_q=results_rule.hidden_results_q,
            withheld_q=results_rule.withheld_results_q,
        )
        player_page.extend(player_events.SECTION)
        belonging.extend(match_trail.match_trail)
