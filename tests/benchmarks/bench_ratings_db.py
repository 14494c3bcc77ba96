"""Ratings with PostgreSQL: a full recomputation of a big pool, and one result's update.

    python -m tests.benchmarks.bench_ratings_db        (from the project folder)

Needs PostgreSQL.  With DATABASE_URL pointing at PostgreSQL, Django's test
database next to it is used (``test_<name>``, created and destroyed here);
otherwise a scratch database ``zary_bench_<pid>`` is created on 127.0.0.1 as
user postgres and dropped afterwards.

Setup (timed, but not part of any measurement): one FIBS pool, 10,000
players, 1,000,000 confirmed matches among them (the generator of
bench_ratings_maths, seeded), inserted with COPY.  Then, in the same run:

1. the reference: the pure maths of ``ratings.core.recompute`` over the same
   matches in memory, history rows streamed to a sink that drops them;
2. ``ratings.services.recompute_pool`` from scratch: reading the matches
   from PostgreSQL, computing, writing 2,000,000 history rows with COPY and
   10,000 ratings, committing.  Goal (RATINGS.md): under 30 s on a 2-core
   machine.  Printed with its phases and its ratio to the reference;
3. the incremental path: new results after everything computed, each timed
   through ``ratings.services.update_after_match`` (what the Celery task runs),
   committed.  Goal: under 50 ms.  Reference: one primary-key SELECT round
   trip measured in the same run (the update costs a handful of them);
4. for information (``--late``): a late result in the middle of the history,
   which recomputes from it (half of the history rows rewritten).

Wall-clock times: the database server works in another process.  The
results are checked (the stored ratings equal the pure maths exactly) before
anything is printed as met.
"""

from __future__ import annotations

import argparse
import enum
import os
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

from tests.benchmarks.bench_ratings_maths import generate

FULL_GOAL_SECONDS = 30.0
INCREMENTAL_GOAL_SECONDS = 0.050
SCRATCH_SERVER = "postgres://postgres@127.0.0.1:5432/postgres"


def is_postgres(url: str | None) -> bool:
    return bool(url) and urlsplit(url or "").scheme in ("postgres", "postgresql", "pgsql")


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, parts.fragment))


