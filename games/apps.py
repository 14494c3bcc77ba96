from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Matches and games")

    def ready(self) -> None:
        from games import permissions  # noqa: F401  (registers the match rules)
