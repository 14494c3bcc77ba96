"""Analyse a backlog of recorded matches (an imported archive, the matches of
before the analysis existed), in this process, with a progress line."""

from __future__ import annotations

import sys
import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from analysis import services


class Command(BaseCommand):
    help = "Analyse recorded matches whose analysis is missing or out of date."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--archive", type=int, help="only the matches of this archive import")
        parser.add_argument("--federation", type=int, help="only this federation's matches")
        parser.add_argument("--limit", type=int, default=0, help="at most this many matches")

    def handle(self, *args: Any, **options: Any) -> None:
        matches = services.backlog(
            archive_id=options["archive"], federation_id=options["federation"]
        )
        ids = list(matches.values_list("pk", flat=True))
        if options["limit"]:
            ids = ids[: options["limit"]]
        started = time.perf_counter()
        outcomes: dict[str, int] = {}
        for done, match_id in enumerate(ids, start=1):
            outcome = services.analyse(match_id).split(":")[0]
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
            if sys.stdout.isatty() or done == len(ids) or done % 10 == 0:
                self.stdout.write(
                    f"\r{done}/{len(ids)} matches ({time.perf_counter() - started:.0f} s)",
                    ending="",
                )
        self.stdout.write("")
        summary = ", ".join(f"{count} {outcome}" for outcome, count in sorted(outcomes.items()))
        self.stdout.write(self.style.SUCCESS(f"{len(ids)} matches: {summary or 'none due'}"))
