"""Load the demo data of every app, lowest first; safe to run again."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from clubs import demo as clubs_demo
from ratings import demo as ratings_demo
from tournaments import demo as tournaments_demo


class Command(BaseCommand):
    help = "Create the demo organizer account and the demo data (development only)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--force", action="store_true", help="load even with DEBUG off (never in production)"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG and not options["force"]:
            raise CommandError("demo data is for development: DEBUG is off (use --force to insist)")
        accounts = clubs_demo.load()
        for tournament in tournaments_demo.load():
            state = "created" if tournament.created else "already there"
            self.stdout.write(f"Demo tournament {tournament.name!r} ({tournament.slug}): {state}")
        # The ratings are computed from the demo matches (the tournaments' results).
        ratings_demo.load()
        self.stdout.write(self.style.SUCCESS("Demo data loaded."))
        for account in accounts:
            self.stdout.write(
                f"Demo {account.role}: username {account.username!r}, password {account.password!r}"
            )
        self.stdout.write(
            "Sign in at http://127.0.0.1:8000/accounts/login/ (organizers land on /organize/)"
        )
        if settings.SECOND_FACTOR_FOR_OFFICIALS:
            self.stdout.write(
                "Officials set up two-step sign-in (an authenticator app) at their first "
                "sign-in; SECOND_FACTOR_FOR_OFFICIALS=0 turns this off for a demo."
            )
