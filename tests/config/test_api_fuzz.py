"""The whole API under Schemathesis, over HTTP, as anonymous, a player and an organizer.

A real HTTP server on 127.0.0.1 serves the WSGI application of production
(``config.wsgi``) from a thread of this process.  Every operation of the OpenAPI
schema gets generated requests (valid and invalid bodies, query strings and
path ids), each sent once per identity.  A response fails the pass if it is a
5xx, or if it breaks what the schema promises for its status (the body's shape,
the media type): a client generated from the schema must be able to read every
answer it documents.  Path ids are drawn half the time from the objects of a
small world built here, so the requests reach real matches, reports, rounds and
tournaments rather than only 404s.

The world is committed, once for the module (each test's transaction would
undo it), and every table is flushed at the end of the module (as Django's
TransactionTestCase does): the tests that follow start from an empty database.
Each test takes ``db``: the server uses the test's own connection (SQLite or
PostgreSQL), so its writes are undone after each operation's test, and the
stateful phase undoes each scenario's: every request meets the same world.

``make test`` runs a few examples per operation and role, with a fixed seed;
``make verify`` raises ``API_FUZZ_EXAMPLES``, switches on the coverage phase
(``API_FUZZ_COVERAGE=1``: every boundary of every parameter) and the stateful
phase (``API_FUZZ_STATEFUL=1``: chains of calls that feed one answer's ids into
the next request).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
import requests
import schemathesis
from django.db import transaction
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.parameters import ParameterLocation
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
)

from config.wsgi import application

EXAMPLES = int(os.environ.get("API_FUZZ_EXAMPLES", "6"))
COVERAGE = os.environ.get("API_FUZZ_COVERAGE") == "1"
STATEFUL = os.environ.get("API_FUZZ_STATEFUL") == "1"
ROLES = ("anonymous", "player", "organizer")
# No 5xx, and every documented answer as documented.  Not ``status_code_conformance``:
# the schema documents the successes (and a few refusals), not every 4xx a
# malformed request can earn.
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]

# pytest makes one test per operation, so the schema is read when the tests are
# collected, through the application itself; the requests go to the live server
# (``base_url``), and a test below checks that it publishes this very schema.
# In English, whatever the default language (descriptions only; the shapes are the same).
ENGLISH = {"Accept-Language": "en"}
schema = schemathesis.openapi.from_wsgi("/api/schema/", application, headers=ENGLISH)
schema.app = None  # send over HTTP, not through the WSGI interface
# As read, before the generation (the coverage phase rewrites parts of it in place).
SCHEMA_AS_READ = copy.deepcopy(schema.raw_schema)
schema.config.phases.coverage.enabled = COVERAGE

# Ids of the world's objects by the first segment of the path (filled by the fixture).
_REAL_IDS: dict[str, list[int]] = {}


@schemathesis.hook
def map_path_parameters(ctx: Any, path_parameters: dict[str, Any]) -> dict[str, Any]:
    """Point about half of the generated ids at objects that exist."""
    if not path_parameters:
        return path_parameters
    collection = ctx.operation.path.strip("/").split("/")[1]
    real = _REAL_IDS.get(collection, [])
    for name, value in list(path_parameters.items()):
        if name == "player_pk":
            real = _REAL_IDS.get("players", [])
        if real and isinstance(value, int) and value % 2 == 0:
            path_parameters[name] = real[value // 2 % len(real)]
    return path_parameters


def _build_world() -> dict[str, dict[str, str]]:
    """The shared test world (tests/world.py), its running Swiss in its first round,
    a friendly match, a reported one and a knock-out with a decided first match; the
    headers of the organizer and the player (their API tokens)."""
    from clubs.models import Role
    from games import services as games_services
    from tests.factories import PlayerFactory, UserFactory, grant
    from tests.tournaments import builders
    from tests.world import build_world
    from tournaments import services as tournament_services

    world = build_world()
    federation, club, discipline = world.federation, world.club, world.discipline
    organizer = world.fed_admin
    grant(organizer, Role.CLUB_ADMIN, club)
    t = world.running_swiss
    rnd = tournament_services.pair_next_round(t, by=organizer, flight="main")
    tournament_services.start_round(rnd, by=organizer)
    pairing = rnd.pairings.select_related("match__player1__user").first()
    player_user = pairing.match.player1.user
    friend = PlayerFactory(federation=federation, user=UserFactory())
    friendly = games_services.create_match(
        by=player_user,
        player1=pairing.match.player1,
        player2=friend,
        discipline=discipline,
        length=3,
        recorded=True,
    )
    reported = games_services.create_match(
        by=player_user,
        player1=pairing.match.player1,
        player2=friend,
        discipline=discipline,
        length=3,
    )
    games_services.submit_report(reported, by=player_user, score1=3, score2=1)
    # A knock-out with a played first round, so that the bracket has columns.
    cup = builders.tournament(4, "single_elimination", federation=federation, by=organizer)
    cup_round = tournament_services.pair_next_round(cup, by=organizer)
    tournament_services.start_round(cup_round, by=organizer)
    first_table = cup_round.pairings.select_related("match").first()
    games_services.override_result(
        first_table.match, by=organizer, score1=first_table.match.length, score2=0, reason="fuzz"
    )
    # The roles send API tokens (clubs.tokens), as integrations do: Basic credentials
    # are off by default.
    from clubs import tokens

    headers = {
        role: {
            "Authorization": "Bearer "
            + tokens.create_personal_token(
                user, name="fuzz", scope="write", expires_in_days=None
            ).plain
        }
        for role, user in (("organizer", organizer), ("player", player_user))
    }
    from clubs.models import Membership, Player
    from games.models import ResultReport
    from ratings.models import RatingList, RatingPool
    from tournaments.models import Entry, Pairing, Round, StandingsSnapshot, Tournament

    _REAL_IDS.clear()
    _REAL_IDS.update(
        {
            "clubs": [club.pk],
            "federations": [federation.pk],
            "players": list(Player.objects.values_list("pk", flat=True)[:8]),
            "memberships": list(Membership.objects.values_list("pk", flat=True)[:8]),
            "matches": [friendly.pk, reported.pk, pairing.match_id, first_table.match_id],
            "reports": list(ResultReport.objects.values_list("pk", flat=True)),
            "tournaments": list(Tournament.objects.values_list("pk", flat=True)),
            "entries": list(Entry.objects.values_list("pk", flat=True)),
            "rounds": list(Round.objects.values_list("pk", flat=True)),
            "pairings": list(Pairing.objects.values_list("pk", flat=True)),
            "standings": list(StandingsSnapshot.objects.values_list("pk", flat=True)),
            "rating-pools": list(RatingPool.objects.values_list("pk", flat=True)),
            "rating-lists": list(RatingList.objects.values_list("pk", flat=True)),
        }
    )
    return headers


@dataclass
class LiveApi:
    url: str
    headers: dict[str, dict[str, str]]
    requests: int = 0
    operations: set[str] = field(default_factory=set)


def _start_server() -> Any:
    """Django's test server thread, serving the application gunicorn serves, on the
    test's own database connections, whatever the database.

    Django's LiveServerTestCase shares them only for in-memory SQLite (which exists
    only on the connection that made it).  Here PostgreSQL's are shared too, so that
    on every database the server's writes are inside the test's transaction and
    undone with it (each operation's test, each stateful scenario): the stateful
    phase needs each scenario to start from the same data.  The requests come one at
    a time, so one connection is used by one thread at a time; what must not happen
    is a request closing it (in a transaction, that would end the test's transaction
    with it), which Django does at the end of each request: the server below closes
    only connections of its own, and ``_stop_server`` restores the signal handlers
    that ``_start_server`` disconnects."""
    from django.core.servers.basehttp import ThreadedWSGIServer
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections, connections
    from django.test.testcases import LiveServerThread

    shared = {c.alias: c for c in connections.all()}

    class SharingServer(ThreadedWSGIServer):  # type: ignore[misc]
        def _close_connections(self) -> None:
            for connection in connections.all(initialized_only=True):
                if connection.alias not in shared:
                    connection.close()

    class SharingServerThread(LiveServerThread):  # type: ignore[misc]
        server_class = SharingServer

    # As Django's test client does around its requests.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    thread = SharingServerThread(
        "127.0.0.1", static_handler=lambda _django_handler: application, connections_override=shared
    )
    thread.daemon = True
    for connection in shared.values():
        connection.inc_thread_sharing()
    thread.start()
    thread.is_ready.wait()
    if thread.error is not None:
        _stop_server(thread)
        raise thread.error
    return thread


def _stop_server(thread: Any) -> None:
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    thread.terminate()
    for connection in thread.connections_override.values():
        connection.dec_thread_sharing()
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture(scope="module")
def quiet_broker() -> Iterator[None]:
    """Work that the committed writes owe goes to a broker inside this process that
    nobody reads, not to the developer's queue (where a worker would run it against
    another database)."""
    from config.celery import app

    conf = app.conf
    saved = conf.get("broker_write_url"), conf.broker_transport_options
    conf.broker_write_url, conf.broker_transport_options = "memory://", {}
    app._pool = None
    app.amqp._producer_pool = None
    yield
    conf.broker_write_url, conf.broker_transport_options = saved
    app._pool = None
    app.amqp._producer_pool = None


@pytest.fixture(scope="module")
def live_api(
    request: pytest.FixtureRequest,
    django_db_setup: Any,
    django_db_blocker: Any,
    quiet_broker: None,
) -> Iterator[LiveApi]:
    """The world, committed once for the module; a server on 127.0.0.1 that sees it;
    the identities' headers.  At the end every table is emptied (post_migrate puts
    back content types and permissions), as Django's TransactionTestCase does.

    Database access stays unblocked for the module: the server's threads need it."""
    from django.conf import settings as django_settings
    from django.core.management import call_command
    from django.test.utils import modify_settings, override_settings

    # No rate limits (base.throttles, tested in test_throttles): the pass sends
    # hundreds of requests a minute as one client, and examples spent on 429s
    # would test nothing else.
    # Nor lockouts (clubs.lockout, tested in tests/clubs/test_signin_lockout.py): should
    # a check send generated Basic credentials, its failures would lock the address.
    unlimited = override_settings(
        THROTTLE_RATES=dict.fromkeys(django_settings.THROTTLE_RATES),
        SIGNIN_ACCOUNT_FAILURES=10**6,
        SIGNIN_ADDRESS_FAILURES=10**6,
    )
    with (
        django_db_blocker.unblock(),
        modify_settings(ALLOWED_HOSTS={"append": "127.0.0.1"}),
        unlimited,
    ):
        try:
            role_headers = _build_world()
            server = _start_server()
            try:
                api = LiveApi(
                    url=f"http://127.0.0.1:{server.port}",
                    headers={"anonymous": {}, **role_headers},
                )
                yield api
                # The figures of the run, shown whatever pytest captures.
                plugins = request.config.pluginmanager
                reporter = plugins.get_plugin("terminalreporter")
                capture = plugins.get_plugin("capturemanager")
                if reporter is not None and capture is not None:
                    with capture.global_and_fixture_disabled():
                        reporter.ensure_newline()
                        reporter.write_line(
                            f"API fuzz: {len(api.operations)} operations, {api.requests} requests "
                            f"({EXAMPLES} examples, coverage {'on' if COVERAGE else 'off'}, "
                            f"stateful {'on' if STATEFUL else 'off'})"
                        )
            finally:
                _stop_server(server)
        finally:
            call_command("flush", interactive=False, verbosity=0)
            _REAL_IDS.clear()


