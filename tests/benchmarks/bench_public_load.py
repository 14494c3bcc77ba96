"""Public pages under the round-start rush: gunicorn as in production, loaded by wrk.

    python -m tests.benchmarks.bench_public_load        (from the project folder)

Needs PostgreSQL on 127.0.0.1:5432 (user postgres, no password) and ``wrk``
(Debian: ``apt-get install wrk``); uses Redis on 127.0.0.1:6379 (database 14,
emptied) as the cache when it answers and the settings read ``CACHE_URL``.

Data, in its own database ``zary_bench_load`` (dropped and created again at
the start, kept afterwards for a look; ``--reuse`` keeps a built one and only
migrates it):

- a Swiss of 1,000 players built through the tournaments services as the
  system (``by=None``, like the demo): created, entries added, started; five
  rounds paired, started, every result entered with ``enter_result`` (one
  transaction per round) and closed; the standings after round 5 computed by
  calling ``compute_standings`` (not waiting for Celery) and published; round 6
  paired and started, the moment every player looks for their table;
- a rating list of 10,000 players: players, their live ratings and a published
  list written with ``bulk_create``.  They are read-only data for the pages,
  not what is measured, so they do not go through the services.  The 1,000
  tournament players are among them.

Then, for each page: (a) the public tournament page, (b) 1,000 players each
opening their own page in the tournament (its round page while there is no
player page; the tournament page while there is neither), (c) the full
standings (the tournament page while they have no page of their own), (d) the
rating list; and the ceiling, a static file served by the same gunicorn:

1. in this process, through Django's test client with the same settings: the
   size, the SQL queries and the time of one cold render (cache emptied first)
   and of the render after it;
2. ``gunicorn config.wsgi --workers 3`` (README "Running in production":
   DEBUG=0, a SECRET_KEY, ALLOWED_HOSTS=127.0.0.1, collectstatic into a scratch
   STATIC_ROOT) on 127.0.0.1 and a free port: first five requests in a row per
   page (the "1 client" column), then the load of wrk from this machine:
   50 connections for 60 s per page (``--connections``, ``--seconds`` or
   ``BENCH_LOAD_SECONDS``), anonymous, sent ``X-Forwarded-Proto: https`` as
   the HTTPS proxy in front of it would.  Printed: req/s, p50/p95/p99, errors
   (socket errors, time-outs at 30 s, answers other than 2xx/3xx) and req/s as
   a share of the static file's.  After each page the benchmark waits (at most
   5 minutes) until gunicorn has served what the load left queued, so that a
   slow page's backlog does not eat into the next page's run.

wrk and gunicorn share the machine's cores, as they would the reference
2-core machine's.  Nothing is timed as a test: the goals of issue 14 are
printed as met or missed.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

ROOT = Path(__file__).resolve().parents[2]
LUA_SCRIPT = Path(__file__).with_suffix(".lua")
PYTHON = Path(sys.executable)
GUNICORN = PYTHON.parent / "gunicorn"
SERVER = "postgresql://postgres@127.0.0.1:5432"
REDIS_HOST, REDIS_PORT, REDIS_DATABASE = "127.0.0.1", 6379, 14
FEDERATION_SLUG = "bench-load"
DISCIPLINE_CODE = "bench-long"
TOURNAMENT_SLUG = "bench-open"
STATIC_FILE = "games/board.css"
PROXY_HEADERS = {"X-Forwarded-Proto": "https"}
WORKERS = 3
REQUEST_TIMEOUT_SECONDS = 30  # gunicorn's worker time-out
STARTUP_SECONDS = 60

# The goals of issue 14.
P95_GOAL_MS = 150.0
THROUGHPUT_GOAL = 0.5  # of the static file's req/s
COLD_GOAL_MS = 250.0
SIZE_GOAL_BYTES = 200 * 1024


@dataclass
class Target:
    label: str
    paths: list[str]
    note: str = ""
    loaded: bool = True  # driven by wrk (else measured in process only)
    size: int = 0
    queries: int = 0
    warm_queries: int = 0
    cold_ms: float = 0.0
    warm_ms: float = 0.0
    one_client_ms: float = 0.0
    load: dict[str, float] = field(default_factory=dict)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, default=1000, help="the Swiss's field")
    parser.add_argument("--rounds", type=int, default=5, help="rounds played before the load")
    parser.add_argument("--rated", type=int, default=10_000, help="players on the rating list")
    parser.add_argument(
        "--seconds",
        type=int,
        default=int(os.environ.get("BENCH_LOAD_SECONDS", "60")),
        help="load per page (default 60, or BENCH_LOAD_SECONDS)",
    )
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--database", default="zary_bench_load")
    parser.add_argument("--reuse", action="store_true", help="keep a database built before")
    parser.add_argument("--no-redis", action="store_true", help="Django's default cache")
    parser.add_argument("--seed", type=int, default=14)
    args = parser.parse_args(argv)
    if not 1 <= args.seconds <= 600 or not 1 <= args.connections <= 1000:
        parser.error("--seconds 1..600 and --connections 1..1000 keep the load bounded")
    wrk = shutil.which("wrk")
    if wrk is None:
        print("wrk is not installed (Debian: apt-get install wrk)", file=sys.stderr)
        return 2

    with tempfile.TemporaryDirectory(prefix="zary-bench-load-") as scratch:
        env = server_environment(args, Path(scratch))
        os.environ.update(env)
        fresh = prepare_database(args.database, reuse=args.reuse)
        started = time.perf_counter()
        manage(env, "migrate", "--noinput")
        manage(env, "collectstatic", "--noinput")
        print(f"migrations and collectstatic: {time.perf_counter() - started:.1f} s")

        import django

        django.setup()
        from django.conf import settings

        print(f"cache: {settings.CACHES['default']['BACKEND']}")
        if fresh:
            build(args)
        elif built_already():
            print(f"data: reusing database {args.database}")
        else:
            raise SystemExit(f"{args.database} holds no finished build: run without --reuse")
        targets = find_targets()
        measure_in_process(targets)
        from django.db import connections

        connections.close_all()
        with gunicorn(env, Path(scratch)) as base_url:
            for target in targets:
                target.one_client_ms = one_client(base_url, target)
            print(f"load average before the load: {os.getloadavg()[0]:.1f}", flush=True)
            for target in targets:
                if target.loaded:
                    target.load = run_wrk(wrk, base_url, target, args, Path(scratch))
                    drain(base_url + targets[0].paths[0])
        from django.core.cache import cache

        cache.clear()  # nothing of this database left behind in Redis
        report(targets, args)
    return 0


# --- Set-up: environment, database, management commands -----------------------


def server_environment(args: argparse.Namespace, scratch: Path) -> dict[str, str]:
    """The production settings of README "Running in production", pointing at the
    bench database, with every file the run writes in ``scratch``."""
    env = {
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": f"{SERVER}/{args.database}",
        "ZARY_VAR_DIR": str(scratch / "var"),  # the file broker's queue: nobody consumes it
        "STATIC_ROOT": str(scratch / "static"),
        "MEDIA_ROOT": str(scratch / "media"),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PYTHONPATH": str(ROOT),  # this checkout's code, whatever the venv's install points at
    }
    if not args.no_redis and redis_answers():
        env["CACHE_URL"] = f"redis://{REDIS_HOST}:{REDIS_PORT}/{REDIS_DATABASE}"
    return env


def redis_answers() -> bool:
    try:
        with socket.create_connection((REDIS_HOST, REDIS_PORT), timeout=1) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def prepare_database(name: str, *, reuse: bool) -> bool:
    """Create the bench database (dropped first unless ``reuse``); True if new."""
    import psycopg

    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        raise SystemExit(f"not a plain database name: {name!r}")
    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as admin:
        exists = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if exists and reuse:
            return False
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    return True


def manage(env: dict[str, str], *command: str) -> None:
    subprocess.run(
        [str(PYTHON), "manage.py", *command, "-v", "0"],
        cwd=ROOT,
        env={**os.environ, **env},
        check=True,
        timeout=600,
    )


def built_already() -> bool:
    from tournaments.models import StandingsSnapshot

    return StandingsSnapshot.objects.filter(
        tournament__slug=TOURNAMENT_SLUG, published_at__isnull=False
    ).exists()


# --- The data -------------------------------------------------------------------


@contextmanager
def phase(name: str) -> Iterator[None]:
    started = time.perf_counter()
    yield
    print(f"    {name:52} {time.perf_counter() - started:7.1f} s", flush=True)


def build(args: argparse.Namespace) -> None:
    from clubs import services as clubs_services
    from clubs.models import Discipline, FederationDiscipline

    rng = random.Random(args.seed)
    started = time.perf_counter()
    print("data:")
    with phase("federation, discipline"):
        discipline, _ = Discipline.objects.get_or_create(
            code=DISCIPLINE_CODE,
            defaults={"name": "Long nardy", "variant": "long", "scoring_preset": "long-masters"},
        )
        federation = clubs_services.create_federation(
            by=None, slug=FEDERATION_SLUG, name="Bench federation", short_name="BENCH"
        )
        rated = FederationDiscipline.objects.create(federation=federation, discipline=discipline)
    with phase(f"{args.rated:,} rated players and a published list (bulk)"):
        players = rating_list(rated, args.rated, rng)
    build_swiss(args, federation, discipline, players[: args.players], rng)
    print(f"    {'data built in':52} {time.perf_counter() - started:7.1f} s")


def rating_list(rated: Any, count: int, rng: random.Random) -> list[Any]:
    """``count`` players with live ratings and a published list of them, best first."""
    from django.utils import timezone

    from clubs.models import Player
    from ratings import services as ratings_services
    from ratings.models import PlayerRating, RatingList, RatingListEntry

    pool = ratings_services.ensure_pool(rated)
    players = Player.objects.bulk_create(
        (
            Player(
                name_native=f"Игроков-{n} Игорь Петрович",
                name_latin=f"Igrokov-{n} Igor",
                federation=rated.federation,
                membership_number=f"BENCH-{n:05d}",
            )
            for n in range(1, count + 1)
        ),
        batch_size=2000,
    )
    now = timezone.now()
    ratings = [
        PlayerRating(
            pool=pool,
            player=player,
            rating=round(rng.gauss(1500, 180), 2),
            experience=rng.randint(5, 900),
            matches=rng.randint(1, 400),
            last_played_at=now,
        )
        for player in players
    ]
    PlayerRating.objects.bulk_create(ratings, batch_size=2000)
    published = RatingList.objects.create(pool=pool, date=timezone.localdate(), published_at=now)
    ranked = sorted(ratings, key=lambda r: (-r.rating, r.player_id))
    RatingListEntry.objects.bulk_create(
        (
            RatingListEntry(
                rating_list=published,
                player_id=r.player_id,
                rank=rank,
                rating=r.rating,
                experience=r.experience,
                matches=r.matches,
                provisional=r.experience < 400,
                change=round(rng.uniform(-30, 30), 2),
            )
            for rank, r in enumerate(ranked, start=1)
        ),
        batch_size=2000,
    )
    # Shuffled: the Swiss's field takes the first ones, from all over the list.
    shuffled = list(players)
    rng.shuffle(shuffled)
    return shuffled


def build_swiss(
    args: argparse.Namespace, federation: Any, discipline: Any, field: list[Any], rng: random.Random
) -> None:
    from django.db import transaction

    from tournaments import services
    from tournaments.models import Pairing, StandingsSnapshot, TournamentState

    with phase(f"Swiss: created, {len(field):,} entries added, started"):
        tournament = services.create_tournament(
            by=None,
            federation=federation,
            name="Bench Open",
            slug=TOURNAMENT_SLUG,
            discipline=discipline,
            format="swiss",
            rounds_planned=9,
            match_length=7,
        )
        services.set_state(tournament, TournamentState.REGISTRATION, by=None)
        for player in field:
            services.add_entry(tournament, player, by=None)
        services.start_tournament(tournament, by=None)
    for number in range(1, args.rounds + 1):
        with phase(f"round {number}: paired"):
            rnd = services.pair_next_round(tournament, by=None)
        with phase(f"round {number}: started (a match per table)"):
            services.start_round(rnd, by=None)
        tables = list(
            Pairing.objects.filter(round=rnd, match__isnull=False)
            .select_related("match", "entry1", "entry2")
            .order_by("table")
        )
        entering = f"round {number}: {len(tables)} results entered, one transaction"
        with phase(entering), transaction.atomic():
            for pairing in tables:
                score = result(pairing, rng)
                services.enter_result(pairing, by=None, score1=score[0], score2=score[1])
        with phase(f"round {number}: closed"):
            services.close_round(rnd, by=None)
    with phase(f"standings after round {args.rounds}: computed and published"):
        snapshot = services.compute_standings(tournament)
        assert snapshot is not None and snapshot.after_round == args.rounds, snapshot
        if snapshot.published_at is None:
            services.publish_standings(snapshot, by=None)
        assert StandingsSnapshot.objects.get(pk=snapshot.pk).published_at is not None
    with phase(f"round {args.rounds + 1}: paired and started"):
        services.start_round(services.pair_next_round(tournament, by=None), by=None)


def result(pairing: Any, rng: random.Random) -> tuple[int, int]:
    """A final score: the better rated player wins more often."""
    length = pairing.match.length
    gap = (pairing.entry1.rating or 1500.0) - (pairing.entry2.rating or 1500.0)
    first_wins = rng.random() < 1 / (1 + 10 ** (-gap / 400))
    loser = rng.randint(0, length - 1)
    return (length, loser) if first_wins else (loser, length)


# --- The pages --------------------------------------------------------------------


def find_targets() -> list[Target]:
    """The pages under load, their addresses from the URL names (``reverse``) as they
    are now: a page that does not exist yet falls back as the docstring says."""
    from django.templatetags.static import static
    from django.urls import reverse

    from clubs.models import FederationDiscipline
    from tournaments.models import Entry, Round, Tournament

    tournament = Tournament.objects.select_related("federation").get(
        federation__slug=FEDERATION_SLUG, slug=TOURNAMENT_SLUG
    )
    current = Round.objects.filter(tournament=tournament).order_by("-number").first()
    assert current is not None
    home = reverse(
        "tournaments:public", kwargs={"federation": FEDERATION_SLUG, "slug": tournament.slug}
    )
    known: dict[str, object] = {
        "federation": FEDERATION_SLUG,
        "slug": tournament.slug,
        "number": current.number,
        "round": current.number,
        "round_number": current.number,
        "rid": current.pk,
        "round_id": current.pk,
        "flight": current.flight,
    }
    entries = list(Entry.objects.filter(tournament=tournament).order_by("pk"))
    player_paths = [
        url_of("tournaments:public_player", {**known, **entry_values(entry)}) for entry in entries
    ]
    if None not in player_paths:
        players, note = [p for p in player_paths if p], "each player's own page"
    else:
        round_page = url_of("tournaments:public_round", known)
        players = [round_page or home]
        note = (
            "no player page yet: the current round's page"
            if round_page
            else "no player or round page yet: the tournament page"
        )
    standings = url_of("tournaments:public_standings", known)
    link = FederationDiscipline.objects.get(
        federation__slug=FEDERATION_SLUG, discipline__code=DISCIPLINE_CODE
    )
    ratings = reverse(
        "ratings:pool", kwargs={"slug": FEDERATION_SLUG, "code": link.discipline.code}
    )
    return [
        Target("static file (ceiling)", [static(STATIC_FILE)], STATIC_FILE),
        Target("(a) tournament page", [home]),
        Target(f"(b) {len(entries):,} players' pages", players, note),
        Target(
            "(c) full standings",
            [standings or home],
            "" if standings else "no standings page yet: the tournament page",
        ),
        Target("(d) rating list", [ratings], "the published list"),
        Target("    live rating list", [ratings + "?live=1"], "not loaded", loaded=False),
    ]


def entry_values(entry: Any) -> dict[str, object]:
    """What a player's address in a tournament may be made of."""
    return {
        "entry": entry.pk,
        "eid": entry.pk,
        "entry_id": entry.pk,
        "pid": entry.player_id,
        "player": entry.player_id,
        "player_id": entry.player_id,
    }


