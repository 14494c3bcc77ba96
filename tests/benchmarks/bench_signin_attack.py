"""Readers of public pages while one address guesses passwords (issue 20).

    python -m tests.benchmarks.bench_signin_attack        (from the project folder)

Needs PostgreSQL on 127.0.0.1:5432 (user postgres, no password), Redis on
127.0.0.1:6379 (database 12, emptied at the start and the end: the page cache and
the throttles' counts are shared by the workers as in production) and ``wrk``.

The server is the one of ``bench_public_load`` (its set-up is reused): gunicorn
with 3 sync workers and the production settings on 127.0.0.1, in front of which an
nginx is modelled: ``SIGNIN_PROXY_COUNT=1`` and every client sends the
``X-Forwarded-For`` and ``X-Forwarded-Proto: https`` that nginx would add, the
readers from one address, the attacker from another.  The data, in its own
database ``zary_bench_signin`` (dropped and created again; ``--reuse`` keeps it):
``bench_public_load``'s world at a smaller size (a Swiss of 200 players, 3 rounds
played and its standings published, round 4 started; a rating list of 2,000), and
one account, the attacked official's.

The readers: wrk, 20 connections, cycling through the public pages (home, the
federation, the tournament, its standings, the current round or the players'
pages, the rating list), each fetched once first so that the page cache holds
what it would.  The attacker: one client that opens the sign-in page for its
CSRF cookie and token, as a script would, then posts wrong passwords to
``/accounts/login/`` one after the other, as fast as the server answers: every
fourth one to the official's account, the others to unknown names.  The
lockout (clubs.lockout) should let ``SIGNIN_ADDRESS_FAILURES`` of them be
checked (each a password hash, "the form again", 200) and refuse the rest with
429 before hashing.

Phases, the remembered failures deleted before each:

A. the readers alone for ``--seconds`` (20);
B. the readers while the attacker sends ``--attempts`` guesses; the readers
   stop when the attack ends;
B1. the same, the attack stopped at the address's lockout: the readers' worst
   window, while every guess costs a password hash;
C. the attack alone;
A2. the readers alone again: how much the shared machine drifted meanwhile;
D. ``--basic`` (300; 0: none) API requests with wrong ``Authorization: Basic``
   credentials from the attacker's address, alone: refused with 401 (429 once
   locked, while the API reads Basic credentials at all); their server CPU.

Measured: the readers' latencies (wrk: p50/p95/p99), the attack's answers by
status and its wall time, and the server's CPU time: user + system time of
gunicorn's processes and of PostgreSQL's backends serving the bench database, read
from /proc before and after each phase (Redis's is left out: it is shared with
whatever else runs).  The attack's CPU is phase C's, split at the lockout; phase
B's minus the readers' share (phase A's CPU per read times B's reads) is shown
as a check.  Nothing is timed as a test: the goal of issue 20 (the readers' p95
under attack within 1.5 times phase A's) is printed as met or missed.  The
benchmark stops with an error when the set-up is wrong: a reader got an answer
other than 200, the attack was answered other than 200/429, or the lockout did not
come when the settings say it should.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.benchmarks import bench_public_load as load

LUA_SCRIPT = Path(__file__).with_suffix(".lua")
REDIS_DATABASE = 12
READERS_ADDRESS = "198.51.100.20"  # documentation addresses (RFC 5737)
ATTACKER_ADDRESS = "203.0.113.66"
KNOWN_USERNAME = "bench-official"
REQUEST_TIMEOUT_SECONDS = 30
PHASE_BOUND_SECONDS = 600  # no phase runs longer, whatever the machine
P95_GOAL_RATIO = 1.5  # issue 20
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Readers:
    requests: int = 0
    seconds: float = 0.0
    p50: float = 0.0
    p95: float = 0.0
    p99: float = 0.0
    worst: float = 0.0


@dataclass
class Attack:
    statuses: Counter[int] = field(default_factory=Counter)
    seconds: float = 0.0
    address_locked_at: int = 0  # the guess (1-based) first refused for an unknown name
    known_locked_at: int = 0  # the official's try (1-based, his own count) first refused
    counter_at_lockout: dict[Any, float] | None = None  # the server's CPU then (phase C)
    cpu_before_lockout: float = 0.0  # the server's CPU up to then (phase C)
    partial: bool = False  # stopped at the address's lockout
    basic: bool = False  # Basic credentials on the API, not the sign-in form


@dataclass
class Phase:
    name: str
    readers: Readers | None = None
    attack: Attack | None = None
    cpu: tuple[float, float] = (0.0, 0.0)  # gunicorn, PostgreSQL
    cpu_start: dict[tuple[int, int], float] = field(default_factory=dict)
    machine_start: tuple[float, float, float] = (0.0, 0.0, 0.0)
    wall: float = 0.0
    busy_cores: float = 0.0  # the whole machine's, on average
    others_cores: float = 0.0  # of that, neither the server's nor this benchmark's

    @property
    def cpu_total(self) -> float:
        return sum(self.cpu)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--attempts", type=int, default=1000, help="wrong passwords sent")
    parser.add_argument(
        "--basic", type=int, default=300, help="wrong Basic credentials on the API (phase D)"
    )
    parser.add_argument("--seconds", type=int, default=20, help="reading in phases A and A2")
    parser.add_argument("--connections", type=int, default=20, help="readers")
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--players", type=int, default=200, help="the Swiss's field")
    parser.add_argument("--rounds", type=int, default=3, help="rounds played")
    parser.add_argument("--rated", type=int, default=2000, help="players on the rating list")
    parser.add_argument("--database", default="zary_bench_signin")
    parser.add_argument("--reuse", action="store_true", help="keep a database built before")
    parser.add_argument("--seed", type=int, default=20)
    args = parser.parse_args(argv)
    if not 1 <= args.attempts <= 10_000 or not 1 <= args.connections <= 200:
        parser.error("--attempts 1..10000 and --connections 1..200 keep the load bounded")
    if not 1 <= args.seconds <= PHASE_BOUND_SECONDS:
        parser.error(f"--seconds 1..{PHASE_BOUND_SECONDS}")
    args.threads = min(args.threads, args.connections)
    wrk = shutil.which("wrk")
    if wrk is None:
        raise SystemExit("wrk is not installed (Debian: apt-get install wrk)")
    if not load.redis_answers():
        raise SystemExit(
            f"Redis does not answer on {load.REDIS_HOST}:{load.REDIS_PORT}: without the "
            "shared cache the workers would each keep their own counts and pages"
        )

    with tempfile.TemporaryDirectory(prefix="zary-bench-signin-") as scratch:
        env = load.server_environment(
            argparse.Namespace(database=args.database, no_redis=False), Path(scratch)
        )
        env["CACHE_URL"] = f"redis://{load.REDIS_HOST}:{load.REDIS_PORT}/{REDIS_DATABASE}"
        env["SIGNIN_PROXY_COUNT"] = "1"  # behind one nginx, as README advises
        os.environ.update(env)
        fresh = load.prepare_database(args.database, reuse=args.reuse)
        load.manage(env, "migrate", "--noinput")
        load.manage(env, "collectstatic", "--noinput")

        import django

        django.setup()
        from django.conf import settings
        from django.core.cache import cache

        cache.clear()
        if fresh:
            load.build(args)
        elif not load.built_already():
            raise SystemExit(f"{args.database} holds no finished build: run without --reuse")
        ensure_official()
        paths = reader_paths()
        hash_ms = one_hash_ms()
        from django.db import connections

        connections.close_all()
        server_log = Path(scratch) / "server.log"
        # The workers log every refused sign-in (LOG_LEVEL INFO, as in production) on
        # their stderr, inherited from this process: into a file instead of the report.
        with ExitStack() as stack:
            with quiet_children(server_log):
                base_url = stack.enter_context(load.gunicorn(env, Path(scratch)))
            server = gunicorn_master()
            warm_up(base_url, paths)
            listing = Path(scratch) / "paths.txt"
            listing.write_text("\n".join(paths) + "\n")
            loadavg = os.getloadavg()
            limits = (settings.SIGNIN_ADDRESS_FAILURES, settings.SIGNIN_ACCOUNT_FAILURES)
            run = Runner(wrk, base_url, listing, args, server, limits)
            try:
                phases = [
                    run.readers_alone("A  readers alone"),
                    run.under_attack("B  readers + attack"),
                    run.under_attack("B1 readers + guesses to lockout", until_lockout=True),
                    run.attack_alone("C  attack alone"),
                    run.readers_alone("A2 readers alone again"),
                ]
                if args.basic:
                    phases.append(run.basic_alone("D  Basic on the API alone"))
            except SystemExit:
                print(f"the server's log ends:\n{server_log.read_text()[-3000:]}", file=sys.stderr)
                raise
            forget_failures()
        cache.clear()  # nothing of this database left behind in Redis
        report(phases, args, paths, hash_ms, loadavg, limits)
    return 0


# --- Set-up ---------------------------------------------------------------------------


def ensure_official() -> None:
    """The attacked account, a real one with a password (never sent), so that its own
    limit applies and its guesses are checked against a stored hash."""
    from django.contrib.auth import get_user_model

    from clubs import services

    password = secrets.token_urlsafe(16)
    user = get_user_model().objects.filter(username=KNOWN_USERNAME).first()
    if user is None:
        services.create_account(
            username=KNOWN_USERNAME, email="official@bench.invalid", password=password
        )
    else:
        user.set_password(password)
        user.save(update_fields=["password"])


def reader_paths() -> list[str]:
    """The public pages the readers cycle through, from bench_public_load's targets
    (the tournament, its players' or round page, the standings, the rating list)
    plus the home and the federation pages."""
    from django.urls import reverse

    targets = load.find_targets()
    players = targets[2].paths[:20]
    pages = [
        reverse("home"),
        reverse("clubs:federation", kwargs={"slug": load.FEDERATION_SLUG}),
        targets[1].paths[0],
        *players,
        targets[3].paths[0],
        targets[4].paths[0],
    ]
    return list(dict.fromkeys(pages))


def one_hash_ms() -> float:
    """What one check of a password costs here (the default hasher), for scale."""
    from django.contrib.auth.hashers import make_password

    started = time.process_time()
    make_password("not the password")
    return (time.process_time() - started) * 1000


def warm_up(base_url: str, paths: list[str]) -> None:
    """Each page fetched twice: the page cache holds it as a visited site's would, and
    a page that is not a plain 200 stops the benchmark here."""
    for path in paths * 2:
        status, _headers, _body = request(base_url, "GET", path, READERS_ADDRESS)
        if status != 200:
            raise SystemExit(f"reader page {path} answers {status}")


def forget_failures() -> None:
    """Every remembered failed sign-in deleted: each phase starts unlocked."""
    from axes.models import AccessAttempt
    from django.db import connections

    AccessAttempt.objects.all().delete()
    if AccessAttempt.objects.exists():
        raise SystemExit("the failed sign-ins could not be forgotten")
    connections.close_all()  # the bench's own PostgreSQL backend is not the server's


@contextmanager
def quiet_children(log: Path) -> Iterator[None]:
    """Processes started inside write their stdout and stderr to ``log``."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with log.open("ab") as target:
        os.dup2(target.fileno(), 1)
        os.dup2(target.fileno(), 2)
    try:
        yield
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])