def _outside_the_schema(case: Any) -> bool:
    """Whether the case's URL is one the schema does not describe: a path id generated
    against its schema (``1.5e-9``, empty, ``a/b``) may leave the operation's route, and
    then Django's router answers (an HTML 404), not the operation whose documented
    answers the checks compare with.  Such a request must still not earn a 5xx."""
    meta = case.meta
    path = meta.components.get(ParameterLocation.PATH) if meta is not None else None
    return path is not None and path.mode == GenerationMode.NEGATIVE


def _send(case: Any, live_api: LiveApi, role: str) -> Any:
    """``case`` sent to the server as ``role``, the answer checked (the role named on failure)."""
    headers = live_api.headers[role]
    key = (case.headers or {}).get("Idempotency-Key")
    if isinstance(key, str) and key:
        # Generated keys repeat (short strings): a repeat with another body is a 422
        # that never reaches the view.  A suffix unique to the request lets the view
        # run; a malformed key stays malformed (a 400 still exercised).
        headers = {**headers, "Idempotency-Key": f"{key[:240]}-{live_api.requests}"}
    response = case.call(base_url=live_api.url, headers=headers)
    live_api.requests += 1
    live_api.operations.add(case.operation.label)
    checks = [not_a_server_error] if _outside_the_schema(case) else CHECKS
    try:
        case.validate_response(
            response, checks=checks, headers=headers, transport_kwargs={"base_url": live_api.url}
        )
    except Exception as failure:
        failure.add_note(f"Sent as: {role}")
        raise
    return response