def url_of(name: str, known: dict[str, object]) -> str | None:
    """``name`` reversed with the values its pattern asks for; None while no such URL."""
    from django.urls import NoReverseMatch, get_resolver, reverse

    namespace, _, short = name.partition(":")
    try:
        _prefix, resolver = get_resolver().namespace_dict[namespace]
    except KeyError:
        return None
    for possibilities, _pattern, _defaults, _converters in resolver.reverse_dict.getlist(short):
        for _format, params in possibilities:
            if set(params) <= set(known):
                try:
                    return str(reverse(name, kwargs={p: known[p] for p in params}))
                except NoReverseMatch:
                    continue
    if resolver.reverse_dict.getlist(short):
        raise SystemExit(f"{name}: its parameters are not among {sorted(known)}")
    return None


def measure_in_process(targets: list[Target]) -> None:
    """Size, queries and render times of each page through the test client, with the
    server's settings: the cache emptied first (cold), then once more (warm)."""
    from django.core.cache import cache
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST="127.0.0.1")

    def get(path: str) -> tuple[Any, bytes, float, int]:
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            response = client.get(path, secure=True)
            body = b"".join(response.streaming_content) if response.streaming else response.content
            elapsed = time.perf_counter() - started
        return response, body, elapsed * 1000, len(captured)

    get(targets[0].paths[0])  # the URL resolver and middleware loaded once
    for target in targets:
        path = target.paths[0]
        cache.clear()
        response, body, target.cold_ms, target.queries = get(path)
        _, _, target.warm_ms, target.warm_queries = get(path)
        target.size = len(body)
        if response.status_code != 200:
            raise SystemExit(f"{target.label}: {path} answers {response.status_code}")
        if len(target.paths) > 1:  # the last address too, so a bad one fails here
            last = get(target.paths[-1])[0]
            if last.status_code != 200:
                raise SystemExit(f"{target.label}: {target.paths[-1]} answers {last.status_code}")
    cache.clear()