# --- The server's CPU -------------------------------------------------------------------


def machine_counter() -> tuple[float, float, float]:
    """Now (s), the CPU seconds the whole machine has been busy (/proc/stat: all
    but idle and I/O wait), and those of this process and its finished children
    (the wrk runs), to tell how much of the machine others took during a phase."""
    fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    ticks = [int(x) for x in fields[:8]]
    busy = (sum(ticks) - ticks[3] - ticks[4]) / CLOCK_TICKS
    mine = os.times()
    own = mine.user + mine.system + mine.children_user + mine.children_system
    return time.monotonic(), busy, own


def gunicorn_master() -> int:
    """The pid of the gunicorn that bench_public_load started as our child."""
    for pid in children(os.getpid()):
        if b"gunicorn" in Path(f"/proc/{pid}/cmdline").read_bytes():
            return pid
    raise SystemExit("no gunicorn among this process's children")


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = stat_fields(int(entry.name))
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def stat_fields(pid: int) -> list[str]:
    """/proc/<pid>/stat after the command name (which may hold spaces): state is [0]."""
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2 :].split()


def cpu_seconds(pids: list[int]) -> dict[tuple[int, int], float]:
    """User + system CPU seconds of each process, keyed by pid and start time (a
    reused pid is another process)."""
    times = {}
    for pid in pids:
        try:
            fields = stat_fields(pid)
        except OSError:  # gone meanwhile
            continue
        # utime, stime and starttime are fields 14, 15 and 22 of stat(5).
        times[(pid, int(fields[19]))] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS
    return times


