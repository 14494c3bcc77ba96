from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


def _on_result_confirmed(match_id: int) -> None:
    """A confirmed games result: if it belongs to a pairing, ask for standings (on commit)."""
    from tournaments import services

    services.on_result_confirmed(match_id)


def _on_result_withdrawn(match_id: int) -> None:
    """A pairing's match was cancelled: its result no longer counts in the standings."""
    from tournaments import services

    services.on_result_withdrawn(match_id)


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = _("Tournaments")

    def ready(self) -> None:
        from games import visibility
        from games.events import result_confirmed, result_withdrawn
        from tournaments import (
            permissions,  # noqa: F401  (registers the tournament rules)
            queries,
        )

        result_confirmed.subscribe(_on_result_confirmed)
        result_withdrawn.subscribe(_on_result_withdrawn)
        visibility.extend(
            hidden=queries.match_result_hidden,
            hidden_q=queries.hidden_results_q,
            withheld_q=queries.withheld_results_q,
        )