# --- The server and the load ------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def gunicorn(env: dict[str, str], scratch: Path) -> Iterator[str]:
    """gunicorn as documented for production, on 127.0.0.1; stopped on the way out."""
    port = free_port()
    log = scratch / "gunicorn.log"
    command = [
        str(GUNICORN),
        "config.wsgi",
        "--bind",
        f"127.0.0.1:{port}",
        "--workers",
        str(WORKERS),
        "--error-logfile",
        str(log),
    ]
    server = subprocess.Popen(command, cwd=ROOT, env={**os.environ, **env})
    base_url = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(base_url + "/healthz", server, log)
        print(f"gunicorn: {' '.join(command[1:])} (pid {server.pid})", flush=True)
        yield base_url
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(timeout=10)


def fetch(url: str) -> bytes:
    request = urllib.request.Request(url, headers=PROXY_HEADERS)
    with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_SECONDS) as answer:
        body: bytes = answer.read()
        return body


def one_client(base_url: str, target: Target, count: int = 5) -> float:
    """The median time of ``count`` requests one after the other (ms), the first
    addresses of the target's; the server's caches as the runs before left them."""
    times = []
    for path in (target.paths * count)[:count]:
        started = time.perf_counter()
        fetch(base_url + path)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def wait_until_serving(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"gunicorn stopped:\n{log.read_text()[-3000:]}")
        try:
            fetch(url)
            return
        except OSError:
            time.sleep(0.3)
    raise SystemExit(f"gunicorn did not answer in {STARTUP_SECONDS} s")