def server_processes(master: int) -> tuple[list[int], list[int]]:
    """gunicorn's master and workers; PostgreSQL's backends on the bench database."""
    import psycopg

    with psycopg.connect(f"{load.SERVER}/postgres", autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s",
            [os.environ["DATABASE_URL"].rsplit("/", 1)[1]],
        ).fetchall()
    return [master, *children(master)], [row[0] for row in rows]


def cpu_counter(master: int) -> dict[tuple[int, int], float]:
    gunicorn_pids, backend_pids = server_processes(master)
    counter = {("g", *key): value for key, value in cpu_seconds(gunicorn_pids).items()}
    counter.update({("p", *key): value for key, value in cpu_seconds(backend_pids).items()})
    return counter  # type: ignore[return-value]


def cpu_spent(start: dict[Any, float], end: dict[Any, float]) -> tuple[float, float]:
    """CPU seconds between two counters, gunicorn's and PostgreSQL's: a process seen
    only at the end counts whole; one gone by the end is lost (a backend of a
    connection closed meanwhile: CONN_MAX_AGE keeps them for 60 s)."""
    spent = {"g": 0.0, "p": 0.0}
    for key, value in end.items():
        spent[key[0]] += value - start.get(key, 0.0)
    return spent["g"], spent["p"]


