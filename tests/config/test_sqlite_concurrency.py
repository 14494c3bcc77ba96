"""Twenty results confirmed at once on the embedded default (a file SQLite database and a
Celery worker on the server-less broker, as ``make run`` starts them): 0 errors, nothing
lost (issue 12, point 2).

The test database of the other tests lives in memory, so the scenario runs in a
separate process against an SQLite file, configured only by the environment as
``make run`` is.  In that process a real Celery worker (the filesystem broker)
runs the rating and standings tasks the confirmations queue, while two more
threads keep recomputing the rating pool and the standings, and twenty API
clients, each with its own connection, confirm their results at the same
moment.

Run by hand with ``--without-sqlite-options`` (``python -m
tests.config.test_sqlite_concurrency --without-sqlite-options``, with the
variables of ``scenario_env``) it clears the SQLite options of the settings
first, to see the errors they prevent.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from tests.conftest import run_python

ROOT = Path(__file__).resolve().parents[2]
RESULTS = 20


def scenario_env(base: dict[str, str], tmp_path: Path) -> dict[str, str]:
    return dict(base, DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}")


def test_twenty_concurrent_confirmations_against_sqlite_lose_nothing(
    clean_env: dict[str, str], tmp_path: Path
) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "tests.config.test_sqlite_concurrency"],
        cwd=ROOT,
        env=scenario_env(clean_env, tmp_path),
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard only
    )
    assert completed.returncode == 0, completed.stderr[-5000:]
    outcome = json.loads(completed.stdout.strip().splitlines()[-1])
    assert outcome["journal_mode"] == "wal"
    assert outcome["errors"] == []
    assert outcome["statuses"] == [200] * RESULTS
    # The background tasks really ran alongside the confirmations, without an error.
    assert outcome["background_runs"] > 0 and outcome["background_errors"] == []
    # Nothing lost: every result official, every one rated, standings of all of them.
    assert outcome["official"] == RESULTS
    assert outcome["rating_changes"] == 2 * RESULTS
    assert outcome["ratings_equal_a_recomputation"] is True
    assert outcome["standings_wins"] == RESULTS
    assert outcome["standings_equal_a_recomputation"] is True
    assert outcome["outbox_left"] == 0


OPTIONS = """
import json, django
django.setup()
from django.conf import settings
print(json.dumps(settings.DATABASES["default"].get("OPTIONS", {})))
"""


def test_the_sqlite_options_apply_to_sqlite_only(clean_env: dict[str, str]) -> None:
    sqlite = run_python(OPTIONS, dict(clean_env, SQLITE_BUSY_TIMEOUT="12"))
    assert sqlite.returncode == 0, sqlite.stderr
    assert json.loads(sqlite.stdout) == {
        "transaction_mode": "IMMEDIATE",
        "timeout": 12,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
    }
    postgres = run_python(
        OPTIONS, dict(clean_env, DATABASE_URL="postgres://zary:secret@db.internal:5432/zary")
    )
    assert postgres.returncode == 0, postgres.stderr
    assert "transaction_mode" not in json.loads(postgres.stdout)


# --- the scenario, run in its own process ---------------------------------------------


def run_scenario(without_sqlite_options: bool) -> dict[str, Any]:
    import config.settings as project_settings

    if without_sqlite_options:
        project_settings.DATABASES["default"]["OPTIONS"] = {}
    project_settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

    import django

    django.setup()
    from django.test.utils import setup_test_environment

    setup_test_environment()  # the test client's host name, e-mail kept in memory

    from celery.contrib.testing.worker import start_worker
    from django.core.management import call_command
    from django.db import connection, connections
    from django.test import Client

    from clubs.models import FederationDiscipline
    from config.celery import app, ping
    from games import services as games_services
    from games.models import Match, ResultStatus
    from outbox.models import PendingTask
    from ratings import services as ratings_services
    from ratings.models import RatingChange
    from tests.ratings.test_services import history_values, rating_values
    from tests.tournaments import builders
    from tournaments import adapters
    from tournaments import services as tournaments_services
    from tournaments.models import StandingsSnapshot, Tournament

    call_command("migrate", verbosity=0)
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA journal_mode")
        journal_mode = cursor.fetchone()[0]

    federation, organizer, _ = builders.federation_with_admin()
    t = builders.tournament(
        2 * RESULTS, "swiss", federation=federation, by=organizer, rounds_planned=3
    )
    rated = FederationDiscipline.objects.create(
        federation=federation, discipline=t.discipline, rating_system="fibs"
    )
    pool = ratings_services.ensure_pool(rated)
    rnd = tournaments_services.pair_next_round(t, by=organizer)
    tournaments_services.start_round(rnd, by=organizer)
    pairings = list(rnd.pairings.select_related("match__player1__user", "match__player2__user"))
    assert len(pairings) == RESULTS
    confirmations = []
    for pairing in pairings:
        match = pairing.match
        report = games_services.submit_report(match, by=match.player1.user, score1=3, score2=1)
        client = Client()
        client.force_login(match.player2.user)
        confirmations.append((client, f"/api/reports/{report.pk}/confirm/"))
    connections.close_all()

    lock = threading.Lock()
    errors: list[str] = []
    statuses: list[int] = []
    background_errors: list[str] = []
    background_runs = 0
    stop = threading.Event()
    barrier = threading.Barrier(RESULTS + 2)

    def confirm(client: Client, url: str) -> None:
        try:
            barrier.wait()
            client.raise_request_exception = False
            response = client.post(url)
            with lock:
                statuses.append(response.status_code)
                if response.status_code != 200:
                    errors.append(f"{url}: {response.status_code} {response.content[:300]!r}")
        except Exception as error:  # reported by the assertions
            with lock:
                errors.append(f"{url}: {error!r}")
        finally:
            connections.close_all()

    def background(work: Any) -> None:
        """What the worker does after results, again and again while they arrive.

        A short pause between runs, as between a worker's tasks: SQLite's lock is
        not fair, and a writer that takes it back at once could starve the others
        past any busy timeout (no worker works that way).
        """
        nonlocal background_runs
        try:
            barrier.wait()
            while not stop.wait(0.02):
                try:
                    work()
                    with lock:
                        background_runs += 1
                except Exception as error:
                    with lock:
                        background_errors.append(repr(error))
        finally:
            connections.close_all()

    def standings() -> None:
        tournaments_services.compute_standings(Tournament(pk=t.pk))

    def ratings() -> None:
        ratings_services.recompute_pool(pool)

    with start_worker(app, pool="solo", perform_ping_check=False, shutdown_timeout=60):
        threads = [threading.Thread(target=confirm, args=pair) for pair in confirmations]
        helpers = [threading.Thread(target=background, args=(w,)) for w in (standings, ratings)]
        for thread in threads + helpers:
            thread.start()
        for thread in threads:
            thread.join()
        stop.set()
        for thread in helpers:
            thread.join()
        # Wait (a bounded number of round trips) for the worker to finish what the
        # results queued: every result rated, nothing owed, no standings asked for.
        for _ in range(60):
            ping.delay().get(timeout=120)
            rated = RatingChange.objects.filter(pool=pool).values("match_id").distinct()
            asked = Tournament.objects.filter(pk=t.pk, standings_requested_at__isnull=False)
            if (
                rated.count() == len(pairings)
                and not PendingTask.objects.exists()
                and not asked.exists()
            ):
                break
            stop.wait(0.5)
        connections.close_all()

    official = Match.objects.filter(
        pk__in=[p.match_id for p in pairings], result_status=ResultStatus.CONFIRMED
    ).count()
    rating_changes = RatingChange.objects.filter(pool=pool).count()
    as_updated = rating_values(pool), history_values(pool)
    ratings_services.recompute_pool(pool)
    snapshot = StandingsSnapshot.objects.get(tournament=t, after_round=1)
    rows, _tie_breaks, digest = tournaments_services.standings_rows(
        t, entries=adapters.entry_rows(t), pairings=list(adapters.pairing_rows(t)), after=1
    )
    return {
        "journal_mode": journal_mode,
        "errors": errors,
        "statuses": sorted(statuses),
        "background_runs": background_runs,
        "background_errors": background_errors,
        "official": official,
        "rating_changes": rating_changes,
        "ratings_equal_a_recomputation": as_updated == (rating_values(pool), history_values(pool)),
        "standings_wins": sum(row["wins"] for row in snapshot.rows),
        "standings_equal_a_recomputation": (snapshot.rows, snapshot.results_digest)
        == (rows, digest),
        "outbox_left": PendingTask.objects.count(),
    }


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    print(json.dumps(run_scenario("--without-sqlite-options" in sys.argv[1:])))