def conninfo(url: str) -> str:
    """A libpq URL (psycopg does not know Django's ``pgsql`` or ``postgres`` aliases)."""
    parts = urlsplit(url)
    return urlunsplit(("postgresql", parts.netloc, parts.path, parts.query, ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--matches", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--updates", type=int, default=20, help="incremental updates timed")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--late", action=argparse.BooleanOptionalAction, default=True, help="time a late result"
    )
    args = parser.parse_args(argv)

    given = os.environ.get("DATABASE_URL")
    scratch: str | None = None
    if not is_postgres(given):
        import psycopg

        scratch = f"zary_bench_{os.getpid()}"
        with psycopg.connect(conninfo(SCRATCH_SERVER), autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{scratch}"')
        os.environ["DATABASE_URL"] = with_database(SCRATCH_SERVER, scratch)
    try:
        django.setup()
        from django.db import connection

        started = time.perf_counter()
        if scratch is None:
            old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
        else:
            from django.core.management import call_command

            call_command("migrate", verbosity=0, interactive=False)
        migrated = time.perf_counter() - started
        try:
            run(args, migrated)
        finally:
            if scratch is None:
                connection.creation.destroy_test_db(old_name, verbosity=0)
            else:
                connection.close()
    finally:
        if scratch is not None:
            import psycopg

            with psycopg.connect(conninfo(SCRATCH_SERVER), autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{scratch}" WITH (FORCE)')
    return 0


def plain(value: Any) -> Any:
    return value.value if isinstance(value, enum.Enum) else value


def setup(args: argparse.Namespace) -> tuple[Any, list[Any], dict[int, int]]:
    """The pool, the generated matches, and generated player number -> Player id."""
    from django.db import connection
    from django.utils import timezone

    from clubs.models import Discipline, Federation, FederationDiscipline, Player
    from games.models import Match, MatchState, ResultStatus
    from ratings import services

    federation = Federation.objects.create(name="Bench federation", slug="bench")
    discipline = Discipline.objects.create(
        code="bench-short", name="Short nardy", variant="short", scoring_preset="short-standard"
    )
    rated = FederationDiscipline.objects.create(federation=federation, discipline=discipline)
    pool = services.ensure_pool(rated)
    players = Player.objects.bulk_create(
        (
            Player(name_native=f"Игрок {n}", name_latin=f"Igrok {n}", federation=federation)
            for n in range(args.players)
        ),
        batch_size=5000,
    )
    ids = {n: player.pk for n, player in enumerate(players)}

    matches = generate(args.matches, args.players, args.seed)
    fields = [f for f in Match._meta.concrete_fields if not f.primary_key]
    now = timezone.now()
    base = {f.attname: plain(f.get_default()) for f in fields}
    base.update(
        discipline_id=discipline.pk,
        federation_id=federation.pk,
        state=MatchState.FINISHED.value,
        result_status=ResultStatus.CONFIRMED.value,
        created_at=now,
    )
    names = [f.attname for f in fields]
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    table = connection.ops.quote_name(Match._meta.db_table)
    with (
        connection.cursor() as cursor,
        cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy,
    ):
        row = dict(base)
        for number, match in enumerate(matches):
            # Half the winners are player 1, half player 2.
            first = number % 2 == 0
            one, two = (match.winner, match.loser) if first else (match.loser, match.winner)
            row["player1_id"] = ids[one]
            row["player2_id"] = ids[two]
            row["length"] = match.length
            row["winner"] = 1 if first else 2
            row["score1"] = match.length if first else 0
            row["score2"] = 0 if first else match.length
            row["started_at"] = match.played_at - timedelta(minutes=30)
            row["finished_at"] = match.played_at
            copy.write_row([row[name] for name in names])
    with connection.cursor() as cursor:
        # Planner statistics and the visibility map, as autovacuum would leave them
        # (and so that autovacuum does not start on the new rows mid-measurement).
        cursor.execute("VACUUM ANALYZE")
    return pool, matches, ids


def run(args: argparse.Namespace, migrated: float) -> None:
    from django.db import connection
    from django.db.models import Max
    from django.test.utils import CaptureQueriesContext

    from games.models import Match, MatchState, ResultStatus
    from ratings import services
    from ratings.core import FibsSettings, recompute
    from ratings.models import PlayerRating, RatingChange

    started = time.perf_counter()
    pool, generated, ids = setup(args)
    built = time.perf_counter() - started
    n = len(generated)
    print(
        f"setup: migrations {migrated:.1f} s; {args.players:,} players and {n:,} matches "
        f"inserted with COPY in {built:.1f} s (not measured); PostgreSQL "
        f"{connection.cursor().connection.info.server_version}"
    )

    # 1. The reference: the same maths in memory.
    def drop(rows: list[Any]) -> None:
        return None

    by_id = {v: k for k, v in ids.items()}
    started, cpu = time.perf_counter(), time.process_time()
    reference_state, _ = recompute(FibsSettings(), generated, sink=drop)
    maths, maths_cpu = time.perf_counter() - started, time.process_time() - cpu

    # 2. From scratch, with the database.
    started = time.perf_counter()
    outcome = services.recompute_pool(pool)
    full = time.perf_counter() - started
    rows = RatingChange.objects.filter(pool=pool).count()
    stored = dict(PlayerRating.objects.filter(pool=pool).values_list("player_id", "rating"))
    expected = {ids[p]: s.rating for p, s in reference_state.players.items()}
    assert outcome.matches == n and rows == 2 * n, (outcome, rows)
    assert stored == expected, "the stored ratings differ from the pure maths"
    assert {by_id[p] for p in stored} == set(reference_state.players)

    print(
        f"reference: pure maths over the same {n:,} matches, rows streamed: {maths:6.2f} s "
        f"({maths_cpu:.2f} s CPU)"
    )
    print(
        f"full recompute from scratch: {full:6.2f} s  ({n:,} matches read, "
        f"{rows:,} history rows written with COPY, {len(stored):,} ratings)"
    )
    for phase, seconds in outcome.seconds.items():
        print(f"    {phase:28} {seconds:6.2f} s")
    print(f"    {'commit and the rest':28} {full - sum(outcome.seconds.values()):6.2f} s")
    print(f"ratio: the database recompute takes {full / maths:.1f}x the pure maths")
    verdict = "goal met" if full < FULL_GOAL_SECONDS else "below goal"
    print(
        f"{verdict}: goal under {FULL_GOAL_SECONDS:.0f} s for 1,000,000 matches among 10,000 "
        f"players (RATINGS.md reference: about 28 s)"
    )

    # 3. The incremental path: one new result at a time, each committed.
    last = Match.objects.aggregate(Max("finished_at"))["finished_at__max"]
    players = list(ids.values())
    times: list[float] = []
    queries = 0
    for k in range(args.updates + 1):
        one, two = players[(7 * k) % len(players)], players[(7 * k + 3) % len(players)]
        match = Match.objects.create(
            player1_id=one,
            player2_id=two,
            discipline_id=pool.rated_discipline.discipline_id,
            federation_id=pool.rated_discipline.federation_id,
            length=7,
            state=MatchState.FINISHED,
            result_status=ResultStatus.CONFIRMED,
            winner=1 + k % 2,
            score1=7 if k % 2 == 0 else 3,
            score2=3 if k % 2 == 0 else 7,
            finished_at=last + timedelta(minutes=k + 1),
        )
        if k == args.updates:  # one more, not timed, to count its queries
            with CaptureQueriesContext(connection) as captured:
                [done] = services.update_after_match(match.pk)
            queries = len(captured)
        else:
            started = time.perf_counter()
            [done] = services.update_after_match(match.pk)
            times.append(time.perf_counter() - started)
        assert done.action == "applied", done
    round_trips = []
    for _ in range(50):
        started = time.perf_counter()
        Match.objects.filter(pk=match.pk).exists()
        round_trips.append(time.perf_counter() - started)
    round_trip = statistics.median(round_trips)
    median = statistics.median(times)
    assert RatingChange.objects.filter(pool=pool).count() == 2 * (n + args.updates + 1)
    print(
        f"incremental update after one result: median {median * 1000:.1f} ms, "
        f"worst {max(times) * 1000:.1f} ms over {len(times)} results ({queries} queries each)"
    )
    print(f"reference: one primary-key SELECT round trip {round_trip * 1000:.2f} ms")
    print(f"ratio: an update costs {median / round_trip:.0f} round trips")
    verdict = "goal met" if median < INCREMENTAL_GOAL_SECONDS else "below goal"
    print(f"{verdict}: goal under {INCREMENTAL_GOAL_SECONDS * 1000:.0f} ms")

    # 4. For information: a late result in the middle of the history.
    if args.late:
        middle = generated[n // 2]
        late = Match.objects.create(
            player1_id=ids[middle.loser],
            player2_id=ids[middle.winner],
            discipline_id=pool.rated_discipline.discipline_id,
            federation_id=pool.rated_discipline.federation_id,
            length=5,
            state=MatchState.FINISHED,
            result_status=ResultStatus.CONFIRMED,
            winner=1,
            score1=5,
            score2=2,
            finished_at=middle.played_at + timedelta(seconds=1),
        )
        started = time.perf_counter()
        [done] = services.update_after_match(late.pk)
        elapsed = time.perf_counter() - started
        assert done.action == "recomputed", done
        print(
            f"for information: a late result in the middle recomputes from it in "
            f"{elapsed:.2f} s ({done.matches:,} matches, {done.rows:,} history rows rewritten)"
        )


if __name__ == "__main__":
    sys.exit(main())