# --- The clients ---------------------------------------------------------------------


def request(
    base_url: str,
    method: str,
    path: str,
    address: str,
    body: str | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, http.client.HTTPMessage, bytes]:
    """One request as nginx would pass it on (a new connection: gunicorn's sync
    workers close each one)."""
    parts = urlsplit(base_url)
    connection = http.client.HTTPConnection(
        parts.hostname or "127.0.0.1", parts.port, timeout=REQUEST_TIMEOUT_SECONDS
    )
    try:
        connection.request(
            method,
            path,
            body=body,
            headers={
                **load.PROXY_HEADERS,
                "X-Forwarded-For": address,
                "Host": "127.0.0.1",
                **(headers or {}),
            },
        )
        answer = connection.getresponse()
        return answer.status, answer.headers, answer.read()
    finally:
        connection.close()


class Runner:
    def __init__(
        self,
        wrk: str,
        base_url: str,
        listing: Path,
        args: argparse.Namespace,
        master: int,
        limits: tuple[int, int],
    ) -> None:
        self.wrk, self.base_url, self.listing, self.args = wrk, base_url, listing, args
        self.master, self.limits = master, limits

    # Phases

    def readers_alone(self, name: str) -> Phase:
        phase = self.begin(name)
        done = threading.Event()
        timer = threading.Timer(self.args.seconds, done.set)
        timer.start()
        try:
            phase.readers = self.readers(until=done)
        finally:
            timer.cancel()
        return self.end(phase)

    def under_attack(self, name: str, *, until_lockout: bool = False) -> Phase:
        """The readers while the attack runs; ``until_lockout``: only its guesses up to
        the address's lockout, the window in which each one costs a password hash."""
        phase = self.begin(name)
        done = threading.Event()
        box: dict[str, Any] = {}

        def read() -> None:
            try:
                box["readers"] = self.readers(until=done)
            except BaseException as error:  # re-raised in this thread
                box["error"] = error
                done.set()

        reader = threading.Thread(target=read)
        reader.start()
        time.sleep(0.2)  # the readers connected and running when the attack begins
        try:
            phase.attack = self.attack(until_lockout=until_lockout)
        finally:
            done.set()
            reader.join()
        if "error" in box:
            raise box["error"]
        phase.readers = box["readers"]
        return self.end(phase)

    def attack_alone(self, name: str) -> Phase:
        phase = self.begin(name)
        phase.attack = self.attack(on_lockout=lambda: cpu_counter(self.master))
        return self.end(phase)

    def basic_alone(self, name: str) -> Phase:
        phase = self.begin(name)
        phase.attack = self.basic(self.args.basic)
        return self.end(phase)

    def begin(self, name: str) -> Phase:
        forget_failures()
        print(f"phase {name} ...", flush=True)
        phase = Phase(name)
        phase.cpu_start = cpu_counter(self.master)
        phase.machine_start = machine_counter()
        return phase

    def end(self, phase: Phase) -> Phase:
        end = cpu_counter(self.master)
        machine = machine_counter()
        phase.cpu = cpu_spent(phase.cpu_start, end)
        phase.wall = machine[0] - phase.machine_start[0]
        busy = machine[1] - phase.machine_start[1]
        ours = machine[2] - phase.machine_start[2]  # this process and its wrk
        phase.busy_cores = busy / phase.wall
        phase.others_cores = max(0.0, busy - ours - phase.cpu_total) / phase.wall
        if phase.attack is not None and phase.attack.counter_at_lockout is not None:
            spent = cpu_spent(phase.cpu_start, phase.attack.counter_at_lockout)
            phase.attack.cpu_before_lockout = sum(spent)
        if phase.attack is not None and phase.attack.basic:
            others = {s: n for s, n in phase.attack.statuses.items() if s not in (401, 429)}
            if others:
                raise SystemExit(f"Basic credentials got answers other than 401/429: {others}")
        elif phase.attack is not None:
            check_attack(phase.attack, self.args.attempts, self.limits)
        load.drain(self.base_url + self.listing.read_text().split()[0])
        return phase

    # The readers

    def readers(self, *, until: threading.Event) -> Readers:
        """wrk's readers, until ``until`` is set: interrupted then (SIGINT), wrk
        reports what it measured.  (A count per wrk thread, stopping a thread when it
        reaches it, showed requests of ~2 s that a run stopped by time never has:
        so the runs are bounded by time, and their counts printed.)"""
        command = [
            self.wrk,
            f"--threads={self.args.threads}",
            f"--connections={self.args.connections}",
            f"--duration={PHASE_BOUND_SECONDS}s",
            f"--timeout={REQUEST_TIMEOUT_SECONDS}s",
            "--script",
            str(LUA_SCRIPT),
            "--header",
            f"X-Forwarded-For: {READERS_ADDRESS}",
        ]
        for name, value in load.PROXY_HEADERS.items():
            command += ["--header", f"{name}: {value}"]
        command += [self.base_url + "/", "--", str(self.listing)]
        wrk = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        def interrupt() -> None:
            until.wait()
            wrk.send_signal(signal.SIGINT)  # nothing when wrk has ended by itself

        threading.Thread(target=interrupt, daemon=True).start()
        output, stderr = wrk.communicate(timeout=PHASE_BOUND_SECONDS + 60)
        line = next((x for x in output.splitlines() if x.startswith("BENCH-RESULT ")), None)
        if line is None:
            raise SystemExit(f"wrk printed no result:\n{output}\n{stderr}")
        figures = {k: float(v) for k, v in (pair.split("=") for pair in line.split()[1:])}
        errors = sum(figures[k] for k in ("connect", "read", "write", "timeout"))
        if figures["not_200"] or errors or not figures["requests"]:
            raise SystemExit(
                f"the readers got {figures['not_200']:.0f} answers other than 200 and "
                f"{errors:.0f} socket errors in {figures['requests']:.0f} requests: "
                f"the set-up is wrong\n{output}"
            )
        return Readers(
            requests=int(figures["requests"]),
            seconds=figures["duration_us"] / 1e6,
            p50=figures["p50_us"] / 1000,
            p95=figures["p95_us"] / 1000,
            p99=figures["p99_us"] / 1000,
            worst=figures["max_us"] / 1000,
        )

    # The attacker

    def basic(self, count: int) -> Attack:
        return basic_guesses(self, count)

    def attack(
        self, on_lockout: Callable[[], Any] | None = None, until_lockout: bool = False
    ) -> Attack:
        """``--attempts`` wrong passwords from one address, one after the other (only
        up to the address's lockout with ``until_lockout``)."""
        path = "/accounts/login/"
        status, headers, body = request(self.base_url, "GET", path, ATTACKER_ADDRESS)
        if status != 200:
            raise SystemExit(f"the sign-in page answers {status}")
        cookie = SimpleCookie()
        for value in headers.get_all("Set-Cookie") or []:
            cookie.load(value)
        found = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', body)
        if "csrftoken" not in cookie or found is None:
            raise SystemExit("the sign-in page sets no CSRF cookie or token")
        post_headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={cookie['csrftoken'].value}",
            "Origin": "https://127.0.0.1",
            "Referer": f"https://127.0.0.1{path}",
        }
        token = found.group(1).decode()
        attack = Attack()
        known_tries = 0
        started = time.perf_counter()
        for attempt in range(1, self.args.attempts + 1):
            known = attempt % 4 == 1
            username = KNOWN_USERNAME if known else f"guess-{attempt:04d}"
            known_tries += known
            form = urlencode(
                {
                    "csrfmiddlewaretoken": token,
                    "username": username,
                    "password": f"{secrets.token_hex(6)}-{attempt}",
                }
            )
            status, headers, body = request(
                self.base_url, "POST", path, ATTACKER_ADDRESS, form, post_headers
            )
            attack.statuses[status] += 1
            if status == 200 and b'name="password"' not in body:
                raise SystemExit(f"attempt {attempt}: a 200 without the sign-in form")
            if status == 429:
                if not headers.get("Retry-After"):
                    raise SystemExit(f"attempt {attempt}: 429 without Retry-After")
                if known and not attack.known_locked_at:
                    attack.known_locked_at = known_tries
                if not known and not attack.address_locked_at:
                    attack.address_locked_at = attempt
                    if on_lockout is not None:
                        attack.counter_at_lockout = on_lockout()
            if until_lockout and attack.address_locked_at:
                attack.partial = True
                break
            if time.perf_counter() - started > PHASE_BOUND_SECONDS:
                raise SystemExit(f"the attack took over {PHASE_BOUND_SECONDS} s: stopped")
        attack.seconds = time.perf_counter() - started
        return attack


