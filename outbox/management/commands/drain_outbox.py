"""Send the background work still waiting in the outbox (after a broker outage)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from outbox import services


class Command(BaseCommand):
    help = "Hand the background tasks still in the outbox to the broker."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument(
            "--failed",
            action="store_true",
            help="also retry tasks that failed for a reason other than the broker",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        counts = services.drain(include_failed=options["failed"], limit=10**9)
        self.stdout.write(
            f"sent {counts['sent']}, broker unreachable {counts['kept']}, "
            f"failed {counts['failed']}, left {counts['left']}"
        )
        if counts["kept"]:
            raise CommandError("the broker is unreachable; the tasks stay in the outbox")
