"""The whole API under Schemathesis, as anonymous, a player and an organizer.

Every operation of the OpenAPI schema gets generated requests (valid and
invalid bodies, query strings and path ids); the server must never answer 5xx,
whoever asks.  Path ids are drawn half the time from the objects of a small
world built here, so the generated requests reach real matches, reports,
rounds and tournaments rather than only 404s.

``make test`` runs a few examples per operation and role;
``API_FUZZ_EXAMPLES`` raises that for a longer run (``make verify``).
"""

from __future__ import annotations

import base64
import os
from typing import Any

import pytest
import schemathesis
from django.test import override_settings
from hypothesis import HealthCheck, settings

from config.wsgi import application

EXAMPLES = int(os.environ.get("API_FUZZ_EXAMPLES", "6"))
PASSWORD = "correct-horse-battery"
ROLES = ("anonymous", "player", "organizer")
FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

schema = schemathesis.openapi.from_wsgi("/api/schema/", application)
# The coverage phase (every boundary of every parameter) multiplies the run
# time; the long run of ``make verify`` switches it on.
schema.config.phases.coverage.enabled = os.environ.get("API_FUZZ_COVERAGE") == "1"

# Ids of the world's objects by the first segment of the path (filled per test).
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


def _build_world() -> dict[str, Any]:
    from clubs.models import Role
    from games import services as games_services
    from tests.factories import ClubFactory, PlayerFactory, UserFactory, grant
    from tests.tournaments import builders
    from tournaments import services as tournament_services

    federation, organizer, discipline = builders.federation_with_admin()
    club = ClubFactory(federation=federation)
    grant(organizer, Role.CLUB_ADMIN, club)
    t = builders.tournament(4, "swiss", federation=federation, by=organizer, rounds_planned=3)
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
    # Hashed with the tests' fast hasher (tests/conftest.py), which each test
    # installs again: a hash of the default hasher would not verify then.
    with override_settings(PASSWORD_HASHERS=FAST_HASHERS):
        for user in (organizer, player_user):
            user.set_password(PASSWORD)
            user.save()
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
            "matches": [friendly.pk, reported.pk, pairing.match_id],
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
    return {"organizer": organizer, "player": player_user}


def _basic(user: Any) -> dict[str, str]:
    token = base64.b64encode(f"{user.username}:{PASSWORD}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


@pytest.fixture(scope="module")
def world(django_db_setup: Any, django_db_blocker: Any) -> Any:
    """Built once for the module inside a transaction that is rolled back at its end;
    each test runs in a savepoint of it (the ``db`` fixture), so no test sees
    another's writes."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections, transaction

    # Requests go straight to the WSGI app, which closes the connection after a
    # request made inside a transaction (as it would in production); Django's
    # own test client unhooks that, and so do we, or PostgreSQL loses the world.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
        try:
            yield _build_world()
        finally:
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)
            request_started.connect(close_old_connections)
            request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_no_server_error(case: Any, world: dict[str, Any], db: Any) -> None:
    for role in ROLES:
        headers = {} if role == "anonymous" else _basic(world[role])
        response = case.call(headers=headers)
        assert response.status_code < 500, (
            f"{role}: {case.method} {case.formatted_path} answered {response.status_code}: "
            f"{response.text[:500]}"
        )


def test_roles_are_who_they_claim(world: dict[str, Any], db: Any) -> None:
    """The sweep above is only worth three roles if the credentials work: anonymous
    is refused a write, the organizer's empty club is refused for its content."""
    from django.test import Client

    client = Client()
    anonymous = client.post("/api/clubs/", {}, content_type="application/json")
    organizer = client.post(
        "/api/clubs/", {}, content_type="application/json", headers=_basic(world["organizer"])
    )
    assert anonymous.status_code == 403
    assert organizer.status_code == 400, organizer.content
    assert "name" in organizer.json()
    me = client.get("/api/reports/", headers=_basic(world["player"]))
    assert me.status_code == 200