def basic_guesses(runner: Runner, count: int) -> Attack:
    """``count`` API requests with wrong Basic credentials (every fourth for the
    official), one after the other: refused with 401 (and 429 once the address is
    locked while the API reads Basic credentials at all)."""
    attack = Attack(basic=True)
    started = time.perf_counter()
    for attempt in range(1, count + 1):
        username = KNOWN_USERNAME if attempt % 4 == 1 else f"basic-{attempt:04d}"
        secret = base64.b64encode(f"{username}:{secrets.token_hex(6)}".encode()).decode()
        status, _headers, _body = request(
            runner.base_url,
            "GET",
            "/api/",
            ATTACKER_ADDRESS,
            headers={"Authorization": f"Basic {secret}", "Accept": "application/json"},
        )
        attack.statuses[status] += 1
        if time.perf_counter() - started > PHASE_BOUND_SECONDS:
            raise SystemExit(f"the Basic guesses took over {PHASE_BOUND_SECONDS} s: stopped")
    attack.seconds = time.perf_counter() - started
    return attack


def checked_guesses(attack: Attack) -> int:
    """The guesses whose password was checked: the answers 200, and the two that
    began a lockout (the failure that reaches a limit is answered 429 already)."""
    return attack.statuses[200] + bool(attack.known_locked_at) + bool(attack.address_locked_at)