def test_the_server_publishes_the_schema_under_test(live_api: LiveApi, db: Any) -> None:
    """The pass tests the schema that clients download from the server."""
    published = schemathesis.openapi.from_url(
        f"{live_api.url}/api/schema/", headers=ENGLISH, timeout=30
    )
    assert published.raw_schema == SCHEMA_AS_READ
    assert len(list(published.get_all_operations())) >= 76


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_no_server_error_and_no_schema_violation(case: Any, live_api: LiveApi, db: Any) -> None:
    for role in ROLES:
        _send(case, live_api, role)


def _chains_as(role: str, live_api: LiveApi) -> Any:
    """Schemathesis' state machine over the links it infers from the schema (an id one
    answer gives is the path or body of the next request), sending as ``role``."""

    class Chains(schema.as_state_machine()):  # type: ignore[misc]
        def setup(self) -> None:
            """Each scenario starts from the world as the test began, its writes undone
            in ``teardown``.  Hypothesis replays a scenario's choices (to shrink it,
            and while generating, to extend a known prefix) and requires the same
            choices to draw the same things; which rules are drawable depends on the
            bundles, filled by the answers, so the answers must be the same too.
            Without this, a scenario's writes (an entry withdrawn, a round paired)
            stayed for the next ones, whose same requests got other answers (400, not
            200): FlakyStrategyDefinition."""
            self._scenario = transaction.atomic()
            self._scenario.__enter__()

        def teardown(self) -> None:
            transaction.set_rollback(True)
            self._scenario.__exit__(None, None, None)

        def call(self, case: Any, **kwargs: Any) -> Any:
            return _send(case, live_api, role)

        def validate_response(self, response: Any, case: Any, **kwargs: Any) -> None:
            """Already checked by ``_send``, with the role named."""

    return Chains


