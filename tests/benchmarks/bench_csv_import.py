"""Players CSV import speed: the bulk import against the one-row-at-a-time services.

    python -m tests.benchmarks.bench_csv_import        (from the project folder)

Creates a throw-away test database (SQLite in memory unless DATABASE_URL says
otherwise), generates a players file (default 5,000 rows, 50 of them bad),
times its dry run and its real import with ``clubs.imports.import_players``,
and, as the reference measured in the same run, the same rows saved one at a
time through ``services.create_player`` (on a sample, scaled to the file).
The goal is the whole file in well under a minute.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

GOAL_SECONDS = 30.0  # "well under a minute" for 5,000 rows
DEFECT_SECONDS = 60.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000)
    parser.add_argument("--bad", type=int, default=50)
    parser.add_argument("--reference-rows", type=int, default=500)
    args = parser.parse_args(argv)

    django.setup()
    from django.db import connection
    from django.test.utils import setup_test_environment
    from django.utils import timezone

    from clubs import csv_io, imports, permissions, services
    from clubs.models import Player, Role
    from tests.clubs.test_csv_import import players_file
    from tests.factories import ClubFactory, FederationFactory, UserFactory, grant

    setup_test_environment()
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        federation = FederationFactory()
        clubs = [ClubFactory(federation=federation, name=f"Клуб {n}") for n in range(10)]
        admin = UserFactory(is_staff=True)
        grant(admin, Role.FEDERATION_ADMIN, federation)
        sample = players_file(args.rows, args.bad, [club.name for club in clubs])

        started = time.perf_counter()
        preview = imports.import_players(federation, sample.data, by=admin, dry_run=True)
        dry = time.perf_counter() - started
        started = time.perf_counter()
        report = imports.import_players(federation, sample.data, by=admin, dry_run=False)
        real = time.perf_counter() - started
        assert preview.rejected_rows == report.rejected_rows == sorted(sample.bad_rows)
        assert Player.objects.count() == report.created == args.rows - args.bad

        # Reference: the same kind of rows, each through the services.
        other = FederationFactory()
        other_clubs = {
            c.name: c for c in (ClubFactory(federation=other, name=c.name) for c in clubs)
        }
        grant(admin, Role.FEDERATION_ADMIN, other)
        permissions.forget_roles(admin)
        reference = players_file(args.reference_rows, 1, list(other_clubs), prefix="R")
        parsed = csv_io.parse_players(
            reference.data,
            clubs={csv_io.club_key(name): club for name, club in other_clubs.items()},
            today=timezone.localdate(),
        )
        started = time.perf_counter()
        for row in parsed.rows:
            services.create_player(
                by=admin, club=row.club, federation=other, **row.creation_values()
            )
        one_by_one = (time.perf_counter() - started) / len(parsed.rows) * len(sample.good_numbers)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)

    good = len(sample.good_numbers)
    print(f"rows: {args.rows} ({args.bad} bad), database: {connection.vendor}")
    print(f"dry run:               {dry:7.2f} s  ({args.rows / dry:8,.0f} rows/s)")
    print(f"import:                {real:7.2f} s  ({args.rows / real:8,.0f} rows/s)")
    print(f"services, row by row:  {one_by_one:7.2f} s  (estimated from {len(parsed.rows)} rows)")
    print(f"ratio: bulk import {one_by_one / real:.1f}x faster than row by row ({good} rows saved)")
    verdict = (
        "goal met"
        if real <= GOAL_SECONDS
        else ("below goal" if real <= DEFECT_SECONDS else "DEFECT")
    )
    print(f"{verdict}: goal {GOAL_SECONDS:.0f} s, defect above {DEFECT_SECONDS:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