def check_attack(attack: Attack, attempts: int, limits: tuple[int, int]) -> None:
    """The lockouts came where the settings put them, or the set-up is wrong."""
    address_limit, account_limit = limits
    others = {s: n for s, n in attack.statuses.items() if s not in (200, 429)}
    if others:
        raise SystemExit(f"the attack got answers other than 200/429: {others} (403: CSRF?)")
    if attempts < 4 * address_limit or address_limit <= 4 * account_limit:
        return  # a run too short, or limits that interleave otherwise: nothing to expect
    problems = []
    # Every fourth guess is the official's: his account locks at his limit's try, well
    # before the address locks at its limit's failure.
    if attack.known_locked_at != account_limit:
        problems.append(
            f"the official's account was first refused at his try {attack.known_locked_at}, "
            f"not {account_limit} (SIGNIN_ACCOUNT_FAILURES)"
        )
    if not attack.address_locked_at:
        problems.append("the address was never locked out")
    elif checked_guesses(attack) != address_limit:
        problems.append(
            f"{checked_guesses(attack)} guesses checked, not {address_limit} "
            "(SIGNIN_ADDRESS_FAILURES): the address rule did not lock as it should"
        )
    if problems:
        raise SystemExit("the lockout did not work: " + "; ".join(problems))


# --- The report --------------------------------------------------------------------------


