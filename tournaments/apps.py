from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        from clubs.events import names_changed
        from games import visibility
        from games.events import result_confirmed, result_withdrawn
        from tournaments import (
            permissions,  # noqa: F401  (registers the tournament rules)
            receivers,
        )
        from tournaments.services import visibility as results_rule

        result_confirmed.subscribe(receivers.on_result_confirmed)
        result_withdrawn.subscribe(receivers.on_result_withdrawn)
        names_changed.subscribe(receivers.on_names_changed)
        visibility.extend(
            hidden=results_rule.match_result_hidden,
            hidden_q=results_rule.hidden_results_q,
            withheld_q=results_rule.withheld_results_q,
        )
