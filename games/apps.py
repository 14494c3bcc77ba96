from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Matches and games")

    def ready(self) -> None:
        from clubs import player_page
        from games import permissions  # noqa: F401  (registers the match rules)
        from games.views import player_matches

        player_page.extend(player_matches.SECTION)