def report(
    phases: list[Phase],
    args: argparse.Namespace,
    paths: list[str],
    hash_ms: float,
    loadavg: tuple[float, float, float],
    limits: tuple[int, int],
) -> None:
    import django

    commit = subprocess.run(
        ["git", "log", "-1", "--format=%h %cI"], cwd=load.ROOT, capture_output=True, text=True
    ).stdout.strip()
    print()
    print(
        f"run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, commit {commit or '?'}; "
        f"Django {django.get_version()}; {os.cpu_count()} cores, load average "
        f"{loadavg[0]:.1f} before the phases; gunicorn {load.WORKERS} sync workers; readers: "
        f"wrk {args.connections} connections over {len(paths)} public pages; lockout after "
        f"{limits[0]} failures per address, {limits[1]} per account"
    )
    print(f"one password check in this process (the default hasher): {hash_ms:.0f} ms CPU")
    a, b, b1, c, a2 = phases[:5]
    assert a.readers and b.readers and b1.readers and c.attack and b.attack and a2.readers
    for phase in phases:
        cells = [f"{phase.name:24}"]
        if phase.readers:
            r = phase.readers
            cells.append(
                f"reads {r.requests:6,} in {r.seconds:5.1f} s ({r.requests / r.seconds:5.0f}/s) "
                f"p50 {r.p50:6.1f} ms p95 {r.p95:6.1f} ms p99 {r.p99:6.1f} ms"
            )
        if phase.attack and phase.attack.basic:
            t = phase.attack
            answers = ", ".join(f"{n} x {code}" for code, n in sorted(t.statuses.items()))
            cells.append(f"Basic {sum(t.statuses.values()):,} in {t.seconds:5.1f} s: {answers}")
        elif phase.attack:
            t = phase.attack
            cells.append(
                f"attack {sum(t.statuses.values()):,} in {t.seconds:5.1f} s: "
                f"{t.statuses[200]} form again (200), {t.statuses[429]} locked out (429)"
            )
        cells.append(
            f"server CPU {phase.cpu_total:6.2f} s (gunicorn {phase.cpu[0]:.2f} + "
            f"PostgreSQL {phase.cpu[1]:.2f}); machine busy {phase.busy_cores:.1f} cores, "
            f"{phase.others_cores:.1f} of them by other work"
        )
        print("  ".join(cells))
    per_read = a.cpu_total / a.readers.requests
    attack_in_b = b.cpu_total - per_read * b.readers.requests
    upto = c.attack.address_locked_at
    checked = checked_guesses(c.attack)
    before, after = c.attack.cpu_before_lockout, c.cpu_total - c.attack.cpu_before_lockout
    print(
        f"the attack's server CPU (phase C): {c.cpu_total:.2f} s for {args.attempts:,} guesses "
        f"({c.cpu_total / args.attempts * 1000:.1f} ms each): guesses 1-{upto} ({checked} "
        f"checked, {upto - checked} refused) {before:.2f} s ({before / max(checked, 1) * 1000:.0f}"
        f" ms per checked one), the {args.attempts - upto} after the address's lockout "
        f"{after:.2f} s ({after / max(args.attempts - upto, 1) * 1000:.2f} ms each)"
    )
    print(
        f"  check, phase B: {b.cpu_total:.2f} s minus the reads' share "
        f"({b.readers.requests:,} x {per_read * 1000:.2f} ms of phase A) = {attack_in_b:.2f} s; "
        f"address locked from guess {upto}, the official's account refused "
        f"from its try {c.attack.known_locked_at}"
    )
    ratio = b.readers.p95 / a.readers.p95
    drift = a2.readers.p95 / a.readers.p95
    met = ratio <= P95_GOAL_RATIO
    print(
        f"goal (issue 20): readers' p95 under attack within {P95_GOAL_RATIO}x of without: "
        f"{'met' if met else 'MISSED'}, B/A = {b.readers.p95:.1f} / {a.readers.p95:.1f} ms = "
        f"{ratio:.2f}x (B/A2 = {b.readers.p95 / a2.readers.p95:.2f}x)"
    )
    print(
        f"  while the guesses cost a hash (B1, {b1.readers.seconds:.1f} s): readers' p95 "
        f"{b1.readers.p95:.1f} ms = {b1.readers.p95 / a.readers.p95:.2f}x of A's"
    )
    for d in phases[5:]:
        assert d.attack is not None
        count = sum(d.attack.statuses.values())
        print(
            f"Basic credentials on the API (phase D): {d.cpu_total:.2f} s server CPU for "
            f"{count:,} ({d.cpu_total / count * 1000:.2f} ms each)"
        )
    if not 1 / P95_GOAL_RATIO <= drift <= P95_GOAL_RATIO or max(
        phase.others_cores for phase in phases
    ) > 0.25 * (os.cpu_count() or 1):
        print(
            f"  not a fair comparison: the runs without the attack differ by {drift:.2f}x "
            "(A2/A) or other work took a large share of the machine; run it again on a "
            "quiet machine"
        )


if __name__ == "__main__":
    sys.exit(main())