def drain(url: str, bound_seconds: float = 300.0) -> None:
    """Wait until the requests the last load left queued in gunicorn are served (a
    sync worker finishes a request its client gave up on), so that they do not eat
    into the next page's run: until the static file answers within a second."""
    started = time.monotonic()
    while time.monotonic() - started < bound_seconds:
        asked = time.monotonic()
        try:
            fetch(url)
        except OSError:
            continue
        if time.monotonic() - asked < 1.0:
            waited = time.monotonic() - started
            if waited >= 1.0:
                print(f"    the server caught up {waited:.0f} s after the load", flush=True)
            return
    print(f"    the server was still busy {bound_seconds:.0f} s after the load", flush=True)


def run_wrk(
    wrk: str, base_url: str, target: Target, args: argparse.Namespace, scratch: Path
) -> dict[str, float]:
    command = [
        wrk,
        f"--threads={min(args.threads, args.connections)}",
        f"--connections={args.connections}",
        f"--duration={args.seconds}s",
        f"--timeout={REQUEST_TIMEOUT_SECONDS}s",
        "--script",
        str(LUA_SCRIPT),
    ]
    for name, value in PROXY_HEADERS.items():
        command += ["--header", f"{name}: {value}"]
    command.append(base_url + target.paths[0])
    if len(target.paths) > 1:
        listing = scratch / "paths.txt"
        listing.write_text("\n".join(target.paths) + "\n")
        command += ["--", str(listing)]
    print(f"load: {target.label} for {args.seconds} s ...", flush=True)
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=args.seconds + 120, check=True
    )
    line = next(
        (x for x in done.stdout.splitlines() if x.startswith("BENCH-RESULT ")),
        None,
    )
    if line is None:
        raise SystemExit(f"wrk printed no result:\n{done.stdout}\n{done.stderr}")
    figures = {k: float(v) for k, v in (pair.split("=") for pair in line.split()[1:])}
    seconds = figures["duration_us"] / 1e6
    if not figures["requests"]:  # no answer within the run: no latency to tell
        figures.update(p50_us=math.inf, p95_us=math.inf, p99_us=math.inf)
    socket_errors = sum(figures[k] for k in ("connect", "read", "write", "timeout"))
    return {
        "rps": figures["requests"] / seconds,
        "requests": figures["requests"],
        "p50": figures["p50_us"] / 1000,
        "p95": figures["p95_us"] / 1000,
        "p99": figures["p99_us"] / 1000,
        "errors": socket_errors + figures["status"],
        "status_errors": figures["status"],
        "timeouts": figures["timeout"],
    }