@pytest.mark.skipif(not STATEFUL, reason="the stateful phase runs in make verify")
def test_stateful_chains(live_api: LiveApi, db: Any) -> None:
    for role in ROLES:
        _chains_as(role, live_api).run(
            settings=settings(
                max_examples=EXAMPLES,
                deadline=None,
                derandomize=True,
                suppress_health_check=list(HealthCheck),
                stateful_step_count=10,
            )
        )


def test_roles_are_who_they_claim(live_api: LiveApi, db: Any) -> None:
    """The pass is only worth three roles if the credentials work on the server:
    anonymous is refused a write (401, asked for a token), the organizer's empty club
    is refused for its content, the player reads their own reports."""
    clubs = f"{live_api.url}/api/clubs/"
    anonymous = requests.post(clubs, json={}, timeout=30)
    organizer = requests.post(clubs, json={}, headers=live_api.headers["organizer"], timeout=30)
    assert anonymous.status_code == 401
    assert anonymous.headers["WWW-Authenticate"] == 'Bearer realm="api"'
    assert organizer.status_code == 400, organizer.text
    assert "name" in organizer.json()
    mine = requests.get(
        f"{live_api.url}/api/reports/", headers=live_api.headers["player"], timeout=30
    )
    assert mine.status_code == 200
    assert mine.json()["count"] >= 1