# --- The report -------------------------------------------------------------------


def report(targets: list[Target], args: argparse.Namespace) -> None:
    import django
    from django.db import connection

    commit = (
        subprocess.run(
            ["git", "log", "-1", "--format=%h %cI"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        or f"unknown ({ROOT} is not a git checkout)"
    )
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.strip()
    print()
    print(
        f"run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit}"
        f"{' plus uncommitted changes' if dirty else ''}; Django {django.get_version()}, "
        f"PostgreSQL {connection.cursor().connection.info.server_version}; "
        f"{os.cpu_count()} cores; gunicorn {WORKERS} sync workers; wrk {args.threads} threads, "
        f"{args.connections} connections, {args.seconds} s per page"
    )
    ceiling = targets[0].load.get("rps", 0.0)
    header = (
        f"{'page':30} {'size':>9} {'SQL':>4} {'cold':>8} {'warm':>8} {'1 client':>8} "
        f"{'answers':>7} {'req/s':>8} {'p50':>8} {'p95':>8} {'p99':>8} {'errors':>7} {'of static':>9}"
    )
    print(header)
    print("-" * len(header))
    for t in targets:
        load = t.load
        cells = (
            f"{load['requests']:7.0f} {load['rps']:8.1f} {ms(load['p50'])} {ms(load['p95'])} {ms(load['p99'])} "
            f"{load['errors']:7.0f} {load['rps'] / ceiling:9.2%}"
            if load
            else f"{'':7} {'':8} {'':8} {'':8} {'':8} {'':7} {'':9}"
        )
        print(
            f"{t.label:30} {t.size / 1024:7.1f}KB {t.queries:4d} {ms(t.cold_ms)} "
            f"{ms(t.warm_ms)} {ms(t.one_client_ms)} {cells}"
        )
    print("(size, SQL, cold and warm: one request in this process, the cache emptied before")
    print(" 'cold', SQL counting that one; 1 client: the median of 5 requests in a row through")
    print(" gunicorn; answers: within the run; errors: socket errors, time-outs at")
    print(
        f" {REQUEST_TIMEOUT_SECONDS} s, answers other than 2xx/3xx; 'none': no answer in the run)"
    )
    for t in targets:
        notes = [t.note] if t.note else []
        if t.warm_queries != t.queries:
            notes.append(f"SQL warm: {t.warm_queries}")
        print(f"  {t.label.strip()}: {t.paths[0]}{''.join(f'; {n}' for n in notes)}")
    pages = targets[1:]
    loaded = [t for t in pages if t.load]
    print("goals (issue 14):")
    verdict(
        f"p95 <= {P95_GOAL_MS:.0f} ms and no errors under load",
        all(t.load["p95"] <= P95_GOAL_MS and t.load["errors"] == 0 for t in loaded),
        ", ".join(f"{short(t)} {ms(t.load['p95']).strip()}/{t.load['errors']:.0f}" for t in loaded),
    )
    verdict(
        f"req/s at least {THROUGHPUT_GOAL:.0%} of the static file's",
        all(t.load["rps"] >= THROUGHPUT_GOAL * ceiling for t in loaded),
        ", ".join(f"{short(t)} {t.load['rps'] / ceiling:.1%}" for t in loaded),
    )
    verdict(
        f"a cold render <= {COLD_GOAL_MS:.0f} ms",
        all(t.cold_ms <= COLD_GOAL_MS for t in pages),
        ", ".join(f"{short(t)} {t.cold_ms:.0f} ms" for t in pages),
    )
    verdict(
        f"no page over {SIZE_GOAL_BYTES // 1024} KB",
        all(t.size <= SIZE_GOAL_BYTES for t in pages),
        ", ".join(f"{short(t)} {t.size / 1024:.0f} KB" for t in pages),
    )


def ms(value: float) -> str:
    if math.isinf(value):
        return f"{'none':>8}"
    return f"{value:6.0f}ms" if value >= 10 else f"{value:6.1f}ms"


def short(target: Target) -> str:
    return target.label.split()[0] if target.label.startswith("(") else "live list"


def verdict(goal: str, met: bool, figures: str) -> None:
    print(f"  {'met   ' if met else 'MISSED'} {goal}: {figures}")


if __name__ == "__main__":
    sys.exit(main())
